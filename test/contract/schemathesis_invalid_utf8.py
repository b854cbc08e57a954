"""Schemathesis hooks for the invalid-UTF-8 pass of test/contract/schemathesis.test.ts (issue 36 item 9).

Loaded with SCHEMATHESIS_HOOKS=schemathesis_invalid_utf8 (PYTHONPATH: this folder). Every JSON and
multipart body Schemathesis generates is sent with bytes that are not UTF-8 in one of its texts:
- JSON: one string of the body (a value where there is one, else a key) gets the bytes in the middle;
- multipart: the first file name gets them, else the first text field's value.
The byte sequences are test/hostile/generators.ts INVALID_UTF8, passed in PV_INVALID_UTF8 (one list,
read by both), one chosen per body from a hash of it so that a seed reruns the same requests. The
test then asserts that every such request was refused (4xx), none stored, and none a 5xx.
"""

import hashlib
import json
import os

import requests
from schemathesis.transport.requests import REQUESTS_TRANSPORT, json_serializer, multipart_serializer

SEQUENCES = [bytes(values) for values in json.loads(os.environ["PV_INVALID_UTF8"]).values()]
MARKER = "\u2063pv-not-utf8\u2063"


def _choose(seed: bytes) -> bytes:
    return SEQUENCES[hashlib.sha256(seed).digest()[0] % len(SEQUENCES)]


def _string_paths(value, path=()):
    """Every place a string stands in a JSON value: ('value', path) for a string, ('key', path) for a key."""
    if isinstance(value, str):
        yield ("value", path)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield ("key", path + (key,))
            yield from _string_paths(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _string_paths(item, path + (index,))


def _with_marker(value, kind, path):
    """A copy of `value` with the marker in the middle of the string (or key) at `path`."""
    if not path:
        return value[: len(value) // 2] + MARKER + value[len(value) // 2 :]
    head, rest = path[0], path[1:]
    if isinstance(value, list):
        return [_with_marker(item, kind, rest) if index == head else item for index, item in enumerate(value)]
    out = {}
    for key, item in value.items():
        if key != head:
            out[key] = item
        elif kind == "key" and not rest:
            out[key[: len(key) // 2] + MARKER + key[len(key) // 2 :]] = item
        else:
            out[key] = _with_marker(item, kind, rest)
    return out


def _invalid_json(value) -> bytes:
    text = json.dumps(value, ensure_ascii=False).encode("utf-8")
    bad = _choose(text)
    places = list(_string_paths(value))
    # A value is where a field's text is checked; a key only when the body has no string value.
    candidates = [place for place in places if place[0] == "value"] or places
    if not candidates:
        # No text at all (a number, an empty object): the bytes ahead of it, still not UTF-8.
        return bad + text
    kind, path = candidates[hashlib.sha256(text).digest()[1] % len(candidates)]
    marked = json.dumps(_with_marker(value, kind, path), ensure_ascii=False).encode("utf-8")
    return marked.replace(MARKER.encode("utf-8"), bad, 1)


@REQUESTS_TRANSPORT.serializer("application/json", "text/json")
def invalid_json_serializer(ctx, value):
    if isinstance(value, (bytes, type(None))) or not isinstance(value, (dict, list, str, int, float, bool)):
        return json_serializer(ctx, value)
    return {"data": _invalid_json(value)}


@REQUESTS_TRANSPORT.serializer("multipart/form-data")
def invalid_multipart_serializer(ctx, value):
    built = multipart_serializer(ctx, value)
    if "files" not in built and "data" in built and isinstance(built["data"], bytes):
        return built
    prepared = requests.PreparedRequest()
    prepared.prepare_headers(None)
    prepared.prepare_body(built.get("data"), built.get("files"))
    body = prepared.body if isinstance(prepared.body, bytes) else (prepared.body or "").encode("utf-8")
    bad = _choose(body)
    at = body.find(b'filename="')
    if at >= 0:
        at += len(b'filename="')
    else:
        # No file: the first text field's value, right after its part's headers.
        at = body.find(b"\r\n\r\n")
        at = at + 4 if at >= 0 else -1
    if at < 0:
        return built
    return {"data": body[:at] + bad + body[at:], "headers": {"Content-Type": prepared.headers["Content-Type"]}}

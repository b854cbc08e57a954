#!/usr/bin/env python3
"""In-process timing of c2pa-python (prebuilt native c2pa-rs) for bench/c2pa.ts.

Usage: c2pa-python-timing.py RUNS FILE MIME [FILE MIME ...]
Reads each file RUNS times after one warm-up read, with the settings the service uses (no remote
manifest or OCSP fetch), timing only the read and its JSON (not the interpreter's start), and
prints one JSON object: {"<file>": [ms, ...], ...}. Exit 3 when c2pa-python is not importable.
"""
import io
import json
import sys
import time

try:
    import c2pa
except ImportError:
    print(json.dumps({"skipped": "c2pa-python is not installed"}))
    sys.exit(3)

SETTINGS = json.dumps({"verify": {"remote_manifest_fetch": False, "ocsp_fetch": False}})


def read(data: bytes, mime: str) -> None:
    context = c2pa.Context(c2pa.Settings.from_json(SETTINGS))
    try:
        json.loads(c2pa.Reader(mime, io.BytesIO(data), context=context).json())
    except c2pa.C2paError:
        pass  # no manifest: the same outcome the service maps


def main() -> int:
    runs = int(sys.argv[1])
    args = sys.argv[2:]
    out = {}
    for path, mime in zip(args[::2], args[1::2]):
        with open(path, "rb") as f:
            data = f.read()
        read(data, mime)
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            read(data, mime)
            times.append(round((time.perf_counter() - started) * 1000, 2))
        out[path] = times
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

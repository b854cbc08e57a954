#!/usr/bin/env python3
"""Cross-checks a signed file with the reference implementation (c2pa-python, prebuilt c2pa-rs).

Usage: c2pa-python-check.py FILE MIME [TRUST_ANCHORS_PEM]
Prints one JSON line: {"validation_state": ..., "failures": [...], "ingredient_failures": [...]}
(failure codes of the active manifest, and of every ingredient delta), or {"error": "..."} when
the reader refuses the file (no manifest, unknown algorithm, remote manifest...). Exit 3 when c2pa-python
is not importable, so callers can say clearly that the cross-check was skipped.
"""
import json
import sys

try:
    import c2pa
except ImportError:
    print(json.dumps({"skipped": "c2pa-python is not installed"}))
    sys.exit(3)


def main() -> int:
    path, mime = sys.argv[1], sys.argv[2]
    settings = {"verify": {"remote_manifest_fetch": False, "ocsp_fetch": False}}
    if len(sys.argv) > 3:
        with open(sys.argv[3], encoding="utf-8") as f:
            settings["trust"] = {"trust_anchors": f.read()}
    context = c2pa.Context(c2pa.Settings.from_json(json.dumps(settings)))
    with open(path, "rb") as stream:
        try:
            reader = c2pa.Reader(mime, stream, context=context)
        except c2pa.C2paError as error:
            print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
            return 0
        store = json.loads(reader.json())
    results = store.get("validation_results") or {}
    failures = [s["code"] for s in results.get("activeManifest", {}).get("failure", [])]
    ingredient_failures = [
        s["code"] for delta in results.get("ingredientDeltas", []) for s in delta.get("validationDeltas", {}).get("failure", [])
    ]
    print(json.dumps({"validation_state": store.get("validation_state"), "failures": failures, "ingredient_failures": ingredient_failures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

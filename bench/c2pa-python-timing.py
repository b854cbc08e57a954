#!/usr/bin/env python3
"""In-process timing of c2pa-python (prebuilt native c2pa-rs) for bench/c2pa.ts.

A long-lived timer, so bench/c2pa.ts can interleave each Python read with the Node ones: prints
"ready" once c2pa is imported, then for each line "FILE<TAB>MIME" on stdin reads that file once
with the settings the service uses (no remote manifest or OCSP fetch), timing only the read and
its JSON (not the interpreter's start, nor the pipe), and prints the milliseconds. The first
request for a file also does one untimed warm-up read. Exit 3 when c2pa-python is not importable.
"""
import io
import json
import sys
import time

try:
    import c2pa
except ImportError:
    print(json.dumps({"skipped": "c2pa-python is not installed"}), flush=True)
    sys.exit(3)

SETTINGS = json.dumps({"verify": {"remote_manifest_fetch": False, "ocsp_fetch": False}})


def read(data: bytes, mime: str) -> None:
    context = c2pa.Context(c2pa.Settings.from_json(SETTINGS))
    try:
        json.loads(c2pa.Reader(mime, io.BytesIO(data), context=context).json())
    except c2pa.C2paError:
        pass  # no manifest: the same outcome the service maps


def main() -> int:
    files = {}
    print("ready", flush=True)
    for line in sys.stdin:
        path, mime = line.rstrip("\n").split("\t")
        if path not in files:
            with open(path, "rb") as f:
                files[path] = f.read()
            read(files[path], mime)
        started = time.perf_counter()
        read(files[path], mime)
        print(round((time.perf_counter() - started) * 1000, 2), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

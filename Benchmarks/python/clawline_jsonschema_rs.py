#!/usr/bin/env python3
"""Checks a capture's frames against the exported JSON Schemas with orjson + jsonschema-rs, as a
whole process (interpreter start-up and reading the file included), for validate_bench.py to time
beside `wire validate` and msgspec. Prints the count of frames that fail:

    python3 Benchmarks/python/clawline_jsonschema_rs.py /tmp/capture.jsonl
"""
import json
import pathlib
import sys

import jsonschema_rs
import orjson

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main():
    validators = {
        direction: jsonschema_rs.validator_for(json.loads((ROOT / "schemas" / f"clawline.{direction}.schema.json").read_text())).is_valid
        for direction in ("client", "server")
    }
    lines = 0
    invalid = 0
    with open(sys.argv[1], "rb") as capture:
        for line in capture:
            if line.strip():
                lines += 1
                try:
                    envelope = orjson.loads(line)
                    valid = validators[envelope["dir"]](envelope["frame"])
                except (orjson.JSONDecodeError, KeyError, TypeError):  # not an envelope of a known direction
                    valid = False
                if not valid:
                    invalid += 1
    print(f"{lines} frames, {invalid} invalid")
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())

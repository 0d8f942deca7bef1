#!/usr/bin/env python3
"""Writes a large, valid Clawline capture for benchmarks by repeating the example session.

Each copy of Examples/captures/clawline-session.jsonl gets its own session ids (so every copy is a
fresh set of sessions with its own phases and ids) and timestamps shifted past the previous copy
(so sliding-window rate limits see the same spacing as in the example):

    python3 Benchmarks/python/make_capture.py 100000 > /tmp/capture-100k.jsonl
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main():
    frames = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    lines = [json.loads(line) for line in (ROOT / "Examples/captures/clawline-session.jsonl").read_text().splitlines() if line.strip()]
    span = max(line["ts"] for line in lines) - min(line["ts"] for line in lines) + 60_000
    out = sys.stdout
    written = 0
    copy = 0
    while written < frames:
        for line in lines:
            if written == frames:
                break
            envelope = dict(line)
            envelope["session"] = f"{line['session']}#{copy}"
            envelope["ts"] = line["ts"] + copy * span
            out.write(json.dumps(envelope, separators=(",", ":")) + "\n")
            written += 1
        copy += 1


if __name__ == "__main__":
    main()

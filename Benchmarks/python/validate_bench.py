#!/usr/bin/env python3
"""Validates the same capture with `wire validate` and with Python's fastest frame checkers.

Each JSON Schema validator checks every frame of a JSONL capture of envelopes against the exported
schema of its direction (schemas/clawline.<direction>.schema.json), parsing with `json` and with
`orjson`. msgspec decodes each line into the Structs of clawline_msgspec.py (every frame of the
spec, as strict as msgspec can be; its docstring lists what it cannot check) in one pass.
`wire validate` does more (session rules and rate limits too) and is timed as a whole process
(start-up, reading the file and printing included), on the one core the script runs on and then on
every core. The Python checkers are timed over lines already in memory (in process), and msgspec
and orjson + jsonschema-rs also as whole processes like `wire validate` (interpreter start-up and
reading the file included). Every contender gets the best of `--rounds` passes (one pass for a
validator slower than 10 s a pass). Run it on one core:

    python3 -m venv /tmp/bench && /tmp/bench/bin/pip install jsonschema fastjsonschema jsonschema-rs orjson msgspec
    swift build -c release --product wire
    python3 Benchmarks/python/make_capture.py 100000 > /tmp/capture.jsonl
    taskset -c 0 /tmp/bench/bin/python Benchmarks/python/validate_bench.py /tmp/capture.jsonl [--wire .build/release/wire] [--rounds 3] \
        [--pairs 5] [--stages .build/release/ValidatorBenchmarks] [--turns-only]

The table times each contender in its own minutes. Then msgspec and `wire validate` (and, with
--stages, the peers' work and `wire validate`'s whole work in process) take turns for --pairs
rounds, so their ratio is taken from figures of the same minute.
"""
import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import tempfile
import sys
import time

import fastjsonschema
import jsonschema
import jsonschema_rs
import orjson

import clawline_msgspec

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent


def load_schema(direction):
    return json.loads((ROOT / "schemas" / f"clawline.{direction}.schema.json").read_text())


def run(name, lines, parse, validators, rounds):
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        valid = 0
        for line in lines:
            envelope = parse(line)
            frame = envelope["frame"]
            if validators[envelope["dir"]](frame):
                valid += 1
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        if elapsed > 10:
            break
    return name, len(lines) / best, f"{valid} valid"


def run_lines(name, lines, check, rounds):
    """Times a checker that takes a whole capture line (envelope and frame in one pass)."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        valid = sum(1 for line in lines if check(line))
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        if elapsed > 10:
            break
    return name, len(lines) / best, f"{valid} valid"


def time_process(command):
    """Seconds for one run of `command` as a whole process on this script's core, and its result."""
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    return time.perf_counter() - start, result


def run_process(name, command, frames, rounds):
    """Times a checker as a whole process on the capture, on the core this script runs on."""
    best = float("inf")
    for _ in range(rounds):
        elapsed, result = time_process(command)
        best = min(best, elapsed)
    return name, frames / best, result.stdout.strip()


def time_wire_one_core(wire, capture):
    """Seconds for one `wire validate` of the capture, as a whole process on this script's core."""
    return time_process([wire, "validate", "--spec", str(ROOT / "Spec/clawline.yaml"), capture])[0]


def time_stage(stages, capture, stage):
    """Nanoseconds a line for one ValidatorBenchmarks measure in process (one pass), or None."""
    result = subprocess.run([stages, capture, str(ROOT / "Spec/clawline.yaml"), "1", stage], capture_output=True, text=True)
    match = re.search(r"\s([0-9]+) ns each", result.stdout)
    return float(match.group(1)) if match else None


def time_peers_work(stages, capture):
    """Nanoseconds a line for the peers' work in process: each envelope line parsed and its frame
    checked, with no session rules."""
    return time_stage(stages, capture, "envelope lines")


def time_whole_work(stages, capture):
    """Nanoseconds a line for all that `wire validate` does once started, in process: the file read,
    every frame checked, the session rules and the summary; the start (the loader, the arguments,
    the spec) left out, as msgspec's in-process figure leaves out Python's and its import."""
    return time_stage(stages, capture, "whole capture")


def time_msgspec_process(capture):
    """Seconds for one run of the msgspec checker as a whole process (Python's start, the import,
    reading the file and every line), on this script's core: the like of `wire validate`'s figure."""
    return time_process([sys.executable, str(HERE / "clawline_msgspec.py"), capture])[0]


def taking_turns(args, lines):
    """msgspec in process and as a whole process, `wire validate` on one core and (with --stages)
    the same work as the peers in process, timed in turn, round after round: this machine's speed
    can change by a factor of two within minutes, so only figures taken in the same minute are
    compared. Prints each round, the best of each and the median of the rounds' own ratios."""
    rounds = []
    starts = []
    # Each process's start alone: a capture with no frames, timed in the same rounds.
    empty = tempfile.NamedTemporaryFile(suffix=".jsonl")
    for _ in range(args.pairs):
        starts.append((time_msgspec_process(empty.name), time_wire_one_core(args.wire, empty.name)))
        start = time.perf_counter()
        for line in lines:
            clawline_msgspec.is_valid(line)
        msgspec_ns = (time.perf_counter() - start) / len(lines) * 1e9
        process_ns = time_msgspec_process(args.capture) / len(lines) * 1e9
        wire_ns = time_wire_one_core(args.wire, args.capture) / len(lines) * 1e9
        peers_ns = time_peers_work(args.stages, args.capture) if args.stages else None
        whole_ns = time_whole_work(args.stages, args.capture) if args.stages else None
        rounds.append((msgspec_ns, wire_ns, peers_ns, process_ns, whole_ns))
        in_process = f"   peers' work in process {peers_ns:6.0f} ns ({msgspec_ns / peers_ns:4.2f}x)" if peers_ns else ""
        if whole_ns:
            in_process += f"   whole work in process {whole_ns:6.0f} ns ({msgspec_ns / whole_ns:4.2f}x)"
        print(f"  msgspec in process {msgspec_ns:6.0f} ns a frame, whole process {process_ns:6.0f} ns   "
              f"wire validate, one core {wire_ns:6.0f} ns ({msgspec_ns / wire_ns:4.2f}x; whole process to whole process "
              f"{process_ns / wire_ns:4.2f}x){in_process}")
    best_msgspec = min(r[0] for r in rounds)
    best_wire = min(r[1] for r in rounds)
    best_process = min(r[3] for r in rounds)
    summary = (f"best of each: msgspec {best_msgspec:.0f} ns, wire validate {best_wire:.0f} ns ({best_msgspec / best_wire:.2f}x); "
               f"median of the rounds' ratios {statistics.median(r[0] / r[1] for r in rounds):.2f}x; "
               f"msgspec whole process {best_process:.0f} ns ({best_process / best_wire:.2f}x, "
               f"median {statistics.median(r[3] / r[1] for r in rounds):.2f}x)")
    # Once both have started: each whole process less its start, per frame.
    msgspec_start = statistics.median(start[0] for start in starts)
    wire_start = statistics.median(start[1] for start in starts)
    msgspec_after = best_process - msgspec_start / len(lines) * 1e9
    wire_after = best_wire - wire_start / len(lines) * 1e9
    # On a small capture the starts' noise can exceed the rest of the run: no ratio then.
    started = f"{msgspec_after / wire_after:.2f}x" if msgspec_after > 0 and wire_after > 0 else "not told apart (capture too small)"
    summary += (f"; to start (an empty capture, median): msgspec {msgspec_start * 1e3:.0f} ms, wire validate "
                f"{wire_start * 1e3:.0f} ms, so once both have started {started}")
    if all(r[2] for r in rounds):
        best_peers = min(r[2] for r in rounds)
        summary += (f"; peers' work {best_peers:.0f} ns ({best_msgspec / best_peers:.2f}x, "
                    f"median {statistics.median(r[0] / r[2] for r in rounds):.2f}x)")
    if all(r[4] for r in rounds):
        best_whole = min(r[4] for r in rounds)
        summary += (f"; wire validate's whole work in process (its start left out) {best_whole:.0f} ns "
                    f"({best_msgspec / best_whole:.2f}x, median {statistics.median(r[0] / r[4] for r in rounds):.2f}x)")
    print("  " + summary)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("capture")
    parser.add_argument("--wire", default=str(ROOT / ".build/release/wire"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pairs", type=int, default=5, help="rounds of msgspec and wire validate timed in turn (0: none)")
    parser.add_argument(
        "--stages", help="the ValidatorBenchmarks binary, to time the peers' work and the whole work in process in those rounds too")
    parser.add_argument("--turns-only", action="store_true", help="only the rounds taken in turn, not the table")
    args = parser.parse_args()
    raw = pathlib.Path(args.capture).read_bytes().splitlines()
    lines = [line for line in raw if line.strip()]
    size = sum(len(line) + 1 for line in lines)
    print(f"capture: {len(lines)} frames, {size / 1e6:.1f} MB")
    if args.turns_only:
        print(f"msgspec and wire validate taking turns, {args.pairs} rounds (ratios are msgspec's time over ours):")
        taking_turns(args, lines)
        return

    # `wire validate` on the core this script is pinned to, then on every core of the machine (it
    # reads and parses on a second thread when it may use more than one core).
    wire_rates = []
    for label, cores in (("one core", None), (f"{os.cpu_count()} cores", set(range(os.cpu_count())))):
        wire_elapsed = float("inf")
        for _ in range(args.rounds):
            start = time.perf_counter()
            result = subprocess.run(
                [args.wire, "validate", "--spec", str(ROOT / "Spec/clawline.yaml"), args.capture], capture_output=True, text=True,
                preexec_fn=(lambda cores=cores: os.sched_setaffinity(0, cores)) if cores else None)
            wire_elapsed = min(wire_elapsed, time.perf_counter() - start)
        wire_rates.append((label, len(lines) / wire_elapsed))
        print(f"{'wire validate (frames + session rules), ' + label:48} {len(lines) / wire_elapsed:10.0f} frames/s  {size / wire_elapsed / 1e6:6.1f} MB/s   exit {result.returncode}: {result.stdout.strip().splitlines()[-1]}")

    schemas = {direction: load_schema(direction) for direction in ("client", "server")}
    draft7 = {d: {k: v for k, v in s.items() if k != "$schema"} for d, s in schemas.items()}
    validators = {
        "jsonschema": {d: jsonschema.Draft202012Validator(s).is_valid for d, s in schemas.items()},
        "fastjsonschema": {},
        "jsonschema-rs": {d: jsonschema_rs.validator_for(s).is_valid for d, s in schemas.items()},
    }
    for d, s in draft7.items():
        compiled = fastjsonschema.compile(s)

        def check(frame, compiled=compiled):
            try:
                compiled(frame)
                return True
            except fastjsonschema.JsonSchemaException:
                return False
        validators["fastjsonschema"][d] = check

    rows = []
    for name, table in validators.items():
        for parser_name, parse in (("json", json.loads), ("orjson", orjson.loads)):
            rows.append(run(f"{name} + {parser_name}", lines, parse, table, args.rounds))
    rows.append(run_lines("msgspec Structs, in process", lines, clawline_msgspec.is_valid, args.rounds))
    processes = [
        run_process("msgspec Structs, whole process", [sys.executable, str(HERE / "clawline_msgspec.py"), args.capture], len(lines), args.rounds),
        run_process(
            "orjson + jsonschema-rs, whole process", [sys.executable, str(HERE / "clawline_jsonschema_rs.py"), args.capture], len(lines),
            args.rounds),
    ]
    for name, rate, said in processes:
        rows.append((name, rate, said))
    for name, rate, verdict in rows:
        ratios = ", ".join(f"{wire_rate / rate:4.2f}x on {label}" for label, wire_rate in wire_rates)
        print(f"{name:48} {rate:10.0f} frames/s  {size / (len(lines) / rate) / 1e6:6.1f} MB/s   {verdict}   wire is {ratios}")
    if args.pairs > 0:
        print(f"msgspec and wire validate taking turns, {args.pairs} rounds (ratios are msgspec's time over ours):")
        taking_turns(args, lines)


if __name__ == "__main__":
    main()

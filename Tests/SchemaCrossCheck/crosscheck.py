#!/usr/bin/env python3
"""Cross-checks the exported schemas with independent validators.

1. Every golden frame (valid and invalid) is validated with Python's `jsonschema` against
   schemas/clawline.<direction>.schema.json; the verdict must agree with our own validator's
   (the golden `.expected` files), except for the frames listed in EXCEPTIONS, each of which
   breaks only a rule JSON Schema cannot express (see JSONSchemaGenerator.knownExceptions).
2. schemas/clawline.asyncapi.json must parse as an AsyncAPI 3.0 document with the independent
   `asyncapi3` models, and a broken copy of it must not.

Run from the repository root: python3 Tests/SchemaCrossCheck/crosscheck.py
"""
import copy
import importlib.metadata
import json
import pathlib
import sys
import warnings

import jsonschema

ROOT = pathlib.Path(__file__).resolve().parents[2]
FRAMES = ROOT / "Tests/ClawlineProtocolTests/Frames"
SCHEMAS = ROOT / "schemas"

# frame file → the rule JSON Schema cannot express that makes our validator reject it.
EXCEPTIONS = {
    "client/invalid/pair_request.protocol-version-float.json": "integer: JSON Schema treats 1.0 as the integer 1",
    "client/invalid/pair_request.claimed-name-65-bytes.json": "maxBytes: 33 characters are 65 UTF-8 bytes",
    "client/invalid/message.inline-bytes-over-budget.json": "byte budgets: a sum across fields",
    "client/invalid/message.attachment-too-large.json": "maxDecodedBytes: 349,528 base64 characters may decode to 262,146 bytes",
}


def our_verdict(path: pathlib.Path) -> bool:
    """True when our validator accepts the frame (possibly with warnings)."""
    if path.parent.name == "valid":
        return True
    expected = path.with_suffix(".expected").read_text()
    return expected.startswith("result: decoded")


def their_verdict(validator: jsonschema.protocols.Validator, path: pathlib.Path) -> bool:
    try:
        frame = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return False
    return validator.is_valid(frame)


def check_frames() -> int:
    failures = 0
    seen_exceptions = set()
    checked = 0
    for direction in ("client", "server"):
        schema = json.loads((SCHEMAS / f"clawline.{direction}.schema.json").read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema)
        for path in sorted((FRAMES / direction).glob("*/*.json")):
            name = str(path.relative_to(FRAMES))
            ours, theirs = our_verdict(path), their_verdict(validator, path)
            checked += 1
            if name in EXCEPTIONS:
                seen_exceptions.add(name)
                if ours == theirs:
                    print(f"STALE EXCEPTION {name}: both now say {'valid' if ours else 'invalid'}; remove it")
                    failures += 1
                else:
                    print(f"known exception {name}: ours {'valid' if ours else 'invalid'}, JSON Schema {'valid' if theirs else 'invalid'} ({EXCEPTIONS[name]})")
            elif ours != theirs:
                errors = [e.message for e in validator.iter_errors(json.loads(path.read_text()))][:3] if theirs is False else []
                print(f"DISAGREE {name}: ours {'valid' if ours else 'invalid'}, JSON Schema {'valid' if theirs else 'invalid'} {errors}")
                failures += 1
    for name in sorted(set(EXCEPTIONS) - seen_exceptions):
        print(f"MISSING exception frame {name}")
        failures += 1
    print(f"{checked} golden frames checked with jsonschema {importlib.metadata.version('jsonschema')}, {len(EXCEPTIONS)} known exceptions, {failures} failures")
    return failures


def check_asyncapi() -> int:
    warnings.simplefilter("ignore")
    from asyncapi3.models.asyncapi import AsyncAPI3

    document = json.loads((SCHEMAS / "clawline.asyncapi.json").read_text())
    model = AsyncAPI3.model_validate(document)
    broken = copy.deepcopy(document)
    broken["operations"]["receiveClientFrames"]["action"] = "shout"
    try:
        AsyncAPI3.model_validate(broken)
        print("the AsyncAPI checker accepted a broken document; it checks nothing")
        return 1
    except Exception:
        pass
    print(f"AsyncAPI {model.asyncapi}: valid, {len(model.components.messages)} messages")
    return 0


if __name__ == "__main__":
    sys.exit(1 if check_frames() + check_asyncapi() else 0)

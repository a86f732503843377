#!/usr/bin/python3
"""bench/validate_peer.py SCHEMA FILE.jsonl — python3-jsonschema (Draft 2020-12, formats asserted): one line per invalid record, like rtk validate."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
invalid = 0
with open(sys.argv[2]) as f:
    for lineno, line in enumerate(f, 1):
        if not line.strip():
            continue
        error = jsonschema.exceptions.best_match(validator.iter_errors(json.loads(line)))
        if error is not None:
            invalid += 1
            print(f"{sys.argv[2]}:{lineno}: /{'/'.join(map(str, error.absolute_path))}: {error.message}")
sys.exit(1 if invalid else 0)

#!/usr/bin/python3
# tests/reference/compare_calibrate.py — checks `rtk calibrate --json` against stats_reference.py's expected values.
"""Usage: compare_calibrate.py EXPECTED.json RTK.json

Every number the reference computed must match rtk's to 1e-9 relative (1e-12 absolute near zero);
a null must be null on both sides. Prints one line per mismatch and exits 1 if there is any.
"""
import json
import math
import sys

REL, ABS = 1e-9, 1e-12


def compare(path, want, got, bad):
    if isinstance(want, dict):
        if not isinstance(got, dict):
            bad.append(f"{path}: expected an object, rtk has {got!r}")
            return
        for key, value in want.items():
            if key not in got:
                bad.append(f"{path}/{key}: missing in rtk's output")
            else:
                compare(f"{path}/{key}", value, got[key], bad)
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            bad.append(f"{path}: expected {len(want)} items, rtk has {got!r}")
            return
        for i, (w, g) in enumerate(zip(want, got)):
            compare(f"{path}/{i}", w, g, bad)
    elif want is None:
        if got is not None:
            bad.append(f"{path}: expected null, rtk has {got!r}")
    elif isinstance(got, bool) or not isinstance(got, (int, float)):
        bad.append(f"{path}: expected {want!r}, rtk has {got!r}")
    elif not math.isclose(float(want), float(got), rel_tol=REL, abs_tol=ABS):
        bad.append(f"{path}: expected {want!r}, rtk has {got!r}")


def main():
    expected = json.load(open(sys.argv[1]))
    rtk = json.load(open(sys.argv[2]))
    section = rtk["overall"]
    bad = []
    compare("all", expected["all"], section["all"], bad)
    compare("high", expected["high_rows"], section["high"], bad)
    compare("calibration", expected["calibration"], section["calibration"], bad)
    for line in bad:
        print(line)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""bench/calibrate_peer.py — the "json + scikit-learn" peer of `rtk calibrate` for bench/calibrate.sh.

Usage: /usr/bin/python3 bench/calibrate_peer.py FILE.jsonl
Reads the file line by line with json.loads, collects confidence and label, and prints the row
count and sklearn.metrics.roc_auc_score with 17 significant digits.
"""
import json
import sys

import numpy as np
from sklearn.metrics import roc_auc_score


def main() -> None:
    confidence = []
    correct = []
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            confidence.append(float(row["confidence"]))
            correct.append(bool(row["correct"]))
    auc = roc_auc_score(np.array(correct, dtype=bool), np.array(confidence, dtype=np.float64))
    print(f"rows {len(confidence)}")
    print(f"auc {auc:.17g}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""tests/cli/merge_gen.py — random calibrate corpora and native boards, split at random into pieces, for tests/cli/merge.sh.

merge_gen.py KIND SEED DIR writes DIR/whole.jsonl (every row), DIR/pNN.jsonl (k pieces, k random,
rows dealt to them at random: some pieces get one row, some none), and DIR/args (the applet's options
for this seed, one line). Boards are dealt by task, a task's signals with it, since one run's input
must hold each task once. Standard library only.
"""
import json
import random
import sys

DAY = 86400
KINDS = ["reopened", "reverted", "followup_bug", "ci_failed", "incident", "rollback", "verified", "ci_passed"]


def confidence(rng, style, grid):
    if style == "grid" or (style == "mixed" and rng.random() < 0.5):
        return rng.choice(grid)
    return rng.random() if rng.random() < 0.9 else rng.choice([0.0, 1.0, 0.1 + 0.2])


def calibrate_rows(rng):
    style = rng.choice(["grid", "continuous", "mixed"])
    grid = sorted({round(rng.random(), rng.choice([1, 2])) for _ in range(rng.randint(1, 12))})
    groups = rng.choice([None, "agent"])
    skip = rng.random() < 0.3
    opts = []
    if groups:
        opts.append("--group-by agent")
    if skip:
        opts.append("--skip-invalid")
    opts.append("--high %s" % rng.choice(["0.5", "0.7", "0.8"]))
    opts.append("--bins %d" % rng.choice([1, 5, 10, 20]))
    opts.append("--min-per-class %d" % rng.choice([1, 5, 30]))
    rows = []
    skill = rng.random()
    for _ in range(rng.choice([0, 1, 2, rng.randint(3, 60), rng.randint(60, 400)])):
        c = confidence(rng, style, grid)
        right = rng.random() < (1 - skill) * 0.5 + skill * c
        row = {"confidence": c, "correct": right if rng.random() < 0.8 else int(right)}
        if groups and rng.random() < 0.9:
            row["agent"] = rng.choice(["a", "b", "c", "d\u00e9", 7, True])
        line = json.dumps(row)
        if skip and rng.random() < 0.05:
            line = rng.choice(['{"confidence": 2, "correct": true}', '{bad', '{"correct": true}'])
        rows.append((None, line))
    return rows, opts


def board_rows(rng):
    start = 1700000000
    within_days = rng.choice([3, 7, 30])
    span = rng.choice([10, 60, 200]) * DAY
    opts = ["--within %dd" % within_days, "--min-tasks %d" % rng.choice([1, 5, 30])]
    if rng.random() < 0.4:
        opts.append("--as-of 2023-12-01T00:00:00Z")
    if rng.random() < 0.5:
        opts.append("--kill-below 0.5")
    rows = []
    sources = ["jira:OPS", "github:x/app", "github:x/web", "gitlab:y"][: rng.randint(1, 4)]
    for i in range(rng.choice([1, 2, rng.randint(3, 40), rng.randint(40, 200)])):
        tid = "T-%d" % i
        done = start + rng.randrange(span)
        task = {"type": "task", "id": tid, "completed_at": iso(done),
                "completion": rng.choice(["completed"] * 6 + ["not_planned", "duplicate"]),
                "source": rng.choice(sources), "refs": {"commits": [], "prs": []}}
        lines = [json.dumps(task)]
        for _ in range(rng.choice([0, 0, 1, 2, 4])):
            kind = rng.choice(KINDS)
            at = done + rng.randint(-3 * DAY, (within_days + 5) * DAY)
            sig = {"type": "signal", "task": tid, "at": iso(at), "kind": kind,
                   "polarity": "pos" if kind in ("verified", "ci_passed") else "neg"}
            lines.append(json.dumps(sig))
        rng.shuffle(lines)  # a signal may come before its task
        rows.append((tid, "\n".join(lines)))
    return rows, opts


def iso(t):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def main():
    kind, seed, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rng = random.Random(seed)
    rows, opts = (calibrate_rows if kind == "calibrate" else board_rows)(rng)
    k = rng.randint(1, 7)
    pieces = [[] for _ in range(k)]
    if rows and k > 1 and rng.random() < 0.5:
        pieces[rng.randrange(k)].append(rows.pop(rng.randrange(len(rows))))  # a piece of one row
        rng.shuffle(pieces)
    for row in rows:
        pieces[rng.randrange(k) if rng.random() < 0.8 else 0].append(row)
    with open("%s/whole.jsonl" % out, "w") as f:
        f.writelines(line + "\n" for piece in pieces for _, line in piece)
    for i, piece in enumerate(pieces):
        with open("%s/p%02d.jsonl" % (out, i), "w") as f:
            f.writelines(line + "\n" for _, line in piece)
    with open("%s/args" % out, "w") as f:
        f.write(" ".join(opts) + "\n")


if __name__ == "__main__":
    main()

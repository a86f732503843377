#!/usr/bin/python3
# bench/oracle.py — the arithmetic of bench/oracle.sh: rtk's blame links and a B-SZZ baseline scored against Fixes: trailers.
"""Scores culprit links against the culprits developers named in `Fixes: <sha>` lines.

bench/oracle.sh runs `rtk git-history --json --blame-only` and hands its JSON here. This script reads the
trailers with git itself (never with rtk's trailer parser, which it measures), runs the B-SZZ baseline,
and prints a markdown table row set and one JSON line. Standard library only.

Definitions (the same for rtk and the baseline):
  trailer fix   a non-merge commit of rtk's window (committer date in [since, until], reachable from
                rev) with at least one line "Fixes: <sha>" in its body, in any paragraph, at column 0,
                whose sha resolves (git cat-file) to a commit that is a proper ancestor of the fix.
                Shas that do not resolve or are not ancestors are dropped (counted).
  truth T(f)    the commits those lines name.
  links L(f)    rtk: the culprit and other_culprits of the failure whose remedy is f (none when rtk left
                f unlinked, set it aside, or did not take it for a fix); baseline: B-SZZ's culprits;
                "rtk_primary" in the JSON: rtk's culprit alone (other_culprits left out).
  precision     sum |L ∩ T| / sum |L|        recall   sum |L ∩ T| / sum |T|
  ghost fix     a trailer fix that deletes or modifies no line (pure additions, binary or mode-only
                changes): line-based blame has nothing to blame. Ghost fixes stay in the recall
                denominator (their culprits count as missed), as an evaluation against developer-named
                pairs must: "recall_non_ghost" leaves them out, for comparison with studies that do.
Intervals are Wilson score intervals (95%) over links, which treats the links as independent: links of
one fix are not quite, so the intervals are somewhat narrow.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

FIXES_LINE = re.compile(r"^fixes:[ \t]*([0-9a-f]{7,40})(?![0-9a-z])", re.IGNORECASE | re.MULTILINE)
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")
PORCELAIN_HEAD = re.compile(r"^([0-9a-f]{40}) \d+ \d+")
Z95 = 1.959963984540054


def git(repo, *args, stdin=None):
    """git's standard output as text (bytes that are not UTF-8 kept as escapes); raises on failure."""
    r = subprocess.run(["git", "-C", repo, "-c", "core.quotePath=false", *args], input=stdin,
                       capture_output=True, check=True)
    return r.stdout.decode("utf-8", "surrogateescape")


def wilson(k, n, z=Z95):
    """The Wilson score interval of k successes in n trials, or None for n = 0."""
    if n == 0:
        return None
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return [round(max(0.0, c - h), 4), round(min(1.0, c + h), 4)]


def iso_epoch(s):
    return int(datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp())


def trailer_fixes(repo, rev, since, until):
    """[(fix sha, parent sha or None, [trailer sha as written])] of the window, newest first."""
    out = git(repo, "log", "--no-merges", "--format=%x1e%H%x1f%ct%x1f%P%x1f%B", rev)
    fixes = []
    for rec in out.split("\x1e")[1:]:
        sha, ct, parents, body = rec.split("\x1f", 3)
        if not since <= int(ct) <= until:
            continue
        # The subject is no trailer; every later line may be (kernel-style trailers often stand in a
        # paragraph above the sign-offs, which git's own trailer parser, reading the last paragraph, misses).
        rest = body.split("\n", 1)[1] if "\n" in body else ""
        named = [m.group(1).lower() for m in FIXES_LINE.finditer(rest)]
        if named:
            fixes.append((sha, parents.split()[0] if parents else None, named))
    return fixes


def resolve(repo, shas):
    """{abbreviated sha: full commit sha} for those naming exactly one commit."""
    shas = sorted(set(shas))
    if not shas:
        return {}
    out = git(repo, "cat-file", "--batch-check=%(objectname) %(objecttype)",
              stdin="".join(s + "^{commit}\n" for s in shas).encode())
    got = {}
    for s, line in zip(shas, out.splitlines()):
        f = line.split()
        if len(f) == 2 and f[1] == "commit":
            got[s] = f[0]
    return got


def is_ancestor(repo, a, b):
    return a != b and subprocess.run(["git", "-C", repo, "merge-base", "--is-ancestor", a, b]).returncode == 0


def unquote_path(p):
    """A path of a ---/+++ line: git C-quotes some ("a/x\\ty"), and appends a tab after one holding a space."""
    p = p.rstrip("\t")
    if not (p.startswith('"') and p.endswith('"')):
        return p
    raw, i, s = bytearray(), 0, p[1:-1]
    esc = {"n": 10, "t": 9, '"': 34, "\\": 92, "a": 7, "b": 8, "f": 12, "r": 13, "v": 11}
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            if s[i + 1] in esc:
                raw.append(esc[s[i + 1]])
                i += 2
                continue
            if s[i + 1:i + 4].isdigit():
                raw.append(int(s[i + 1:i + 4], 8))
                i += 4
                continue
        raw += s[i].encode("utf-8", "surrogateescape")
        i += 1
    return raw.decode("utf-8", "surrogateescape")


def bszz(repo, fix, parent):
    """B-SZZ: git blame -w at the parent of every line the fix deletes or modifies; the majority
    (ties: all). Returns (culprits, ghost, blamed lines)."""
    if parent is None:
        return set(), True, 0
    diff = git(repo, "diff", "-M", "-U0", "--no-color", "--no-ext-diff", parent, fix)
    ranges, path = {}, None
    for line in diff.splitlines():
        if line.startswith("--- "):
            path = None if line[4:] == "/dev/null" else unquote_path(line[4:])[2:]  # drop "a/"
        elif line.startswith("@@") and path is not None:
            m = HUNK.match(line)
            start, count = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
            if count:
                ranges.setdefault(path, []).append((start, count))
    if not ranges:
        return set(), True, 0
    votes = Counter()
    for path, rs in ranges.items():
        args = ["blame", "-w", "--porcelain"]
        for start, count in rs:
            args += ["-L", "%d,+%d" % (start, count)]
        for line in git(repo, *args, parent, "--", path).splitlines():
            m = PORCELAIN_HEAD.match(line)
            if m:
                votes[m.group(1)] += 1
    top = max(votes.values())
    return {c for c, v in votes.items() if v == top}, False, sum(votes.values())


def rtk_links(result):
    """{remedy sha: (outcome, {culprit shas}, primary culprit or None)} from rtk's JSON: linked failures and
    unlinked remedies."""
    got = {}
    for f in result["failures"]:
        culprits = {f["culprit"]["sha"]} | {c["sha"] for c in f["other_culprits"]}
        got[f["remedy"]["sha"]] = ("linked:%s:%s" % (f["kind"], f["evidence"]["link"]), culprits, f["culprit"]["sha"])
    for u in result["unlinked"]:
        got.setdefault(u["remedy"]["sha"], ("unlinked:%s:%s" % (u["kind"], u["reason_code"]), set(), None))
    return got


def score(rows, key):
    """Precision, recall (and without ghosts) of links rows[i][key] against rows[i]["truth"]."""
    linked = sum(len(r[key]) for r in rows)
    right = sum(len(set(r[key]) & set(r["truth"])) for r in rows)
    truth = sum(len(r["truth"]) for r in rows)
    ng = [r for r in rows if not r["ghost"]]
    ng_right = sum(len(set(r[key]) & set(r["truth"])) for r in ng)
    ng_truth = sum(len(r["truth"]) for r in ng)
    return {
        "linked": linked, "correct": right, "truth": truth,
        "precision": round(right / linked, 4) if linked else None, "precision_ci": wilson(right, linked),
        "recall": round(right / truth, 4) if truth else None, "recall_ci": wilson(right, truth),
        "fixes_linked": sum(1 for r in rows if r[key]),
        "recall_non_ghost": round(ng_right / ng_truth, 4) if ng_truth else None,
        "recall_non_ghost_ci": wilson(ng_right, ng_truth),
    }


def time_v(path):
    """Wall seconds, CPU seconds and peak RSS (KiB) from a file /usr/bin/time -v wrote."""
    t = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        k, _, v = line.strip().rpartition(": ")
        t[k] = v
    wall = 0.0
    for part in t.get("Elapsed (wall clock) time (h:mm:ss or m:ss)", "0").split(":"):
        wall = wall * 60 + float(part)
    cpu = float(t.get("User time (seconds)", 0)) + float(t.get("System time (seconds)", 0))
    return wall, cpu, int(t.get("Maximum resident set size (kbytes)", 0))


def fmt_share(s, k):
    """A share with its counts and interval: 0.714 (5/7; 0.36–0.92)."""
    if s[k] is None:
        return "-"
    lo, hi = s[k + "_ci"]
    num, den = (s["correct"], s["linked"]) if k == "precision" else (s["correct"], s["truth"])
    return "%.3f (%d/%d; %.2f–%.2f)" % (s[k], num, den, lo, hi)


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", required=True)
    ap.add_argument("--name", required=True, help="the repository's name in the table")
    ap.add_argument("--rtk-json", required=True)
    ap.add_argument("--time-file", action="append", default=[], help="a /usr/bin/time -v file per rtk run")
    ap.add_argument("--window", required=True)
    ap.add_argument("--fix-window", default="")
    ap.add_argument("--command", default="", help="the rtk command, for the JSON line")
    ap.add_argument("--details", help="write one JSON line per trailer fix here")
    ap.add_argument("--jobs", type=int, default=2, help="git blame processes at a time")
    a = ap.parse_args()

    result = json.load(open(a.rtk_json, encoding="utf-8"))
    p = result["parameters"]
    if not p.get("blame_only"):
        sys.exit("oracle.py: the rtk JSON was not made with --blame-only")
    since, until = iso_epoch(p["since"]), iso_epoch(p["until"])
    links = rtk_links(result)

    cands = trailer_fixes(a.repo, p["rev_sha"], since, until)
    full = resolve(a.repo, [s for _, _, named in cands for s in named])
    pairs = [(full[s], fix) for fix, _, named in cands for s in named if s in full]
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        anc = dict(zip(pairs, ex.map(lambda x: is_ancestor(a.repo, *x), pairs)))
    rows, dropped = [], 0
    for fix, parent, named in cands:
        truth = []
        for s in named:
            c = full.get(s)
            if c and anc.get((c, fix)) and c not in truth:
                truth.append(c)
            elif not (c and c in truth):
                dropped += 1
        if truth:
            outcome, culprits, primary = links.get(fix, ("not-a-remedy", set(), None))
            rows.append({"fix": fix, "parent": parent, "truth": truth, "rtk": sorted(culprits),
                         "rtk_primary": [primary] if primary else [], "rtk_outcome": outcome})

    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        base = list(ex.map(lambda r: bszz(a.repo, r["fix"], r["parent"]), rows))
    base_seconds = time.monotonic() - t0
    for r, (culprits, ghost, lines) in zip(rows, base):
        r["bszz"], r["ghost"], r["bszz_lines"] = sorted(culprits), ghost, lines

    rs, bs, ps = score(rows, "rtk"), score(rows, "bszz"), score(rows, "rtk_primary")
    times = [time_v(f) for f in a.time_file]
    wall = median([t[0] for t in times]) if times else None
    cpu = median([t[1] for t in times]) if times else None
    rss = max(t[2] for t in times) if times else None
    outcomes = Counter(r["rtk_outcome"] for r in rows)
    line = {
        "repository": a.name, "rev": p["rev_sha"], "since": p["since"], "until": p["until"],
        "window": a.window, "fix_window": a.fix_window or None, "command": a.command,
        "trailer_fixes": len(rows), "trailer_culprits": sum(len(r["truth"]) for r in rows),
        "dropped_trailer_shas": dropped, "ghost_fixes": sum(r["ghost"] for r in rows),
        "rtk": dict(rs, outcomes=dict(sorted(outcomes.items()))), "bszz": bs, "rtk_primary": ps,
        "rtk_runs": len(times), "rtk_wall_seconds": wall, "rtk_peak_rss_kib": rss,
        "rtk_cpu_seconds": round(cpu, 2) if cpu is not None else None,
        "bszz_seconds": round(base_seconds, 2),
    }
    if a.details:
        with open(a.details, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, sort_keys=True) + "\n")

    print("| repository | window | fixes with trailers | rtk precision | rtk recall | B-SZZ precision | B-SZZ recall "
          "| ghost fixes | rtk wall time | rtk peak RSS |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print("| %s | %s%s | %d | %s | %s | %s | %s | %d | %s | %s |" % (
        a.name, a.window, " (fix window %s)" % a.fix_window if a.fix_window else "", len(rows),
        fmt_share(rs, "precision"), fmt_share(rs, "recall"),
        fmt_share(bs, "precision"), fmt_share(bs, "recall"), line["ghost_fixes"],
        "%.2f s" % wall if wall is not None else "-", "%.0f MiB" % (rss / 1024) if rss is not None else "-"))
    print()
    print(json.dumps(line, sort_keys=True))


if __name__ == "__main__":
    main()

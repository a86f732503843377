# bench/accuracy_sample.py REPORT.json N SEED [EXCLUDE]: a seeded random sample of N classified failures of an rtk
# git-history report (the JSON), one tab-separated line each: index, kind, remedy, culprit, evidence, bucket, rules.
# EXCLUDE, a file of remedy sha prefixes (one per line: those labelled in earlier samples), draws the first N of
# the same seeded order whose remedy is not one of them. Used for bench/ACCURACY.md.
import json, random, sys
r = json.load(open(sys.argv[1]))
fs = r["failures"]
idx = list(range(len(fs)))
random.Random(int(sys.argv[3])).shuffle(idx)
if len(sys.argv) > 4:
    seen = [l.strip() for l in open(sys.argv[4]) if l.strip()]
    idx = [i for i in idx if not any(fs[i]["remedy"]["sha"].startswith(p) for p in seen)]
for i in sorted(idx[: int(sys.argv[2])]):
    f = fs[i]
    e = f["evidence"]
    print("\t".join(str(x) for x in [i, f["kind"], f["remedy"]["sha"][:12], f["remedy"]["subject"][:70], f["culprit"]["sha"][:12],
        f["culprit"]["author_class"], f["culprit"]["subject"][:70], e["link"], e["strength"], e.get("culprit_share"),
        f["bucket"], "T" if f["T"] else "-", ("S:" + f["surface"]) if f["S"] else "-", ",".join(f["rules"])]))

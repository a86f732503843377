# bench/accuracy_sample.py REPORT.json N SEED: a seeded random sample of N classified failures of an rtk git-history
# report (the JSON), one tab-separated line each: index, kind, remedy, culprit, evidence, bucket, rules. Used for bench/ACCURACY.md.
import json, random, sys
r = json.load(open(sys.argv[1]))
fs = r["failures"]
idx = list(range(len(fs)))
random.Random(int(sys.argv[3])).shuffle(idx)
for i in sorted(idx[: int(sys.argv[2])]):
    f = fs[i]
    e = f["evidence"]
    print("\t".join(str(x) for x in [i, f["kind"], f["remedy"]["sha"][:12], f["remedy"]["subject"][:70], f["culprit"]["sha"][:12],
        f["culprit"]["author_class"], f["culprit"]["subject"][:70], e["link"], e["strength"], e.get("culprit_share"),
        f["bucket"], "T" if f["T"] else "-", ("S:" + f["surface"]) if f["S"] else "-", ",".join(f["rules"])]))

# bench/probe_check.py PROBE20.tsv REPORT.json: for each probe commit (or the merge that landed it), how the report lists it.
import json, sys
r = json.load(open(sys.argv[2]))
fail = {f["remedy"]["sha"]: f for f in r["failures"]}
unl = {u["remedy"]["sha"]: u for u in r["unlinked"]}
for line in open(sys.argv[1]):
    parts = line.rstrip("\n").split("\t")
    sha = parts[0]
    land = parts[3][len("landed-by "):] if len(parts) > 3 and parts[3] else None
    cands = [sha] + [s for s in list(fail) + list(unl) if land and s.startswith(land)]
    how = "not listed"
    for c in cands:
        if c in fail:
            how = "failure (%s%s)" % (fail[c]["kind"], "" if c == sha else ", by its landing merge"); break
        if c in unl:
            how = "unlinked remedy: %s%s" % (unl[c]["reason_code"], "" if c == sha else ", by its landing merge"); break
    print(f"{sha[:12]}\t{parts[2][:70]}\t{how}")

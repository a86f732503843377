# bench/probe_select.py MIRROR PROBE.tsv REPORT.json: the recall probe's 20 commits, in the probe's order, skipping
# those whose landing (the first-parent commit of REV that brought them in) is outside the report's window.
import json, subprocess, sys
from datetime import datetime
mirror, probe, report = sys.argv[1:4]
r = json.load(open(report))
rev = r["parameters"]["rev_sha"]
since = datetime.fromisoformat(r["parameters"]["since"].replace("Z", "+00:00")).timestamp()
until = datetime.fromisoformat(r["parameters"]["until"].replace("Z", "+00:00")).timestamp()
git = lambda *a: subprocess.run(["git", "-C", mirror, *a], capture_output=True, encoding="utf-8", errors="replace", check=True).stdout
landing = {}
for line in git("log", "--first-parent", "--format=%H %ct %P", rev).splitlines():
    sha, ct, *parents = line.split()
    ct = int(ct)
    landing[sha] = (sha, ct)
    if ct < since - 400 * 86400:
        break
    if len(parents) > 1:
        for c in git("rev-list", f"{parents[0]}..{sha}").split():
            landing.setdefault(c, (sha, ct))
out = []
for line in open(probe):
    if line.startswith("#"):
        continue
    sha = line.split("\t")[0]
    land = landing.get(sha)
    if land and since <= land[1] <= until:
        out.append(line.rstrip("\n") + "\t" + ("" if land[0] == sha else "landed-by " + land[0][:12]))
    else:
        print(f"# skipped {sha[:12]}: landing outside the window ({land[0][:12] if land else 'none found'})", file=sys.stderr)
    if len(out) == 20:
        break
print("\n".join(out))

# bench/recall_probe.py GITDIR REV DAYS SEED N: the recall probe of bench/ACCURACY.md's held-out plan (issue 25).
# Reads git only, never an rtk report, so it can be drawn before the rules are final. The pool: the non-merge
# commits reachable from REV whose committer date lies within DAYS days before REV's, and which read as a fix or
# a revert under any of the conventions the held-out repositories use:
#   a subject word: fix, fixes, fixed, fixing, bugfix, revert(s/ed), back(ed) out, regression, crash, broken,
#     breakage, panic, leak, segfault, deadlock, race, wrong, incorrect;
#   an upper-case tag opening the subject: BUG, REV, REGR (BUG: ..., REV: ...);
#   a message line "Fixes: <8+ hex>" or "This reverts commit".
# Prints the pool's size, then the first N of the pool in the order of random.Random(SEED).shuffle over the pool
# listed newest first: sha, committer date, subject (tab-separated).
import re, subprocess, sys, random

gitdir, rev, days, seed, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
def git(*a):
    return subprocess.run(["git", "--git-dir", gitdir, *a], check=True, capture_output=True, encoding="utf-8", errors="replace").stdout
head_ct = int(git("log", "-1", "--format=%ct", rev).strip())
since = head_ct - days * 86400
WORD = re.compile(r"\b(fix(e[sd]|ing)?|bug ?fix(es)?|revert(s|ed)?|back(ed)? out|regression|crash(es|ed|ing)?|broken|"
                  r"breakage|panic(s|ked|king)?|leak(s|ed|ing)?|segfault|deadlock|race|wrong|incorrect)\b", re.I)
TAG = re.compile(r"^(BUG|REV|REGR)\b")
BODY = re.compile(r"^(Fixes: [0-9a-f]{8,}|This reverts commit)", re.M)
pool = []
for rec in git("log", "--no-merges", "--format=%H%x1f%ct%x1f%cI%x1f%s%x1f%B%x1e", rev).split("\x1e"):
    f = rec.strip("\n").split("\x1f")
    if len(f) < 5:
        continue
    sha, ct, date, subj, body = f
    if int(ct) <= since:
        continue
    if WORD.search(subj) or TAG.search(subj) or BODY.search(body):
        pool.append((sha, date, subj))
print(f"# pool {len(pool)} of the non-merge commits since {since} (REV {git('rev-parse', rev).strip()}), seed {seed}")
order = list(range(len(pool)))
random.Random(seed).shuffle(order)
for i in order[:n]:
    print("\t".join(pool[i]))

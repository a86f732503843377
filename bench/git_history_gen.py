#!/usr/bin/env python3
"""bench/git_history_gen.py — synthetic git histories for rtk git-history: one large one, or many of a year each.

Usage: git_history_gen.py COMMITS FILES SEED > stream   (then: git fast-import < stream)
       git_history_gen.py --repos N --out DIR [--seed S] [--min-commits A] [--max-commits B] [--first I]

The first form: the first commit adds FILES files of 20 lines under src/modNN/, auth/, db/, web/ and docs/.
Each later commit, ten minutes apart from 2024-01-01, is one of: a feature change to 1-3 files (most), a fix
(`fix(modNN): ...`, ~5%) changing a line a commit of the last day changed, a third of them adding a
test beside it, a revert of the previous commit (~1%, half titled `Revert "..."`, half silent,
found by patch id only), a mass edit of 60 files (~0.1%), or an agent-authored change (trailer).

The second form (issue 29, bench/org-scale.sh) makes N repositories DIR/repo-0000 ... (git init, then its
own git fast-import, which the generator drives so that it can ask for commit ids: `get-mark`), each a
service with src/, tests/, docs/, auth/ and migrations/ and one year of history ending 2026-06-30 (an
initial import 30 days before the year, then COMMITS commits at random gaps over 360 days, COMMITS drawn
log-uniformly from A..B, default 120..600: the largest repositories are five times the smallest, with
files in proportion). Subjects follow Conventional Commits: features (`feat(...)`, 30% agent-authored),
tests, docs, chores, new migrations; ~12% are fixes (`fix(...)`) of a line a feature of the last 6 days
changed, a third adding a test under tests/ and a third naming that feature in a `Fixes: <sha> ("...")`
trailer; ~2% revert the commit before them (`Revert "..."`, "This reverts commit <sha>."). Repository I
depends only on (S, I): --first I0 makes repo-I0 ... repo-(I0+N-1), the same ones a larger run makes.
Prints one line per repository: path, commits, files.
"""
import math
import os
import random
import subprocess
import sys

def large(commits, nfiles, seed):
    rng = random.Random(seed)
    out = sys.stdout.buffer
    roots = ["src/mod%02d" % i for i in range(40)] + ["auth", "db/migrations", "web/components", "docs"]
    paths = ["%s/f%05d.%s" % (roots[i % len(roots)], i, "md" if roots[i % len(roots)] == "docs" else "c")
             for i in range(nfiles)]
    content = {p: ["%s line %d" % (p, k) for k in range(20)] for p in paths}
    t0 = 1704067200  # 2024-01-01T00:00:00Z
    mark = 0
    recent = []  # (commit index, path, line) of recent feature changes, for fixes to fix
    prev = None  # the previous commit's (subject, {path: old lines or None}) for reverts

    def emit(idx, subject, changes, author="Dev One <dev1@example.com>", body=""):
        nonlocal mark
        mark += 1
        when = t0 + idx * 600
        msg = (subject + ("\n\n" + body if body else "") + "\n").encode()
        out.write(b"commit refs/heads/main\nmark :%d\n" % mark)
        out.write(("author %s %d +0000\ncommitter Dev One <dev1@example.com> %d +0000\n" % (author, when, when)).encode())
        out.write(b"data %d\n%s" % (len(msg), msg))
        for p, lines in changes.items():
            if lines is None:
                out.write(("D %s\n" % p).encode())
            else:
                data = ("\n".join(lines) + "\n").encode()
                out.write(("M 100644 inline %s\ndata %d\n" % (p, len(data))).encode())
                out.write(data)
        out.write(b"\n")

    emit(0, "initial import", {p: content[p] for p in paths})
    for i in range(1, commits):
        r = rng.random()
        if r < 0.01 and prev is not None:
            subject, old = prev
            changes = {}
            for p, lines in old.items():
                if lines is None:
                    content.pop(p, None)
                    changes[p] = None
                else:
                    content[p] = list(lines)
                    changes[p] = content[p]
            title = ('Revert "%s"' % subject) if rng.random() < 0.5 else "tidy: undo %d" % i
            emit(i, title, changes)
            prev = None
            continue
        if r < 0.06 and recent:
            ci, p, k = recent[rng.randrange(len(recent))]
            if p in content and k < len(content[p]):
                old = {p: list(content[p])}
                content[p][k] = "%s fixed %d" % (p, i)
                changes = {p: content[p]}
                if rng.random() < 0.33:
                    test = "%s/tests/t%05d_test.c" % (p.rsplit("/", 1)[0], i)
                    content[test] = ["check %d" % i]
                    changes[test] = content[test]
                    old[test] = None
                mod = p.split("/")[1] if p.startswith("src/") else p.split("/")[0]
                emit(i, "fix(%s): wrong value in line %d" % (mod, k), changes)
                prev = ("fix(%s): wrong value in line %d" % (mod, k), old)
                continue
        if r < 0.061:
            touched = rng.sample(paths, 60)
            old = {p: list(content[p]) for p in touched if p in content}
            for p in old:
                content[p] = [l + " " for l in content[p]]
            emit(i, "chore: reformat", {p: content[p] for p in old})
            prev = ("chore: reformat", old)
            continue
        touched = rng.sample(paths, rng.randint(1, 3))
        old, changes = {}, {}
        for p in touched:
            if p not in content:
                continue
            old[p] = list(content[p])
            k = rng.randrange(len(content[p]))
            if rng.random() < 0.7:
                content[p][k] = "%s change %d" % (p, i)
            else:
                content[p].insert(k, "%s added %d" % (p, i))
            changes[p] = content[p]
            recent.append((i, p, k))
        recent = recent[-150:]
        agent = rng.random() < 0.3
        body = "Co-Authored-By: Claude <noreply@anthropic.com>" if agent else ""
        subject = "feat: change %d" % i
        emit(i, subject, changes, body=body)
        prev = (subject, old)
    out.write(b"done\n")

class FastImport:
    """A git fast-import of one repository, fed commit by commit; commit_id asks it for a mark's sha."""

    def __init__(self, repo):
        self.proc = subprocess.Popen(["git", "-C", repo, "fast-import", "--quiet", "--done"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.mark = 0

    def commit(self, when, subject, changes, author, body=""):
        self.mark += 1
        msg = (subject + ("\n\n" + body if body else "") + "\n").encode()
        w = self.proc.stdin.write
        w(b"commit refs/heads/main\nmark :%d\n" % self.mark)
        w(("author %s %d +0000\ncommitter %s %d +0000\n" % (author, when, author, when)).encode())
        w(b"data %d\n%s" % (len(msg), msg))
        for p, lines in changes.items():
            if lines is None:
                w(("D %s\n" % p).encode())
            else:
                data = ("\n".join(lines) + "\n").encode()
                w(("M 100644 inline %s\ndata %d\n" % (p, len(data))).encode())
                w(data)
        w(b"\n")
        return self.mark

    def commit_id(self, mark):
        self.proc.stdin.write(b"get-mark :%d\n" % mark)
        self.proc.stdin.flush()
        return self.proc.stdout.readline().decode().strip()

    def close(self):
        self.proc.stdin.write(b"done\n")
        self.proc.stdin.close()
        if self.proc.wait() != 0:
            sys.exit("git_history_gen: git fast-import failed")


DEVS = ["Ana Lima <ana@example.com>", "Ben Okafor <ben@example.com>", "Chen Wei <chen@example.com>",
        "Dana Kowalski <dana@example.com>", "Eli Haddad <eli@example.com>"]
AGENT_TRAILER = "Co-Authored-By: Claude <noreply@anthropic.com>"
END = 1782777600  # 2026-06-30T00:00:00Z
DAY = 86400


def year_repo(repo, index, seed, min_commits, max_commits):
    """One service repository with a year of history; returns (commits, files)."""
    rng = random.Random("%d-%d" % (seed, index))
    commits = int(round(math.exp(rng.uniform(math.log(min_commits), math.log(max_commits)))))
    nmods = max(4, commits // 12)
    pkg = "svc%d" % index
    mods = ["src/%s/%s.py" % (pkg, w) for w in
            ("core", "api", "models", "views", "config", "cache", "queue", "billing", "search", "export",
             "report", "notify", "storage", "client", "worker", "parser", "render", "limits", "audit", "jobs")]
    mods = [mods[i % len(mods)].replace(".py", "%d.py" % (i // len(mods)) if i >= len(mods) else ".py")
            for i in range(nmods)]
    auth = ["src/%s/auth/session.py" % pkg, "src/%s/auth/tokens.py" % pkg]
    code = mods + auth
    content = {}
    for p in code:
        name = p.rsplit("/", 1)[1][:-3]
        content[p] = ["\"\"\"%s: part of %s.\"\"\"" % (name, pkg), "import os", ""] + \
            ["def %s_step%d(value):\n    return value * %d + %d" % (name, k, k + 2, rng.randrange(100))
             for k in range(12)]
        content["tests/test_%s.py" % name] = ["from %s import %s" % (pkg, name), ""] + \
            ["def test_%s_%d():\n    assert %s.%s_step%d(1) is not None" % (name, k, name, name, k) for k in range(3)]
    for d in ("index", "install", "api", "operations"):
        content["docs/%s.md" % d] = ["# %s" % d, ""] + ["Paragraph %d of the %s guide." % (k, d) for k in range(8)]
    content["migrations/0001_initial.sql"] = ["CREATE TABLE items (id INTEGER PRIMARY KEY);"]
    content["README.md"] = ["# %s" % pkg, "", "A synthetic service."]
    nfiles_start = len(content)
    fi = FastImport(repo)
    end = END - rng.randrange(20) * DAY
    start = end - 360 * DAY
    fi.commit(start - 30 * DAY, "chore: initial import", dict(content), DEVS[0])
    # Commit times: COMMITS points over the 360 days, sorted.
    times = sorted(start + rng.randrange(360 * DAY) for _ in range(commits))
    recent = []      # (time, mark, subject, path, line index) of features, for fixes to fix
    prev = None      # (mark, subject, {path: old lines or None}) of the last commit, for reverts
    migration = 1
    for i, when in enumerate(times):
        author = DEVS[rng.randrange(len(DEVS))]
        r = rng.random()
        recent = [c for c in recent if c[0] >= when - 6 * DAY]
        if r < 0.02 and prev is not None:
            mark, subject, old = prev
            changes = {}
            for p, lines in old.items():
                if lines is None:
                    content.pop(p, None)
                else:
                    content[p] = list(lines)
                changes[p] = None if lines is None else content[p]
            sha = fi.commit_id(mark)
            fi.commit(when, 'Revert "%s"' % subject, changes, author, "This reverts commit %s." % sha)
            recent = [c for c in recent if c[1] != mark]
            prev = None
            continue
        if r < 0.14 and recent:
            _, cmark, csubject, p, k = recent[rng.randrange(len(recent))]
            if p in content and k < len(content[p]):
                old = {p: list(content[p])}
                name = p.rsplit("/", 1)[1][:-3]
                content[p][k] = "def %s_step%d(value):\n    return max(0, value * %d - %d)" % (name, k, k + 3, i % 97)
                changes = {p: content[p]}
                if rng.random() < 0.33:
                    test = "tests/test_%s_regression_%d.py" % (name, i)
                    content[test] = ["from %s import %s" % (pkg, name), "",
                                     "def test_step%d_not_negative():\n    assert %s.%s_step%d(0) >= 0" % (k, name, name, k)]
                    changes[test] = content[test]
                    old[test] = None
                scope = "auth" if "/auth/" in p else name
                subject = "fix(%s): %s_step%d goes negative for small values" % (scope, name, k)
                body = ""
                if rng.random() < 0.33:
                    body = 'Fixes: %s ("%s")' % (fi.commit_id(cmark)[:12], csubject)
                mark = fi.commit(when, subject, changes, author, body)
                prev = (mark, subject, old)
                continue
        if r < 0.19:
            p = "tests/test_%s.py" % code[rng.randrange(len(code))].rsplit("/", 1)[1][:-3]
            old = {p: list(content[p])}
            content[p].append("def test_case_%d():\n    assert True" % i)
            subject = "test: cover case %d" % i
            mark = fi.commit(when, subject, {p: content[p]}, author)
            prev = (mark, subject, old)
            continue
        if r < 0.25:
            p = "docs/%s.md" % rng.choice(("index", "install", "api", "operations"))
            old = {p: list(content[p])}
            content[p].insert(rng.randrange(2, len(content[p]) + 1), "A note added in change %d." % i)
            subject = "docs: explain change %d" % i
            mark = fi.commit(when, subject, {p: content[p]}, author)
            prev = (mark, subject, old)
            continue
        if r < 0.27:
            migration += 1
            p = "migrations/%04d_change_%d.sql" % (migration, i)
            content[p] = ["ALTER TABLE items ADD COLUMN c%d INTEGER;" % i]
            subject = "feat(db): add column c%d" % i
            mark = fi.commit(when, subject, {p: content[p]}, author)
            prev = (mark, subject, {p: None})
            continue
        if r < 0.30:
            p = "README.md"
            old = {p: list(content[p])}
            content[p].append("Release note %d." % i)
            subject = "chore: release notes for %d" % i
            mark = fi.commit(when, subject, {p: content[p]}, author)
            prev = (mark, subject, old)
            continue
        # A feature: one to three code files, each a function changed or added.
        touched = rng.sample(code, rng.randint(1, 3))
        old, changes, lines = {}, {}, []
        for p in touched:
            name = p.rsplit("/", 1)[1][:-3]
            old[p] = list(content[p])
            if rng.random() < 0.7:
                k = rng.randrange(3, len(content[p]))
                content[p][k] = "def %s_step%d(value):\n    return value * %d + %d  # change %d" % (
                    name, k, k + 2, rng.randrange(100), i)
            else:
                k = len(content[p])
                content[p].append("def %s_step%d(value):\n    return value + %d" % (name, k, i))
            changes[p] = content[p]
            lines.append((p, k))
        scope = "auth" if any("/auth/" in p for p in touched) else touched[0].rsplit("/", 1)[1][:-3]
        subject = "feat(%s): change %d" % (scope, i)
        body = AGENT_TRAILER if rng.random() < 0.3 else ""
        mark = fi.commit(when, subject, changes, author, body)
        recent += [(when, mark, subject, p, k) for p, k in lines]
        prev = (mark, subject, old)
    fi.close()
    return commits + 1, nfiles_start


def org(argv):
    opts = {"--repos": None, "--out": None, "--seed": "1", "--min-commits": "120", "--max-commits": "600",
            "--first": "0"}
    it = iter(argv)
    for a in it:
        if a not in opts:
            sys.exit("git_history_gen: unknown option %s" % a)
        opts[a] = next(it, None)
    if opts["--repos"] is None or opts["--out"] is None:
        sys.exit("usage: git_history_gen.py --repos N --out DIR [--seed S] [--min-commits A] [--max-commits B] [--first I]")
    n, first, seed = int(opts["--repos"]), int(opts["--first"]), int(opts["--seed"])
    lo, hi = int(opts["--min-commits"]), int(opts["--max-commits"])
    os.makedirs(opts["--out"], exist_ok=True)
    for index in range(first, first + n):
        repo = os.path.join(opts["--out"], "repo-%04d" % index)
        subprocess.run(["git", "init", "-q", "-b", "main", "--template=", repo], check=True)
        commits, files = year_repo(repo, index, seed, lo, hi)
        print("%s %d %d" % (repo, commits, files), flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1].startswith("--"):
        org(sys.argv[1:])
    else:
        large(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))

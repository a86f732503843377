#!/usr/bin/env python3
"""bench/git_history_gen.py — writes a git fast-import stream of a large synthetic history for rtk git-history.

Usage: git_history_gen.py COMMITS FILES SEED > stream   (then: git fast-import < stream)

The first commit adds FILES files of 20 lines under src/modNN/, auth/, db/, web/ and docs/. Each later
commit, ten minutes apart from 2024-01-01, is one of: a feature change to 1-3 files (most), a fix
(`fix(modNN): ...`, ~5%) changing a line a commit of the last day changed, a third of them adding a
test beside it, a revert of the previous commit (~1%, half titled `Revert "..."`, half silent,
found by patch id only), a mass edit of 60 files (~0.1%), or an agent-authored change (trailer).
"""
import random
import sys

def main():
    commits, nfiles, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
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

if __name__ == "__main__":
    main()

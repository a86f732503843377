#!/usr/bin/python3
"""bench/git_history_peer.py — the pygit2 peer of rtk git-history's walk: the same commits, each diffed
against its parent (name-status), each message matched against the fix and revert patterns.

Usage: git_history_peer.py REPO SINCE_EPOCH   prints: commits, fixes, reverts, changed paths
"""
import re
import sys

import pygit2

FIX = re.compile(r"^(fix|hotfix)(\([^()\n]+\))?!?: \S|\bhotfix\b", re.I)
REVERT = re.compile(r'^(Revert "|Reapply "|revert(\([^()\n]+\))?!?: )|\bback(ed)?[ -]out\b|This reverts commit [0-9a-f]{7,40}', re.I | re.M)

def main():
    repo = pygit2.Repository(sys.argv[1])
    since = int(sys.argv[2])
    commits = fixes = reverts = paths = 0
    for c in repo.walk(repo.head.target, pygit2.GIT_SORT_TIME):
        if c.commit_time < since:
            break
        if len(c.parents) > 1:
            continue
        commits += 1
        msg = c.message
        if REVERT.search(msg):
            reverts += 1
        elif FIX.search(msg.split("\n", 1)[0]):
            fixes += 1
        if c.parents:
            diff = repo.diff(c.parents[0].tree, c.tree)
        else:
            diff = c.tree.diff_to_tree(swap=True)
        for d in diff.deltas:
            paths += 1
    print(commits, fixes, reverts, paths)

if __name__ == "__main__":
    main()

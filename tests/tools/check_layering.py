#!/usr/bin/env python3
"""tests/tools/check_layering.py TREE — checks every #include "..." in TREE/src and TREE/applets against
the "What may include what" table of TREE/HACKING.md, and that the headers of each folder include one another
in layers, never in a circle; prints one line per offence and exits 1 if any."""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import hacking_tables  # noqa: E402
from hacking_tables import ticked  # noqa: E402


def read_table(hacking):
    """folder -> set of folders (or applets.def / src) it may include, from HACKING.md's table."""
    return {ticked(folder)[0]: set(ticked(allowed))
            for folder, allowed in hacking_tables.read_table(hacking, "What may include what", ("folder", "may include"))}


def folder_of(tree, path):
    """The table's name for the folder holding path: src/lib, src, applets, ..."""
    return os.path.relpath(os.path.dirname(path), tree)


def target_of(tree, including, name):
    """Where an include resolves (its own folder first, then -Isrc), as a path relative to tree."""
    for base in (os.path.dirname(including), os.path.join(tree, "src")):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.exists(cand):
            return os.path.relpath(cand, tree)
    return None


def check_file(tree, path, allowed, offences, edges):
    """Checks path's includes against the table; a header's includes of headers of its own folder go into
    edges (header -> [(header it includes, line)]), for include_circles."""
    here = folder_of(tree, path)
    rule = allowed.get(here)
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m or m.group(1) == "config.h":
                continue
            where = f"{os.path.relpath(path, tree)}:{lineno}"
            name = m.group(1)
            target = target_of(tree, path, name)
            if rule is None:
                offences.append(f"{where}: folder {here}/ has no row in HACKING.md's include table")
                return
            if target is None:
                offences.append(f"{where}: \"{name}\" is not a file of the tree")
                continue
            tfolder = os.path.dirname(target)
            if path.endswith(".h") and target.endswith(".h") and tfolder == here:
                edges.setdefault(os.path.relpath(path, tree), []).append((target, lineno))
            if target.startswith("applets/"):
                if here == "src" and target == "applets/applets.def" and "applets.def" in rule:
                    continue
                offences.append(f"{where}: includes the applet file {target}; only src/ may be included")
                continue
            if tfolder == here:
                continue
            short = tfolder[len("src/"):] if tfolder.startswith("src/") else tfolder
            if "src" in rule and tfolder.startswith("src"):
                continue
            if short not in rule:
                offences.append(f"{where}: {here}/ may not include {target} (HACKING.md allows: "
                                f"{' '.join(sorted(rule)) or 'nothing'})")
            elif name != f"{short}/{os.path.basename(target)}":
                offences.append(f"{where}: include {target} by its path, as \"{short}/{os.path.basename(target)}\"")


def include_circles(edges, offences):
    """A folder's headers form layers: a header that includes another (directly or through others) is never
    included back by it. A depth-first search from the top headers (those no header includes) down meets a
    circle at the include that closes it, most often the one going up: one offence each, at that include's line."""
    state = {}  # header -> "open" while on the search's path, then "done"

    def visit(h, path):
        state[h] = "open"
        path.append(h)
        for t, line in edges.get(h, []):
            if state.get(t) == "open":
                names = " -> ".join(os.path.basename(x) for x in [h] + path[path.index(t):])
                offences.append(f"{h}:{line}: include circle {names}")
            elif t not in state:
                visit(t, path)
        path.pop()
        state[h] = "done"

    included = {t for ts in edges.values() for t, _ in ts}
    tops = sorted(h for h in edges if h not in included)
    for h in tops + sorted(edges):  # then what only a circle includes
        if h not in state:
            visit(h, [])


def main():
    tree = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    allowed = read_table(os.path.join(tree, "HACKING.md"))
    offences = []
    edges = {}
    files = 0
    for top in ("src", "applets"):
        for dirpath, _, names in os.walk(os.path.join(tree, top)):
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    files += 1
                    check_file(tree, os.path.join(dirpath, n), allowed, offences, edges)
    include_circles(edges, offences)
    for o in offences:
        print(o)
    if offences:
        return 1
    print(f"layering: {files} files follow HACKING.md's include table")
    return 0


if __name__ == "__main__":
    sys.exit(main())

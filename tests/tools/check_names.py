#!/usr/bin/env python3
"""tests/tools/check_names.py TREE [LIBRTK] — the names rule of TREE/HACKING.md ("Names"): every symbol an
object of LIBRTK exports (nm -g --defined-only; LIBRTK defaults to $RTK_LIBRTK, else TREE/src/librtk.a),
and every macro, enum constant, struct/union/enum tag and typedef a header of TREE/src declares, starts
with its module's prefix from the table there, or is one of the module's listed exceptions. A name may
not start with a longer prefix of another module either. One line per offence; exits 1 if any."""
import fnmatch
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import hacking_tables  # noqa: E402
from hacking_tables import ticked  # noqa: E402

SECTION = "Names"
WHERE = '(HACKING.md "Names")'


def read_rules(hacking):
    """[(module pattern, prefix)] and [(module pattern, [name patterns])] from the two tables."""
    prefixes = [(m, ticked(p)[0]) for mods, p in hacking_tables.read_table(hacking, SECTION, ("module", "prefix"))
                for m in ticked(mods)]
    exceptions = [(m, ticked(names)) for mods, names, _why
                  in hacking_tables.read_table(hacking, SECTION, ("module", "also exports", "why"))
                  for m in ticked(mods)]
    return prefixes, exceptions


def module_of(relpath):
    """The table's name of a source file: src/lib/jsonv.c -> lib/jsonv, applets/calibrate.c -> applets/calibrate."""
    path = os.path.splitext(relpath)[0]
    return path[len("src/"):] if path.startswith("src/") else path


class Rules:
    def __init__(self, hacking):
        self.prefixes, self.exceptions = read_rules(hacking)
        self.all = sorted({p for _, p in self.prefixes}, key=len, reverse=True)

    def prefix(self, module):
        return next((p for m, p in self.prefixes if fnmatch.fnmatchcase(module, m)), None)

    def owner(self, prefix):
        return next(m for m, p in self.prefixes if p == prefix)

    def excepted(self, module, name):
        return any(fnmatch.fnmatchcase(module, m) and any(fnmatch.fnmatchcase(name, n) for n in names)
                   for m, names in self.exceptions)

    def check(self, where, module, name, kind, what=None, shared=None):
        """None when module may declare name (an export, type or macro), else the offence; what names it.
        shared: the folder whose modules' names an internal header may declare (git's refs-internal.h)."""
        what = what or name
        prefix = self.prefix(module)
        if prefix is None:
            return f"{where}: {module} has no row in HACKING.md's \"Names\" table"
        if self.excepted(module, name):
            return None
        upper = kind == "macro"
        want = prefix.upper() if upper else prefix
        if not (name.startswith(want) or (kind == "type" and name == want[:-1])):
            kinds = {"export": "exports", "type": "types", "macro": "macros and enum constants"}[kind]
            also = f" (or be {want[:-1]})" if kind == "type" else ""
            return f"{where}: {what}: {module} {kinds} must start with {want}{also} {WHERE}"
        longer = next((p for p in self.all if len(p) > len(prefix) and name.startswith(p.upper() if upper else p)), None)
        if longer and shared and self.owner(longer).startswith(shared + "/"):
            return None
        if longer:
            return (f"{where}: {what}: {(longer.upper() if upper else longer)} names belong to "
                    f"{self.owner(longer)}, not {module} {WHERE}")
        return None


def sources(tree):
    """basename of an object -> source paths relative to tree (src/ and applets/)."""
    found = {}
    for top in ("src", "applets"):
        for dirpath, _, names in os.walk(os.path.join(tree, top)):
            for n in names:
                if n.endswith(".c"):
                    found.setdefault(n[:-2] + ".o", []).append(os.path.relpath(os.path.join(dirpath, n), tree))
    return found


def exports(archive):
    """[(member, symbol)] of every defined global symbol in archive."""
    out = subprocess.run([os.environ.get("NM", "nm"), "-P", "-g", "--defined-only", archive],
                         check=True, capture_output=True, text=True).stdout
    member, found = None, []
    for line in out.splitlines():
        m = re.match(r"^.*\[(.+)\]:$", line)
        if m:
            member = m.group(1)
        elif line.strip() and member:
            found.append((member, line.split()[0]))
    return found


def check_objects(tree, archive, rules, offences):
    src = sources(tree)
    members = set()
    for member, sym in exports(archive):
        members.add(member)
        if sym.startswith("__"):  # the compiler's own (sanitizers, profiling): reserved names
            continue
        paths = src.get(member, [])
        if not paths:
            offences.append(f"{member}: no source for it in src/ and applets/ ({member[:-2]}.c)")
            continue
        # ar keeps base names only: a member two sources could have built is held to either's prefix.
        found = [rules.check(p[:-2] + ".o", module_of(p), sym, "export") for p in sorted(paths)]
        if all(found):
            offences.append(found[0])
    return len(members)


def declarations(text):
    """(offset, kind, name, what) of what a header declares: macros, enum constants, tags, typedefs."""
    def blank(m):  # keeps offsets and line breaks
        return re.sub(r"[^\n]", " ", m.group(0))
    text = re.sub(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", blank, text, flags=re.S)
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", text, re.M):
        yield m.start(1), "macro", m.group(1), m.group(1)
    code = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", blank, text, flags=re.M)
    for m in re.finditer(r"\b(struct|union|enum)\s+(\w+)\s*[{;]", code):
        yield m.start(2), "type", m.group(2), f"{m.group(1)} {m.group(2)}"
    for m in re.finditer(r"\benum\b\s*\w*\s*\{([^}]*)\}", code):
        for item in re.finditer(r"(?:^|,)\s*(\w+)", m.group(1)):
            yield m.start(1) + item.start(1), "macro", item.group(1), item.group(1)
    for m in re.finditer(r"\btypedef\b((?:[^;{]|\{[^}]*\})*);", code):
        body = re.sub(r"\{.*\}", " ", m.group(1), flags=re.S)
        fn = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(", body) or re.search(r"(\w+)\s*\(", body)
        name = (fn or re.search(r"(\w+)\s*(?:\[[^\]]*\]\s*)*$", body)).group(1)
        yield m.start(), "type", name, f"typedef {name}"


def check_headers(tree, rules, offences):
    n = 0
    for dirpath, _, names in os.walk(os.path.join(tree, "src")):
        for name in sorted(names):
            if not name.endswith(".h"):
                continue
            n += 1
            rel = os.path.relpath(os.path.join(dirpath, name), tree)
            guard = "RTK_" + re.sub(r"\W", "_", name[:-2]).upper() + "_H"
            folder = os.path.relpath(dirpath, os.path.join(tree, "src"))
            # a cluster's internal header holds what its files share: the folder names its guard too
            internal = name == "internal.h" or name.endswith("_internal.h")
            guards = {guard, "RTK_" + re.sub(r"\W", "_", folder).upper() + "_" + guard[4:]}
            with open(os.path.join(tree, rel), encoding="utf-8", errors="replace") as f:
                for _, kind, ident, what in sorted(declarations(f.read())):
                    if kind == "macro" and ident in guards:
                        continue
                    o = rules.check(rel, module_of(rel), ident, kind, what, folder if internal else None)
                    if o:
                        offences.append(o)
    return n


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: check_names.py TREE [LIBRTK]")
    tree = os.path.abspath(sys.argv[1])
    archive = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("RTK_LIBRTK", os.path.join(tree, "src/librtk.a"))
    if not os.path.isfile(archive):
        sys.exit(f"check_names.py: {archive}: no such archive (build rtk first)")
    rules = Rules(os.path.join(tree, "HACKING.md"))
    offences = []
    objects = check_objects(tree, archive, rules, offences)
    headers = check_headers(tree, rules, offences)
    for o in dict.fromkeys(offences):
        print(o)
    if offences:
        return 1
    print(f"names: {objects} objects and {headers} headers follow HACKING.md's \"Names\" table")
    return 0


if __name__ == "__main__":
    sys.exit(main())

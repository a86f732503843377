"""tests/tools/hacking_tables.py — reads the tables of HACKING.md that the checks of make check enforce
(check_layering.py: "What may include what", check_names.py: "Names"), so the page and the checks share
one reading of it."""
import re
import sys


def read_table(hacking, section, header):
    """The body rows (lists of cells) of the table under "## section" whose header row is header."""
    rows, in_section, table = [], False, None
    with open(hacking, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                in_section = line[3:].strip() == section
                continue
            if not in_section or not line.startswith("|"):
                table = None
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if table is None:
                table = tuple(cells) == tuple(header)
            elif table and not re.fullmatch(r"[-: ]*", "".join(cells)):
                rows.append(cells)
    if not rows:
        sys.exit(f"{hacking}: no table '| {' | '.join(header)} |' under '## {section}'")
    return rows


def ticked(cell):
    """The `quoted` words of a cell, in order."""
    return re.findall(r"`([^`]+)`", cell)

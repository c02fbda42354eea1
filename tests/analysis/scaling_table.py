#!/usr/bin/python3
"""docs/scaling.md's table of section 4 sets agrees with itself, its criteria and scaling-sets.md.

    scaling_table.py SOURCE_DIR

- The table ("| # | set | L = 1 s, strong | ...", in "Where it stands against issue 14") numbers
  its sets 1, 2, 3, ...; where a cell gives a set's rounds in brackets, its value is their median.
- The criteria table's counts are the table's: "medians A–B× over N sets; at least 1.3× in K of
  them" (strong, L = 1 s), "medians A–B× over N sets; C–D× in the last M" (weak, L = 1 s) and
  "both met in K of the N sets" (L = 60 s: strong at least 1.3×, weak at most 1.25×).
- docs/scaling-sets.md lists the same sets, by the same numbers and names, and the rounds it
  gives for a set ("rounds: strong a / b / c×, weak d / e / f×") are the table's.
Prints one line per check; exits 1 on the first that fails.
"""
import re
import statistics
import sys

import mdtable  # tests/analysis/mdtable.py, next to this script

STRONG_MIN, WEAK_MAX = 1.3, 1.25


def fail(msg):
    sys.exit("scaling_table: " + msg)


def ratio(cell, where):
    """A cell "1.34×" or "1.34× (1.34 / 1.33 / 1.45)": the value, and the rounds (or None)."""
    m = re.fullmatch(r"(\d+\.\d+)×(?: \((\d+\.\d+(?: / \d+\.\d+)+)\))?", cell)
    if not m:
        fail("%s: cannot read %r" % (where, cell))
    rounds = [float(x) for x in m.group(2).split(" / ")] if m.group(2) else None
    return float(m.group(1)), rounds


def main():
    src = sys.argv[1]
    doc = open(src + "/docs/scaling.md", encoding="utf-8").read()
    sets_doc = open(src + "/docs/scaling-sets.md", encoding="utf-8").read()
    rows = mdtable.rows(doc, "| # | set | L = 1 s, strong |")
    if len(rows) < 10:
        fail("found %d rows in the table of sets: format changed?" % len(rows))
    sets = []
    for n, cells in enumerate(rows, 1):
        if cells[0] != str(n):
            fail("row %d is numbered %s" % (n, cells[0]))
        vals = []
        for col, name in zip(cells[2:6], ("L1 strong", "L1 weak", "L60 strong", "L60 weak")):
            v, rounds = ratio(col, "set %d, %s" % (n, name))
            if rounds is not None:
                med = statistics.median(rounds)
                if abs(med - v) > 1e-9:
                    fail("set %d, %s: median of %s is %.2f, the cell says %.2f" % (n, name, rounds, med, v))
            vals.append((v, rounds))
        sets.append((n, cells[1], vals))
    print("scaling_table: %d sets; every median with rounds is their middle value" % len(sets))

    n_sets = len(sets)
    s1 = [v[0][0] for _, _, v in sets]
    w1 = [v[1][0] for _, _, v in sets]
    crit = {c[0]: c[1] for c in mdtable.rows(doc, "| criterion | status | where |")}

    def status(prefix):
        for k, v in crit.items():
            if k.startswith(prefix):
                return v
        fail("no criterion starting %r" % prefix)

    m = re.search(r"medians (\d+\.\d+)–(\d+\.\d+)× over (\d+) sets; at least 1\.3× in (\d+) of them",
                  status("strong scaling ≥ 1.3× at L = 1 s"))
    if not m:
        fail("the strong-scaling criterion's text changed")
    want = ("%.2f" % min(s1), "%.2f" % max(s1), str(n_sets), str(sum(x >= STRONG_MIN for x in s1)))
    if m.groups() != want:
        fail("strong scaling at L = 1 s: the text says %s, the table gives %s" % (m.groups(), want))
    print("scaling_table: strong, L = 1 s: medians %s–%s× over %s sets, at least 1.3× in %s" % want)

    m = re.search(r"medians (\d+\.\d+)–(\d+\.\d+)× over (\d+) sets; (\d+\.\d+)–(\d+\.\d+)× in the last (\d+)",
                  status("weak scaling ≤ 1.25× at L = 1 s"))
    if not m:
        fail("the weak-scaling criterion's text changed")
    last = w1[-int(m.group(6)):]
    want = ("%.2f" % min(w1), "%.2f" % max(w1), str(n_sets), "%.2f" % min(last), "%.2f" % max(last), m.group(6))
    if m.groups() != want:
        fail("weak scaling at L = 1 s: the text says %s, the table gives %s" % (m.groups(), want))
    print("scaling_table: weak, L = 1 s: medians %s–%s× over %s sets, %s–%s× in the last %s" % want)

    m = re.search(r"both met in (\d+) of the (\d+) sets", status("the same two at L = 60 s"))
    if not m:
        fail("the L = 60 s criterion's text changed")
    met = sum(v[2][0] >= STRONG_MIN and v[3][0] <= WEAK_MAX for _, _, v in sets)
    if m.groups() != (str(met), str(n_sets)):
        fail("L = 60 s: the text says both met in %s of %s sets, the table gives %d of %d" %
             (m.group(1), m.group(2), met, n_sets))
    print("scaling_table: L = 60 s: both met in %d of %d sets" % (met, n_sets))

    listed = re.findall(r"^(\d+)\. \*\*(.*?)\*\*(.*)$", sets_doc, flags=re.M)
    if [int(x[0]) for x in listed] != list(range(1, n_sets + 1)):
        fail("scaling-sets.md lists sets %s, the table 1-%d" % ([x[0] for x in listed], n_sets))
    for (num, name, rest), (n, tname, vals) in zip(listed, sets):
        if name != tname:
            fail("set %d is %r in scaling-sets.md and %r in the table" % (n, name, tname))
        m = re.search(r"rounds: strong (\S+ / \S+ / \S+)×, weak (\S+ / \S+ / \S+)×", rest)
        if m:
            for got, (v, rounds), what in zip(m.groups(), vals[:2], ("strong", "weak")):
                if [float(x) for x in got.split(" / ")] != rounds:
                    fail("set %d: scaling-sets.md's %s rounds %s, the table's %s" % (n, what, got, rounds))
    print("scaling_table: scaling-sets.md lists the same %d sets, with the same rounds" % n_sets)


if __name__ == "__main__":
    main()

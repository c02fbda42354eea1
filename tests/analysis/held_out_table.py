#!/usr/bin/python3
"""docs/dike.md's table of held-out draws agrees with itself and with analysis/held_out_draws.sh.

    held_out_table.py SOURCE_DIR

- Every draw of the table ("| draw | `held_out.py` arguments | ...", in "Where it stands") is in
  the script's list with the same arguments (a row "1–4" with `--seed N` stands for four draws),
  and the script has no draw the table lacks.
- The "all" row's checks and knob failures are the sums of the rows, and each row's number of
  knob failures per draw matches its draws (one number per draw).
- A draw's checks are its points times its modes (three unless the arguments name them).
Prints one line per check; exits 1 on the first that fails.
"""
import re
import sys

import mdtable  # tests/analysis/mdtable.py, next to this script


def table_rows(text):
    return mdtable.rows(text, "| draw | `held_out.py` arguments |")


def draws_of(cell):
    m = re.fullmatch(r"(\d+)(?:–(\d+))?", cell)
    if not m:
        return None
    lo = int(m.group(1))
    hi = int(m.group(2) or lo)
    return list(range(lo, hi + 1))


def checks_of(args):
    """A draw's checks: its points times its modes (held_out_draws.sh: three unless named)."""
    pts = int(re.search(r"--sample (\d+)", args).group(1))
    m = re.search(r"--modes (\S+)", args)
    return pts * (len(m.group(1).split(",")) if m else 3)


def number(text):
    return int(text.replace("*", "").replace(",", "").split()[0])


def main():
    src = sys.argv[1]
    doc = open(src + "/docs/dike.md", encoding="utf-8").read()
    script = open(src + "/analysis/held_out_draws.sh", encoding="utf-8").read()
    listed = {int(n): a for n, a in re.findall(r'^\s*"(\d+)\|([^"]*)"$', script, flags=re.M)}
    rows = table_rows(doc)
    if len(rows) < 10 or len(listed) < 10:
        sys.exit("held_out_table: found %d table rows and %d listed draws: format changed?" % (len(rows), len(listed)))
    table, checks, knob = {}, 0, 0
    for cells in rows:
        if cells[0] == "**all**":
            total = (number(cells[3]), number(cells[5]))
            continue
        ds = draws_of(cells[0])
        args = cells[1].strip("`")
        fails = [int(x) for x in cells[5].split(",")]
        if ds is None or len(fails) != len(ds):
            sys.exit("held_out_table: row %s: %d draws, %d knob counts" % (cells[0], len(ds or []), len(fails)))
        row_checks = 0
        for d in ds:
            table[d] = args.replace("--seed N", "--seed %d" % d)
            row_checks += checks_of(table[d])
        if number(cells[3]) != row_checks:
            sys.exit("held_out_table: row %s: %s checks, but its draws' points times modes are %d" %
                     (cells[0], cells[3], row_checks))
        checks += row_checks
        knob += sum(fails)
    print("table: %d draws, %d checks, %d knob failures; the all row: %d, %d" % (len(table), checks, knob, *total))
    if (checks, knob) != total:
        sys.exit("held_out_table: the all row says %d checks and %d knob failures, the rows add up to %d and %d" %
                 (total[0], total[1], checks, knob))
    if table != listed:
        for d in sorted(set(table) | set(listed)):
            if table.get(d) != listed.get(d):
                print("draw %d: table %r, script %r" % (d, table.get(d), listed.get(d)))
        sys.exit("held_out_table: docs/dike.md's table and analysis/held_out_draws.sh list other draws")
    print("ok   the table's %d draws are the script's, argument for argument" % len(table))


if __name__ == "__main__":
    main()

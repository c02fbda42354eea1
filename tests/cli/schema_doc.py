#!/usr/bin/python3
"""docs/output-schema.md against a real output file.

    schema_doc.py --list DOC            the documented layout, one object a line (cli_ok.sh)
    schema_doc.py --check DOC FILE.h5   both ways: every documented object is in the file, every
                                        object of the file is documented, and every per-column /
                                        per-attribute unit of the file (units_<name>) equals the
                                        doc's unit column

The doc is read the way a person reads it: a `## ` heading whose first backticked name is a path
(`/`, `/jobs`, `/timeseries`) introduces that object; the first table under it lists its
attributes (first header "attribute"), compound columns ("column") or child datasets ("dataset",
where a row named `@X` is the group's own attribute X);
each row's first cell names one or more objects in backticks, its "unit" cell their unit. A
heading that says "only with" (a setting) marks an optional object: --list leaves it out, and
--check checks it only in a file that has it.
`units_<attribute>` in an attribute table stands for one `units_X` per attribute X of that table
with a unit. By the doc's conventions every dataset has `units` and `description`, every group
`description`, and every compound column X a `units_X` attribute.

Objects are printed as "group /timeseries", "dataset /jobs", "attr /summary@avg_jct",
"member /jobs:jct"; exit 1 with the differences listed when --check finds any.
"""
import re
import sys


def parse(doc):
    """({path: (kind, [(name, unit), ...])} for every documented object, the set of paths whose
    heading says they are written "only with" some setting: optional objects)."""
    objs, optional = {}, set()
    path = None
    header = None
    for line in open(doc, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("## "):
            m = re.search(r"`(/[^`]*)`", line)
            path = m.group(1) if m else None
            if path and "only with" in line:
                optional.add(path)
            header = None
            continue
        if path is None or not line.startswith("|"):
            if header is not None and not line.startswith("|"):
                path = None  # only the first table under a heading
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = [c.lower() for c in cells]
            kind = header[0]
            if kind not in ("attribute", "column", "dataset"):
                path = None
                header = None
                continue
            objs.setdefault(path, (kind, []))
            continue
        if set(line) <= set("|-: "):
            continue
        unit = cells[header.index("unit")] if "unit" in header else ""
        for name in re.findall(r"`([^`]+)`", cells[0]):
            objs[path][1].append((name, unit))
    return objs, optional


def expected(objs):
    """(set of object lines, {attr line: unit} the file's units_* attributes must hold)."""
    out, units = set(), {}
    for path, (kind, rows) in objs.items():
        if kind == "attribute":
            out.add("group " + path)
            names = [n for n, _ in rows if "<" not in n]
            for n in names:
                out.add("attr %s@%s" % (path, n))
            for n, u in rows:
                if "<" in n:  # units_<attribute>: one per attribute with a unit
                    prefix = n.split("<")[0]
                    for m, mu in rows:
                        if "<" not in m and mu and not m.startswith(prefix):
                            out.add("attr %s@%s%s" % (path, prefix, m))
                            units["%s@%s%s" % (path, prefix, m)] = mu
                elif n.startswith("units_"):
                    unit_of = dict(rows).get(n[len("units_"):])
                    if unit_of:
                        units["%s@%s" % (path, n)] = unit_of
        elif kind == "column":
            out.add("dataset " + path)
            for a in ("units", "description"):
                out.add("attr %s@%s" % (path, a))
            for n, u in rows:
                out.add("member %s:%s" % (path, n))
                out.add("attr %s@units_%s" % (path, n))
                units["%s@units_%s" % (path, n)] = u
        elif kind == "dataset":
            out.add("group " + path)
            out.add("attr %s@description" % path)
            for n, u in rows:
                if n.startswith("@"):  # an attribute of the group itself
                    out.add("attr %s%s" % (path, n))
                    continue
                d = path.rstrip("/") + "/" + n
                out.add("dataset " + d)
                out.add("attr %s@units" % d)
                out.add("attr %s@description" % d)
                units["%s@units" % d] = u
    return out, units


def actual(h5):
    import h5py
    out, values = set(), {}
    with h5py.File(h5, "r") as f:
        def visit(name, obj):
            path = "/" + name if name else "/"
            if isinstance(obj, h5py.Group):
                out.add("group " + path)
            else:
                out.add("dataset " + path)
                for m in obj.dtype.names or ():
                    out.add("member %s:%s" % (path, m))
            for a, v in obj.attrs.items():
                out.add("attr %s@%s" % (path, a))
                values["%s@%s" % (path, a)] = v.decode() if isinstance(v, bytes) else v
        visit("", f)
        f.visititems(visit)
    return out, values


def main(argv):
    if len(argv) == 3 and argv[1] == "--list":  # what every run writes (no optional object)
        objs, optional = parse(argv[2])
        for line in sorted(expected({p: o for p, o in objs.items() if p not in optional})[0]):
            print(line)
        return 0
    if len(argv) != 4 or argv[1] != "--check":
        print(__doc__, file=sys.stderr)
        return 2
    objs, optional = parse(argv[2])
    have, values = actual(argv[3])
    # an optional object is checked, both ways, when the file has it
    want, units = expected({p: o for p, o in objs.items()
                            if p not in optional or {"group " + p, "dataset " + p} & have})
    bad = 0
    for line in sorted(want - have):
        print("documented but not in the file: " + line)
        bad += 1
    for line in sorted(have - want):
        print("in the file but not documented: " + line)
        bad += 1
    for key, unit in sorted(units.items()):
        if key in values and str(values[key]) != unit:
            print("unit of %s: the file says '%s', the doc '%s'" % (key, values[key], unit))
            bad += 1
    print("%d objects documented, %d in the file, %d units compared, %d differences"
          % (len(want), len(have), len(units), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

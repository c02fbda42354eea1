#!/usr/bin/python3
"""docs/results.md lists the configuration keys that today's binary stores in a run.

    results_keys.py DIKE_EMU docs/results.md

The page is generated (scripts/make_gallery.sh) from stored runs. For each group it prints the
runs' table, whose last column names the keys that differ between the runs (`section.key=value`),
then "Shared configuration of ... (N keys)" with the keys they share as INI. Together those must
be the keys `dike-emu run --print-config` prints (run.out aside: it is the output path): a key
the binary has and the page lacks means the page was made by an older binary (as it was for a day
after dike.late_pass was added), a key the page has and the binary lacks one that was removed.
Either way the fix is to regenerate the page. N must be the number of keys in the block.
Checks itself first on hand-made pages: one that agrees, one missing a key, one with a key too
many, one whose count is wrong. Prints one line per group; exits 1 naming the group and the keys.
"""
import configparser
import re
import subprocess
import sys

SUMMARY = re.compile(r"<details><summary>Shared configuration of (.*) \((\d+) keys\)</summary>")
VARYING = re.compile(r"`([a-z_]+\.[a-z_0-9]+)=")


def ini_keys(text):
    """section.key of each key of @p text, INI read as analysis/dikeio.py reads a stored config."""
    c = configparser.ConfigParser(interpolation=None)
    c.read_string(text)
    return {"%s.%s" % (sec, key) for sec in c.sections() for key in c[sec]}


def problems(page, want):
    """(group, what is wrong) for each shared-configuration block of @p page (its text) that, with
    the keys its runs' table names as varying, does not give exactly @p want; and the number of
    blocks."""
    lines = page.split("\n")
    out, varying, blocks, i = [], set(), 0, 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("#"):
            varying = set()  # a new section: its own runs' table follows
        elif ln.startswith("| "):
            varying |= set(VARYING.findall(ln))
        m = SUMMARY.match(ln)
        if m:
            blocks += 1
            try:
                start = lines.index("```ini", i) + 1
                end = lines.index("```", start)
            except ValueError:
                out.append((m.group(1), "no ```ini block after its summary"))
                break
            keys = ini_keys("\n".join(lines[start:end]))
            missing = sorted(want - keys - varying)
            extra = sorted(keys - want)
            what = []
            if missing:
                what.append("lacks " + ", ".join(missing))
            if extra:
                what.append("has keys the binary does not: " + ", ".join(extra))
            if int(m.group(2)) != len(keys):
                what.append("says %s keys and lists %d" % (m.group(2), len(keys)))
            if what:
                out.append((m.group(1), "; ".join(what)))
            varying, i = set(), end
        i += 1
    return out, blocks


def self_check():
    want = {"a.x", "a.y", "b.z", "b.w"}
    page = ("## group one\n\n| f.h5 | p | `b.w=1` |\n| g.h5 | q | `b.w=2` |\n\n"
            "<details><summary>Shared configuration of one (%d keys)</summary>\n\n```ini\n"
            "[a]\nx = 1\ny = 2\n[b]\n%s```\n</details>\n")
    good = page % (3, "z = 3\n")
    cases = [(good, 0), (page % (2, ""), 1), (page % (4, "z = 3\nv = 4\n"), 1), (page % (4, "z = 3\n"), 1)]
    for text, nbad in cases:
        bad, blocks = problems(text, want)
        if blocks != 1 or len(bad) != nbad:
            sys.exit("results_keys: FAIL: self-check found %d problems in %d blocks, expected %d in 1: %s"
                     % (len(bad), blocks, nbad, bad))
    # a varying key of one section does not count for the next one
    two = good + "\n## group two\n\n| h.h5 | r | `a.x=5` |\n\n" + \
        "<details><summary>Shared configuration of two (2 keys)</summary>\n\n```ini\n[a]\ny = 1\n[b]\nz = 2\n```\n"
    bad, blocks = problems(two, want)
    if blocks != 2 or [g for g, _ in bad] != ["two"] or "b.w" not in bad[0][1]:
        sys.exit("results_keys: FAIL: self-check on two groups: %s" % bad)
    print("ok: self-check on hand-made pages")


def main():
    emu, path = sys.argv[1], sys.argv[2]
    self_check()
    out = subprocess.run([emu, "run", "--print-config"], check=True, capture_output=True, text=True).stdout
    want = ini_keys(out) - {"run.out"}
    if len(want) < 40:
        sys.exit("results_keys: --print-config printed %d keys: format changed?" % len(want))
    bad, blocks = problems(open(path, encoding="utf-8").read(), want)
    if blocks == 0:
        sys.exit("results_keys: FAIL: no shared-configuration block in %s" % path)
    for group, what in bad:
        print("results_keys: FAIL: %s: shared configuration of %s %s" % (path, group, what))
    if bad:
        sys.exit("results_keys: %d of %d groups disagree with the binary's %d keys: regenerate the page "
                 "(scripts/make_gallery.sh, docs/results.md's first lines)" % (len(bad), blocks, len(want)))
    print("ok: %d groups of %s list the binary's %d keys" % (blocks, path, len(want)))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""README.md's table of the most used keys agrees with `dike-emu config-reference` (issue 16).

    readme_defaults.py DIKE_EMU README.md

Every row of the README table "| key | default | meaning |" names keys (`section.key`, comma-
separated) and their defaults in the same order; each default must be the one config-reference
prints. A few README defaults are words for an empty value (WORDS below). Prints one line per key;
exits 1 on the first disagreement, naming the key and both values.
"""
import re
import subprocess
import sys

# README wording -> the configuration value it stands for
WORDS = {("workload.trace", "synthetic"): "", ("cluster.gpu_types", "all `v100`"): "",
         ("cluster.gpu_speeds", "1"): ""}


def main():
    emu, readme = sys.argv[1], sys.argv[2]
    ref = {}
    out = subprocess.run([emu, "config-reference"], check=True, capture_output=True, text=True).stdout
    for ln in out.splitlines():
        m = re.match(r"\| (\w+) \| (\w+) \| `([^`]*)` \|", ln)
        if m:
            ref["%s.%s" % (m.group(1), m.group(2))] = m.group(3).strip('"')
    if len(ref) < 20:
        sys.exit("readme_defaults: config-reference printed %d keys: format changed?" % len(ref))
    text = open(readme, encoding="utf-8").read()
    table = text.split("| key | default | meaning |", 1)[1].split("\n\n", 1)[0]
    n = 0
    for ln in table.splitlines()[2:]:
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        keys = [k.strip().strip("`") for k in cells[0].split(",")]
        vals = [v.strip() for v in cells[1].split(",")]
        if len(keys) != len(vals):
            sys.exit("readme_defaults: FAIL: README row %r: %d keys, %d defaults" % (cells[0], len(keys), len(vals)))
        for k, v in zip(keys, vals):
            if k not in ref:
                sys.exit("readme_defaults: FAIL: README names %s, which config-reference does not list" % k)
            want = ref[k]
            got = WORDS.get((k, v), v.strip("`"))
            if got != want:
                sys.exit("readme_defaults: FAIL: %s: README says %s, config-reference %r" % (k, v, want))
            print("ok: %s = %r" % (k, want))
            n += 1
    if n < 10:
        sys.exit("readme_defaults: FAIL: only %d keys found in README's table" % n)
    print("ok: README's %d defaults agree with config-reference" % n)


if __name__ == "__main__":
    main()

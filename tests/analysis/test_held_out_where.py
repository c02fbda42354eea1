#!/usr/bin/python3
"""analysis/held_out_where.py on hand-made held_out.py reports.

    test_held_out_where.py SOURCE_DIR

Five checks in two reports, in held_out.py's line format. Counted by hand:
- by trace: TitanSched 2 checks, 1 knob failure (unfair side 0.0100); ElasticFlow 2 checks, one
  dominated, 2 knob failures (JCT side 0.500 % and 0.100 %: median 0.300 %; one also unfair
  0.0020); Gen-Parallel Helios 1 check, no failure;
- by load: 0.85 is "below 0.9"; 0.9 is "0.9-1.1" (the lower edge is in); 1.5 is "1.5 and above";
- by size: 256 GPUs is "up to 256 GPUs" (the upper edge is in), 1,032 "over 1,024 GPUs";
- all: 5 checks, 1 dominated, 3 knob failures (60 %), JCT side 2 (median 0.300 %), unfair side
  2 (median 0.0060).
Also: a report without check lines, and a line whose knob says NO without a side, are refused
with a message naming the file.
"""
import os
import subprocess
import sys
import tempfile

A = """\
titan-jobs1-9-load0.85-256gpus oracle dominated by: none     knob monotone: yes | dike w=1: avg JCT 1.00 h
titan-jobs1-9-load0.85-256gpus none   dominated by: none     knob monotone: NO  | dike w=1: avg JCT 1.00 h | knob: unfair side: w=1 higher by 0.0100 (largest parts 1 GPU (9 jobs, +0.0100) by width, of +0.0100 in all)
5 points x 3 modes: dominated 0, knob 1
"""
B = """\
ef04+02-load1.50-1032gpus noisy  dominated by: srtf     knob monotone: NO  | dike w=1: avg JCT 2.00 h | knob: JCT side: w=0 slower by 0.500% (largest parts 1 GPU (5 jobs, +1 s) by width); unfair side: w=1 higher by 0.0020 (largest parts 1 GPU (5 jobs, +0.0020) by width)
ef-load0.90-512gpus        oracle dominated by: none     knob monotone: NO  | dike w=1: avg JCT 2.00 h | knob: JCT side: w=0 slower by 0.100% (largest parts 1 GPU (5 jobs, +1 s) by width)
helios-jobs5-9-load1.20-800gpus none   dominated by: none     knob monotone: yes | dike w=1: avg JCT 2.00 h
"""


def run(script, *files):
    return subprocess.run([sys.executable, script, *files], capture_output=True, text=True)


def expect(cond, what):
    if not cond:
        sys.exit("test_held_out_where: FAIL: " + what)
    print("test_held_out_where: ok: " + what)


def main():
    script = os.path.join(sys.argv[1], "analysis", "held_out_where.py")
    with tempfile.TemporaryDirectory() as d:
        pa, pb = os.path.join(d, "a.txt"), os.path.join(d, "b.txt")
        open(pa, "w").write(A)
        open(pb, "w").write(B)
        r = run(script, pa, pb)
        expect(r.returncode == 0, "two reports read (%s)" % r.stderr.strip())
        out = r.stdout
        lines = out.splitlines()
        expect(lines[0] == "5 checks from 2 reports", "5 checks from 2 reports")
        rows = [l for l in lines if l.startswith("| ")]
        expect("| TitanSched Philly | 2 | 0 | 1 (50 %) | 0 | - | 1 | 0.0100 |" in rows, "TitanSched row")
        expect("| ElasticFlow | 2 | 1 | 2 (100 %) | 2 | 0.300 % | 1 | 0.0020 |" in rows, "ElasticFlow row")
        expect("| Gen-Parallel Helios | 1 | 0 | 0 (0 %) | 0 | - | 0 | - |" in rows, "Helios row")
        expect([l for l in rows if l.startswith("| Gen-Parallel Philly |")] == ["| Gen-Parallel Philly | - | - | - |"],
               "a trace without checks has no row in the tallies, dashes by mode")
        expect(rows.count("| all | 5 | 1 | 3 (60 %) | 2 | 0.300 % | 2 | 0.0060 |") == 4, "the all row of each table")
        expect("| below 0.9 | 2 | 0 | 1 (50 %) | 0 | - | 1 | 0.0100 |" in rows, "load 0.85 below 0.9")
        expect("| 0.9-1.1 | 1 | 0 | 1 (100 %) | 1 | 0.100 % | 0 | - |" in rows, "load 0.9 in 0.9-1.1")
        expect("| 1.5 and above | 1 | 1 | 1 (100 %) | 1 | 0.500 % | 1 | 0.0020 |" in rows, "load 1.5 in 1.5 and above")
        expect("| up to 256 GPUs | 2 | 0 | 1 (50 %) | 0 | - | 1 | 0.0100 |" in rows, "256 GPUs up to 256")
        expect("| over 1,024 GPUs | 1 | 1 | 1 (100 %) | 1 | 0.500 % | 1 | 0.0020 |" in rows, "1,032 GPUs over 1,024")
        expect("| ElasticFlow | 1 / 1 | 1 / 1 | 0 / 0 |" not in rows and
               "| ElasticFlow | 1 / 1 | 1 / 1 | - |" in rows, "trace by mode: ElasticFlow")
        expect("| TitanSched Philly | 0 / 1 | - | 1 / 1 |" in rows, "trace by mode: TitanSched")

        empty = os.path.join(d, "empty.txt")
        open(empty, "w").write("30 points x 3 modes: dominated 0, knob 0\n")
        r = run(script, pa, empty)
        expect(r.returncode != 0 and "empty.txt: no check lines" in r.stderr, "a report without checks is refused")
        bad = os.path.join(d, "bad.txt")
        open(bad, "w").write(A.splitlines()[1].split(" | knob:")[0] + "\n")
        r = run(script, bad)
        expect(r.returncode != 0 and "bad.txt:1: knob NO but no side given" in r.stderr,
               "a failed knob without a side is refused, with file and line")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Convert TitanSched's philly.csv (unsorted, date-time submits, virtual cluster per row) into the
dike CSV trace format: sorted by submit time (ties keep file order), job id = position after
sorting, submit = seconds since the first job, tenant = virtual cluster.

    tools/philly_to_dike.py ../shared/traces/TitanSched/philly.csv OUT.csv [--jobs N]
        [--window START_S END_S]

--window keeps the jobs submitted in [START_S, END_S) seconds after the trace's first job and
restarts the clock at the first kept job.

Plain Python 3 standard library: runs with any python3 on PATH.
"""
import argparse
import csv
import datetime


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--jobs", type=int, default=0, help="keep the first N jobs after sorting (0 = all)")
    ap.add_argument("--window", type=float, nargs=2, metavar=("START_S", "END_S"),
                    help="keep jobs submitted in [START_S, END_S) after the first job")
    a = ap.parse_args()
    rows = []
    with open(a.src, newline="") as f:
        for i, r in enumerate(csv.DictReader(f)):
            if not r.get("timestamp"):
                continue  # the file ends with a blank line
            t = datetime.datetime.strptime(r["timestamp"], "%Y-%m-%d %H:%M:%S")
            t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
            rows.append((t, i, r))
    rows.sort(key=lambda x: (x[0], x[1]))
    if a.window:
        first = rows[0][0]
        rows = [r for r in rows if a.window[0] <= r[0] - first < a.window[1]]
    if a.jobs:
        rows = rows[: a.jobs]
    t0 = rows[0][0]
    with open(a.out, "w", newline="") as f:
        f.write("# converted from TitanSched philly.csv by tools/philly_to_dike.py (MIT, see LICENSE)\n")
        f.write("job_id,tenant,submit_time,num_gpus,duration\n")
        for k, (t, _, r) in enumerate(rows):
            f.write("%d,%s,%d,%d,%s\n" % (k, r["cluster"], int(t - t0), int(r["num_gpus"]), r["duration"]))


if __name__ == "__main__":
    main()

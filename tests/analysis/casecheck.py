"""The small harness the analysis tests share: check() prints one line per assertion and counts
failures; run() runs each case, counts a crash as a failure of that case, prints the total and
exits 1 if anything failed."""
import sys
import traceback

failures = 0


def check(cond, what):
    global failures
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    if not cond:
        failures += 1


def run(cases):
    for case in cases:
        try:
            case()
        except Exception as e:  # a crash is a failure of that case, reported like one
            traceback.print_exc()
            check(False, "%s raised %s" % (case.__name__, e))
    print("%s: %d failure%s" % ("FAIL" if failures else "ok", failures, "" if failures == 1 else "s"))
    sys.exit(1 if failures else 0)

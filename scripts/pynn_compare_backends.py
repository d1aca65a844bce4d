#!/usr/bin/env python3
"""Compare the spikes two PyNN backends gave on PyNN's scenarios.

Input: the JSON spike logs that tests/pynn/conftest.py writes with
PYNN_SPIKE_LOG (scenario -> the spike trains of every get_data call).
Every scenario that recorded spikes on both backends is compared train by
train: identical (same count, times equal to 1e-9 ms), or, for the
scenarios named with --statistical (random sources: the backends draw
different numbers), spike counts within 4 standard errors of a Poisson
count. The scenarios named with --differ are expected to differ (the
reasons are in docs/PYNN.md); they are reported, not failed. Prints a
table; with --json writes it; exits 1 when a scenario that should agree
does not, or when one named in --differ starts to agree (the docs are
then out of date).
"""

import argparse
import json
import math
import sys


def compare(a, b, counts_only=False):
    """(trains, identical trains, largest time difference ms, count differences) of two logs
    (counts_only: each "train" is one spike count)."""
    trains = same = 0
    worst = 0.0
    counts = []
    if len(a) != len(b):
        return None
    for call_a, call_b in zip(a, b):
        if len(call_a) != len(call_b):
            return None
        for seg_a, seg_b in zip(call_a, call_b):
            if len(seg_a) != len(seg_b):
                return None
            for ta, tb in zip(seg_a, seg_b):
                trains += 1
                if counts_only and ta != tb:
                    counts.append((int(ta[0]), int(tb[0])))
                    continue
                if len(ta) != len(tb):
                    counts.append((len(ta), len(tb)))
                    continue
                d = max((abs(x - y) for x, y in zip(ta, tb)), default=0.0)
                worst = max(worst, d)
                same += d <= 1e-9
    return trains, same, worst, counts


def totals(log, counts_only):
    """All spikes of a log: the trains' lengths, or the counts summed."""
    return int(sum(sum(t[0] for t in seg) if counts_only else sum(len(t) for t in seg) for call in log for seg in call))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log_a", help="spike log of backend A (olive)")
    ap.add_argument("log_b", help="spike log of backend B (nest)")
    ap.add_argument("--names", default="olive,nest", help="the two backends' names, for the table")
    ap.add_argument("--differ", default="", help="comma-separated scenario names expected to differ")
    ap.add_argument("--statistical", default="", help="comma-separated scenario names compared by counts")
    ap.add_argument("--report-only", default="",
                    help="comma-separated scenario names whose comparison is shown, not judged (small random networks)")
    ap.add_argument("--json", help="write the table here")
    args = ap.parse_args()
    a, b = (json.load(open(p)) for p in (args.log_a, args.log_b))
    differ = set(filter(None, args.differ.split(",")))
    statistical = set(filter(None, args.statistical.split(",")))
    report_only = set(filter(None, args.report_only.split(",")))
    na, nb = args.names.split(",")
    rows, bad = [], []
    for key in sorted(set(a) & set(b)):
        name = key.split("::")[-1].replace(" (spike counts)", "")
        r = compare(a[key], b[key], counts_only=key.endswith(" (spike counts)"))
        if r is None:
            rows.append(dict(scenario=key, trains=None, verdict="different shape"))
            (rows[-1].update(verdict="differs (expected)") if name in differ else bad.append(key))
            continue
        trains, same, worst, counts = r
        if trains == 0:
            continue
        if name in statistical or name in report_only:
            ta, tb = totals(a[key], key.endswith(" (spike counts)")), totals(b[key], key.endswith(" (spike counts)"))
            if name in report_only:   # shown only: a small network's activity varies more than a Poisson count
                ok, verdict = True, f"random inputs, not judged: {ta} vs {tb} spikes"
            else:   # the total count: Poisson, variance about its mean on each side
                ok = abs(ta - tb) <= 4 * math.sqrt(max(ta + tb, 1))
                verdict = f"totals agree (random inputs: {ta} vs {tb} spikes)" if ok else f"totals differ: {ta} vs {tb}"
        elif same == trains:
            verdict = "identical"
            ok = name not in differ
            if not ok:
                verdict = "identical, but listed in --differ"
        else:
            verdict = "differs (expected)" if name in differ else "differs"
            ok = name in differ
        rows.append(dict(scenario=key, trains=trains, identical=same, max_diff_ms=worst,
                         count_diffs=counts, verdict=verdict))
        if not ok:
            bad.append(key)
    for name in differ | statistical | report_only:
        if not any(r["scenario"].split("::")[-1].replace(" (spike counts)", "") == name for r in rows):
            bad.append(f"{name} (named, but no spikes were compared)")
    print(f"{'scenario':70s} {'trains':>6s} {'identical':>9s} {'max |dt| ms':>11s}  verdict ({na} vs {nb})")
    for r in rows:
        print(f"{r['scenario']:70s} {r['trains'] or 0:6d} {r.get('identical', 0):9d} "
              f"{r.get('max_diff_ms', 0):11.3g}  {r['verdict']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if bad:
        print("not as expected: " + ", ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

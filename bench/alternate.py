#!/usr/bin/env python3
"""kwarm against kw+rec in alternating rounds, to tell noise from a cost.

    python3 bench/alternate.py [--workload qwen|qwen-late|suite] [--rounds 10] [--ns 2,3] [--scale 0.1]
                               [--before KWARM] [--farm]

Each round runs, at each N, the benchmark's cold warm-ups (bench.py's
kwarm_cold: gen + make -jN warmup, fresh cache): kwarm, then kw+rec (a fresh
cache holding that kwarm run's durations.log), then kwarm again, so each
kw+rec run sits between two first runs. --before K adds a kw+rec run of
another kwarm program K (an older build) on the same record, and the runs
after the first go in a shuffled order. --farm runs the compile-farm form
(bench.py's farm_cold: the stand-in -c through farm_launcher.sh, 8 + 1
slots). Prints each column's median, least and most (makespan / LB), and the
median of kw+rec minus the mean of the two kwarm runs around it; the work
folders are kept (their traces, for bench/trace_idle.py). Binaries as
bench/run.sh: $KWARM, $STANDIN, else build/.
"""

import argparse
import os
import random
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import workloads as wl  # noqa: E402

FARM_SLOTS = 9


def summary(rows, n, cols):
    at = [r for r in rows if r["n"] == n]

    def col(k):
        v = [r[k] for r in at]
        return "%.3f [%.3f, %.3f]" % (statistics.median(v), min(v), max(v))

    def diff(k):
        d = [r[k] - (r["kwarm"] + r["again"]) / 2 for r in at]
        return "%+.4f, not slower in %d" % (statistics.median(d), sum(x <= 0 for x in d))
    return ("N=%d, %d rounds: %s; minus the mean of the two kwarm runs: %s"
            % (n, len(at), ", ".join("%s %s" % (k, col(k)) for k in cols),
               "; ".join("%s %s" % (k, diff(k)) for k in cols if k not in ("kwarm", "again"))))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workload", choices=["qwen", "qwen-late", "suite"], default="qwen")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--ns", default="2,3")
    ap.add_argument("--scale", type=float, default=0.1)
    ap.add_argument("--before", help="another kwarm program: a kw+rec run of it too")
    ap.add_argument("--farm", action="store_true", help="the compile-farm form")
    a = ap.parse_args()
    b = bench.Bench(argparse.Namespace(
        scale=a.scale, src=src, reps=1, scratch=tempfile.mkdtemp(prefix="kwarm-alternate."),
        kwarm=os.environ.get("KWARM", os.path.join(src, "build", "kwarm")),
        standin=os.environ.get("STANDIN", os.path.join(src, "build", "kwarm-standin"))))
    kwarm = b.kwarm
    w = wl.suite() if a.workload == "suite" else wl.qwen(late=a.workload == "qwen-late")
    ns = [int(x) for x in a.ns.split(",")]
    comp = None
    if a.farm:
        comp = {"orch": b.standin, "aiv": b.standin, "aic": b.standin, "flags": ["-O2", "-fPIC", "-c"],
                "launcher": [os.path.join(here, "farm_launcher.sh")], "link": [b.standin]}
    _, spec = b.setup(w, comp)

    def cold(program, n, durations=None):
        b.kwarm = program
        if a.farm:
            secs, cache, _ = b.farm_cold(w, spec, n, FARM_SLOTS, durations)
            return secs, cache
        return b.kwarm_cold(spec, n, durations)

    cols = ["kwarm", "kw+rec", "again"] + (["before"] if a.before else [])
    rows = []
    for i in range(a.rounds):
        for n in ns:
            lb = w.lower_bound(min(n, FARM_SLOTS) if a.farm else n, a.scale)
            first, cache = cold(kwarm, n)
            rec = os.path.join(cache, "durations.log")
            row = {"n": n, "kwarm": first / lb}
            rest = cols[1:]
            if a.before:
                random.Random("%d %d" % (i, n)).shuffle(rest)
            for k in rest:
                program = a.before if k == "before" else kwarm
                row[k] = cold(program, n, None if k == "again" else rec)[0] / lb
            rows.append(row)
            bench.log("round %d N=%d: %s; load %.1f" % (i + 1, n, ", ".join("%s %.3f" % (k, row[k]) for k in cols),
                                                         os.getloadavg()[0]))
    print("%s%s, scale %g, work folders in %s" % (a.workload, " (farm)" if a.farm else "", a.scale, b.scratch))
    for n in ns:
        print(summary(rows, n, cols))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""kwarm against kw+rec in alternating rounds, to tell noise from a cost.

    python3 bench/alternate.py [--workload qwen|qwen-late] [--rounds 10] [--ns 2,3] [--scale 0.1]

Each round runs, at each N, the benchmark's cold warm-ups (bench.py's
kwarm_cold: gen + make -jN warmup, fresh cache): kwarm, then kw+rec (a fresh
cache holding that kwarm run's durations.log), then kwarm again, so each
kw+rec run sits between two first runs. Prints each column's median, least
and most (makespan / LB), and the median of kw+rec minus the mean of the two
kwarm runs around it; the work folders are kept (their traces, for
bench/trace_idle.py). Binaries as bench/run.sh: $KWARM, $STANDIN, else build/.
"""

import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import workloads as wl  # noqa: E402


def summary(rows, n):
    at = [r for r in rows if r["n"] == n]

    def col(k):
        v = [r[k] for r in at]
        return "%.3f [%.3f, %.3f]" % (statistics.median(v), min(v), max(v))
    diff = [r["rec"] - (r["kwarm"] + r["again"]) / 2 for r in at]
    return ("N=%d, %d rounds: kwarm %s, kw+rec %s, kwarm again %s; kw+rec - around: median %+.3f,"
            " not slower in %d" % (n, len(at), col("kwarm"), col("rec"), col("again"),
                                   statistics.median(diff), sum(d <= 0 for d in diff)))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workload", choices=["qwen", "qwen-late"], default="qwen")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--ns", default="2,3")
    ap.add_argument("--scale", type=float, default=0.1)
    a = ap.parse_args()
    b = bench.Bench(argparse.Namespace(
        scale=a.scale, src=src, reps=1, scratch=tempfile.mkdtemp(prefix="kwarm-alternate."),
        kwarm=os.environ.get("KWARM", os.path.join(src, "build", "kwarm")),
        standin=os.environ.get("STANDIN", os.path.join(src, "build", "kwarm-standin"))))
    w = wl.qwen(late=a.workload == "qwen-late")
    ns = [int(x) for x in a.ns.split(",")]
    _, spec = b.setup(w)
    rows = []
    for i in range(a.rounds):
        for n in ns:
            lb = w.lower_bound(n, a.scale)
            first, cache = b.kwarm_cold(spec, n)
            second, _ = b.kwarm_cold(spec, n, os.path.join(cache, "durations.log"))
            again, _ = b.kwarm_cold(spec, n)
            rows.append({"n": n, "kwarm": first / lb, "rec": second / lb, "again": again / lb})
            bench.log("round %d N=%d: kwarm %.3f, kw+rec %.3f, kwarm %.3f; load %.1f"
                      % (i + 1, n, first / lb, second / lb, again / lb, os.getloadavg()[0]))
    print("%s, scale %g, work folders in %s" % (a.workload, a.scale, b.scratch))
    for n in ns:
        print(summary(rows, n))


if __name__ == "__main__":
    main()

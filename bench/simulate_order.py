"""Deterministic makespans of the warm-up's order, without a clock.

For each workload, kwarm gen writes the Makefile twice: with an empty cache
(spec order) and with a durations.log that records every unit's stand-in cost
exactly (history order). The warm-up's prerequisite list of each is then run
through a model of make -jN: one pass down the list, each ready entry waits
for a free slot and starts; a pack whose units still run is passed over until
the pass ends, and then, at each job's end, the passed-over entries are tried
again in list order. Units cost workloads.py's seconds, a pack PACK seconds.

    python3 bench/simulate_order.py [--kwarm K] [--standin S] [--pack 0.1] [--step 0] [--ns 2,3,8]

--step S adds S seconds to every step, unit or pack (kwarm's own work in a
step and make's hand-over: 5-10 ms a step at the bench's scale 0.1, so about
0.05-0.1 in the model's unscaled seconds). With it, orders that tie on exact
costs can differ by the number of steps each slot runs.

Prints one row per workload and N: makespan / LB for both orders, where
LB = max(longest unit, total work / N) as in the benchmark's table.
"""

import argparse
import heapq
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as wl  # noqa: E402

SHAPES = (("qwen", lambda: wl.qwen()), ("qwen-late", lambda: wl.qwen(late=True)),
          ("deepseek", lambda: wl.deepseek()), ("suite", lambda: wl.suite()))
NS = (2, 3, 8)
CMD_LINE = re.compile(r"^KW_CMD_([0-9a-f]{64}) = (.*)$")
UNITS_VAR = re.compile(r"^(KW_UNITS_\S+) :=")
PACK_RULE = re.compile(r"^(\S+\.callable/[0-9a-f]{64}): \$\((KW_UNITS_\S+)\)")


def continued(lines, i):
    """The words of a backslash-continued list starting after lines[i]'s ':'."""
    words = []
    while True:
        line = lines[i].rstrip("\n")
        more = line.endswith("\\")
        words += line.rstrip("\\").split()
        if not more:
            return words
        i += 1


def read_makefile(mk):
    """(warm-up list, {target: [prerequisite units]}, {unit key: (flag, source)})."""
    with open(mk) as f:
        lines = f.readlines()
    cmds, vars_, packs, warmup = {}, {}, {}, None
    for i, line in enumerate(lines):
        m = CMD_LINE.match(line)
        if m:
            words = shlex.split(m.group(2))
            cmd = words[words.index("--") + 1:]
            flag = next(x for x in cmd if x in wl.ROLE_FLAG.values())
            cmds[m.group(1)] = (flag, cmd[-1])
        elif line.startswith("warmup:"):
            warmup = continued(lines, i)[1:]
        elif UNITS_VAR.match(line):
            vars_[UNITS_VAR.match(line).group(1)] = continued(lines, i)[2:]
        elif PACK_RULE.match(line):
            m = PACK_RULE.match(line)
            packs[m.group(1)] = m.group(2)
    deps = {t: vars_[v] for t, v in packs.items()}
    return [w for w in warmup if not w.startswith("warmup-")], deps, cmds


def unit_key(target):
    base = os.path.basename(target)
    return base[:-2] if base.endswith(".m") else None


def simulate(order, deps, cost, n):
    """Makespan of make -jN down order (see the module's comment)."""
    done, running, t = set(), [], 0.0
    passed = []

    def finish_one():
        nonlocal t
        t, target = heapq.heappop(running)
        done.add(target)

    def start(target):
        while len(running) >= n:
            finish_one()
        heapq.heappush(running, (t + cost(target), target))

    for target in order:
        if all(d in done for d in deps.get(target, ())):
            start(target)
        else:
            passed.append(target)
    while passed or running:
        if running:
            finish_one()
        left = []
        for target in passed:
            if all(d in done for d in deps.get(target, ())):
                start(target)
            else:
                left.append(target)
        passed = left
        if passed and not running:
            raise SystemExit("simulate: %s can never start" % passed[0])
    return t


def plan_ids(plan):
    """{unit key: id} from the plan's side file (--key KEY ... --id ID)."""
    with open(plan, "rb") as f:
        words = f.read().decode("utf-8", "replace").split("\n")
    ids, key = {}, None
    for i, w in enumerate(words[:-1]):
        if w == "--key":
            key = words[i + 1]
        elif w == "--id" and key:
            ids[key] = words[i + 1]
    return ids


def shape_rows(kwarm, standin, name, w, d, pack, ns, step=0.0):
    spec = w.write(os.path.join(d, "src"), {"orch": standin, "aiv": standin, "aic": standin})
    costs = {}
    for u in w.units():
        costs[u.key] = w.cost(u)

    def gen(tag, durations=None):
        cache = os.path.join(d, "cache-" + tag)
        mk = os.path.join(d, tag + ".mk")
        os.makedirs(cache)
        if durations:
            with open(os.path.join(cache, "durations.log"), "w") as f:
                f.write(durations)
        subprocess.run([kwarm, "gen", spec, "-o", mk, "--cache", cache, "--out", os.path.join(d, "out")],
                       check=True, stdout=subprocess.DEVNULL)
        return mk

    spec_mk = gen("spec")
    order, deps, cmds = read_makefile(spec_mk)
    ids = plan_ids(spec_mk + ".plan")
    rec = "".join("%.3f\t%s\n" % (costs[cmds[k]], ids[k]) for k in sorted(ids))
    hist_mk = gen("hist", rec)
    rows = []
    for n in ns:
        lb = max(w.longest(), w.total() / n)
        row = [name, n, lb]
        for mk in (spec_mk, hist_mk):
            order, deps, cmds = read_makefile(mk)

            def cost(target):
                key = unit_key(target)
                return (costs[cmds[key]] if key else pack) + step
            row.append(simulate(order, deps, cost, n) / lb)
        rows.append(row)
    return rows


def table(kwarm, standin, pack=0.1, ns=NS, step=0.0):
    """The table's lines."""
    out = ["simulated warm-up (make -jN model, exact stand-in costs, pack %g s%s): makespan / LB"
           % (pack, ", %g s more a step" % step if step else ""),
           "workload    N     LB s |   spec  history"]
    with tempfile.TemporaryDirectory(prefix="kwarm-sim-") as tmp:
        for name, make in SHAPES:
            d = os.path.join(tmp, name)
            for row in shape_rows(kwarm, standin, name, make(), d, pack, ns, step):
                mark = "  history worse" if row[4] > row[3] + 1e-9 else ""
                out.append("%-10s %2d %8.2f | %6.3f   %6.3f%s" % tuple(row + [mark]))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kwarm", default=os.environ.get("KWARM", os.path.join(here, "..", "build", "kwarm")))
    ap.add_argument("--standin", default=os.environ.get("STANDIN", os.path.join(here, "..", "build", "kwarm-standin")))
    ap.add_argument("--pack", type=float, default=0.1, help="a pack's seconds (default 0.1)")
    ap.add_argument("--step", type=float, default=0.0, help="seconds added to every step (default 0)")
    ap.add_argument("--ns", default=",".join(map(str, NS)), help="the -j values (default 2,3,8)")
    a = ap.parse_args()
    ns = tuple(int(x) for x in a.ns.split(","))
    print("\n".join(table(os.path.abspath(a.kwarm), os.path.abspath(a.standin), a.pack, ns, a.step)))


if __name__ == "__main__":
    main()

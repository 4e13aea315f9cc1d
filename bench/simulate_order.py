"""Deterministic makespans of the warm-up's order, without a clock.

For each workload, kwarm gen writes the Makefile twice: with an empty cache
(spec order) and with a durations.log that records every unit's stand-in cost
exactly (history order). The warm-up's prerequisite list of each is then run
through a model of make -jN: one pass down the list, each ready entry waits
for a free slot and starts; a pack whose units still run is passed over until
the pass ends, and then, at each job's end, the passed-over entries are tried
again in list order. Units cost workloads.py's seconds, a pack PACK seconds.

    python3 bench/simulate_order.py [--kwarm K] [--standin S] [--pack 0.1] [--step 0] [--ns 2,3,8]
                                    [--shapes qwen,...] [--noise 0.03 --seeds 10] [--waits]
                                    [--separate-pack] [--bound]

Packs are made by the compile step (packnow.h): the step that publishes
a callable's last missing unit packs it then, in the slot it holds (PACK
seconds more for that step, one PACK per callable it completes), and make's
own pack recipe, which it still starts in its pass order once the units'
steps have ended, finds the callable packed and costs only --step.  With
--step 0 the pack targets' places in the list then cost nothing; with a
step cost, the no-op packs make passed over are small jobs at the end.
--separate-pack models the design before it: every pack is make's own step
of PACK seconds (bench/results/2026-12-02-order.txt used that model).

--step S adds S seconds to every step, unit or pack (kwarm's own work in a
step and make's hand-over: 5-10 ms a step at the bench's scale 0.1, so about
0.05-0.1 in the model's unscaled seconds). With it, orders that tie on exact
costs can differ by the number of steps each slot runs.

--shapes picks the workloads (default qwen, qwen-late, deepseek, suite; also
qwen-pair and suite/K, the suite shrunk K times as bench.py --quick's suite/4).

--noise F --seeds K: the mean over K runs in which every step's cost is
scaled by its own factor in [1 - F, 1 + F] (the same factors for both
orders). With exact costs most of the suite's units cost the same, so which
of them make reaps first (here: the lower target name) decides which packs
make finds ready in its first pass, and figures at the 0.002 level follow
that tie-break, not the order.

--waits adds, per order, the packs' mean wait from their last unit's end to
their start (model seconds) and how many started only after the last unit
had started: packs make passed over in its first pass (issue #13's item 1).

Prints one row per workload and N: makespan / LB for both orders, where
LB = max(longest unit, total work / N) as in the benchmark's table.

--bound adds what no order can beat, over the same LB: every step's cost
(--step each, packs and make's pack steps included) spread evenly over the N
slots, or a callable's longest unit, its pack and the check after, whichever
is more (with --noise the mean of each run's). Where spec order is at it, a
record has nothing to win.
"""

import argparse
import heapq
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as wl  # noqa: E402

SHAPES = {"qwen": lambda: wl.qwen(), "qwen-late": lambda: wl.qwen(late=True),
          "qwen-pair": wl.qwen_pair, "deepseek": lambda: wl.deepseek(), "suite": lambda: wl.suite()}
DEFAULT_SHAPES = ("qwen", "qwen-late", "deepseek", "suite")
NS = (2, 3, 8)
CMD_LINE = re.compile(r"^KW_CMD_([0-9a-f]{64}) = (.*)$")
UNITS_VAR = re.compile(r"^(KW_UNITS_\S+) :=")
PACK_RULE = re.compile(r"^(\S+\.callable/[0-9a-f]{64}): \$\((KW_UNITS_\S+)\)")
# With a record, both lists and the -j values that take spec order (schedule.h).
LIST_VAR = re.compile(r"^(KW_LONGEST|KW_SPEC_ORDER) :=")
PICK = re.compile(r"^warmup: \$\$\(if \$\$\(filter ([^,]*),")


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


def read_makefile(mk, n=None):
    """(warm-up list make -jN goes down, {target: [prerequisite units]}, {unit
    key: (flag, source)})."""
    with open(mk) as f:
        lines = f.readlines()
    cmds, vars_, packs, warmup, lists = {}, {}, {}, None, {}
    for i, line in enumerate(lines):
        m = CMD_LINE.match(line)
        if m:
            words = shlex.split(m.group(2))
            cmd = words[words.index("--") + 1:]
            flag = next((x for x in cmd if x in wl.ROLE_FLAG.values()), None)
            cmds[m.group(1)] = (flag, cmd[-1])
        elif LIST_VAR.match(line):
            lists[LIST_VAR.match(line).group(1)] = continued(lines, i)[2:]
        elif PICK.match(line):
            spec_jobs = PICK.match(line).group(1).split()
            warmup = lists["KW_SPEC_ORDER" if "-j%s" % n in spec_jobs else "KW_LONGEST"]
        elif line.startswith("warmup:"):
            warmup = continued(lines, i)[1:]
        elif UNITS_VAR.match(line):
            vars_[UNITS_VAR.match(line).group(1)] = continued(lines, i)[2:]
        elif PACK_RULE.match(line):
            m = PACK_RULE.match(line)
            packs[m.group(1)] = m.group(2)
    deps = {t: vars_[v] for t, v in packs.items()}
    return expand([w for w in warmup if not w.startswith("warmup-")], deps), deps, cmds


def expand(warmup, deps):
    """The list make goes down: as make does on reaching a pack, its units not
    reached before come first (a list of packs only, kwarm gen's in spec
    order, says its units this way; a whole list has them all before)."""
    order, seen = [], set()
    for w in warmup:
        for u in deps.get(w, []) + [w]:
            if u not in seen:
                seen.add(u)
                order.append(u)
    return order


def unit_key(target):
    base = os.path.basename(target)
    return base[:-2] if base.endswith(".m") else None


def shape(name):
    """The workload of a --shapes name."""
    if name.startswith("suite/"):
        return wl.suite(int(name[len("suite/"):]))
    if name not in SHAPES:
        raise SystemExit("simulate_order: no shape %s" % name)
    return SHAPES[name]()


def simulate(order, deps, cost, n, starts=None, inline=None):
    """Makespan of make -jN down order (see the module's comment); starts,
    when given, gets each target's start time.  inline, when given, is
    {pack target: cost of packing}: the step that publishes a callable's
    last unit packs it then, in its own slot, and make's pack recipe
    costs cost(pack) (a no-op: it finds the callable packed)."""
    done, running, t = set(), [], 0.0
    published, packed, passed = set(), set(), []
    owners = {}
    for p in inline or ():
        for u in deps[p]:
            owners.setdefault(u, []).append(p)

    def push(end, target, phase):
        # Ties: publishes first, then the lower target name.
        heapq.heappush(running, (end, phase, target))

    def publish(target):
        # The unit is in the cache: its step packs every callable it completes.
        published.add(target)
        extra = 0.0
        for p in owners.get(target, ()):
            if p not in packed and all(u in published for u in deps[p]):
                packed.add(p)
                if starts is not None:
                    starts[p] = t + extra
                extra += inline[p]
        return extra

    def finish_one():
        nonlocal t
        while True:
            t, phase, target = heapq.heappop(running)
            if phase:
                done.add(target)
                return
            push(t + publish(target), target, 1)

    def start(target):
        while len(running) >= n:
            finish_one()
        if starts is not None and target not in packed:
            starts[target] = t
        if inline is not None and target in owners:
            push(t + cost(target), target, 0)
        else:
            push(t + cost(target), target, 1)

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


def bound(order, deps, cost, n, inline=None):
    """A lower bound on any order's makespan at -jN: every step's cost (each
    pack's too, in its unit's step or its own) spread evenly over the N
    slots, or the longest callable's chain (its longest unit, its pack, the
    pack step after), whichever is more."""
    units = [t for t in order if t not in deps]
    work = sum(cost(t) for t in units) + sum(cost(p) + (inline[p] if inline else 0) for p in deps)
    chain = max((max(cost(u) for u in deps[p]) + (inline[p] if inline else 0) + cost(p) for p in deps),
                default=0.0)
    return max(work / n, chain, max((cost(t) for t in units), default=0.0))


def plan_ids(plan):
    """{unit key: id} from the plan's unit list (src/plan/planfile.h, format 3:
    "unit <key> <owners> <id>\t<label>\t<packs>" between <list at> and
    <index at>)."""
    with open(plan, "rb") as f:
        data = f.read()
    head = data[:data.index(b"\n")].split()
    if head[:2] != [b"kwarm-plan", b"3"]:
        raise SystemExit("simulate_order: %s is not a kwarm plan of format 3" % plan)
    ids = {}
    for line in data[int(head[2]):int(head[3])].decode("utf-8", "replace").split("\n"):
        if line.startswith("unit "):
            key, _, rest = line[len("unit "):].split(" ", 2)
            ids[key] = rest.split("\t", 1)[0]
    if len(ids) != int(head[4]):
        raise SystemExit("simulate_order: %s: %d unit ids, the header says %s"
                         % (plan, len(ids), head[4].decode()))
    return ids


def factor(noise, seed, target):
    """A target's cost factor in run seed: deterministic, the same for both orders."""
    if not noise:
        return 1.0
    return 1.0 + noise * random.Random("%d %s" % (seed, os.path.basename(target))).uniform(-1.0, 1.0)


def waits(deps, cost, starts):
    """(mean wait of a pack from its last unit's end to its start, packs
    started after the last unit started)."""
    last_unit = max(s for target, s in starts.items() if target not in deps)
    wait = [starts[p] - max(starts[u] + cost(u) for u in units) for p, units in deps.items()]
    return sum(wait) / max(1, len(wait)), sum(starts[p] >= last_unit for p in deps)


def shape_rows(kwarm, standin, name, w, d, pack, ns, step=0.0, noise=0.0, seeds=1, inline=False,
               with_bound=False):
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
    # A unit without an id would leave the record short (or empty: then the
    # history column silently repeats spec order).
    missing = sorted(set(cmds) - set(ids))
    if missing:
        raise SystemExit("simulate_order: %s: no id for unit %s" % (spec_mk, missing[0]))
    rec = "".join("%.3f\t%s\n" % (costs[cmds[k]], ids[k]) for k in sorted(ids))
    hist_mk = gen("hist", rec)
    rows = []
    for n in ns:
        lb = max(w.longest(), w.total() / n)
        row = [name, n, lb]
        extra = []
        least = 0.0
        for mk in (spec_mk, hist_mk):
            order, deps, cmds = read_makefile(mk, n)
            span = wait = late = 0.0
            for seed in range(seeds):
                def cost(target):
                    key = unit_key(target)
                    if not key and inline:
                        return step
                    return (costs[cmds[key]] if key else pack) * factor(noise, seed, target) + step
                starts = {}
                packs = {p: pack * factor(noise, seed, p) for p in deps} if inline else None
                span += simulate(order, deps, cost, n, starts, packs)
                if mk == spec_mk:
                    least += bound(order, deps, cost, n, packs)
                mean, after = waits(deps, cost, starts)
                wait += mean
                late += after
            row.append(span / seeds / lb)
            extra += [wait / seeds, late / seeds]
        if with_bound:
            row.append(least / seeds / lb)
        rows.append(row + extra)
    return rows


def table(kwarm, standin, pack=0.1, ns=NS, step=0.0, shapes=DEFAULT_SHAPES, noise=0.0, seeds=1,
          show_waits=False, inline=True, with_bound=False):
    """The table's lines."""
    costs = ("costs within %g%%, mean of %d runs" % (100 * noise, seeds) if noise
             else "exact stand-in costs")
    out = ["simulated warm-up (make -jN model, %s, pack %g s%s%s): makespan / LB"
           % (costs, pack, " inline" if inline else "", ", %g s more a step" % step if step else ""),
           "workload    N     LB s |   spec  history" + ("    bound" if with_bound else "")
           + (" | spec: wait s late  history: wait s late" if show_waits else "")]
    with tempfile.TemporaryDirectory(prefix="kwarm-sim-") as tmp:
        for name in shapes:
            d = os.path.join(tmp, name.replace("/", "-"))
            for row in shape_rows(kwarm, standin, name, shape(name), d, pack, ns, step, noise, seeds,
                                  inline, with_bound):
                line = "%-10s %2d %8.2f | %6.3f   %6.3f" % tuple(row[:5])
                if with_bound:
                    line += "   %6.3f" % row[5]
                if show_waits:
                    line += " | %12.2f %4.0f %15.2f %4.0f" % tuple(row[5 + with_bound:])
                # As printed: a mean over noisy runs is never exactly equal.
                out.append(line + ("  history worse" if round(row[4], 3) > round(row[3], 3) else ""))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kwarm", default=os.environ.get("KWARM", os.path.join(here, "..", "build", "kwarm")))
    ap.add_argument("--standin", default=os.environ.get("STANDIN", os.path.join(here, "..", "build", "kwarm-standin")))
    ap.add_argument("--pack", type=float, default=0.1, help="a pack's seconds (default 0.1)")
    ap.add_argument("--step", type=float, default=0.0, help="seconds added to every step (default 0)")
    ap.add_argument("--ns", default=",".join(map(str, NS)), help="the -j values (default 2,3,8)")
    ap.add_argument("--shapes", default=",".join(DEFAULT_SHAPES),
                    help="workloads: %s or suite/K (default %s)" % (", ".join(SHAPES), ",".join(DEFAULT_SHAPES)))
    ap.add_argument("--noise", type=float, default=0.0, help="each step's cost within this fraction (default 0)")
    ap.add_argument("--seeds", type=int, default=1, help="runs to average with --noise (default 1)")
    ap.add_argument("--waits", action="store_true", help="the packs' waits and late starts too")
    ap.add_argument("--bound", action="store_true",
                    help="a column of the lower bound any order has (steps, packs and checks included)")
    ap.add_argument("--separate-pack", action="store_true",
                    help="every pack is make's own step (the design before packnow)")
    a = ap.parse_args()
    ns = tuple(int(x) for x in a.ns.split(","))
    print("\n".join(table(os.path.abspath(a.kwarm), os.path.abspath(a.standin), a.pack, ns, a.step,
                           a.shapes.split(","), a.noise, a.seeds if a.noise else 1, a.waits,
                           not a.separate_pack, a.bound)))


if __name__ == "__main__":
    main()

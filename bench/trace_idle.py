#!/usr/bin/env python3
"""Where a warm-up's job slots sat idle, read from its OUT/.kwarm/trace.json.

    bench/trace_idle.py TRACE N [WALL] [--plan MAKEFILE.plan]

N is make's -j; WALL the measured seconds of gen + make (default: the end of
the last slice). The slot-seconds the run had (N x WALL) split into:
  busy    inside a step's slice (compiler, kwarm's own work, pack)
  head    before the first slice starts: gen, make's parse, the first step's start
  middle  from the first slice's start to the last one's: the hand-over between
          one step and the next on a slot (make's reap and fork, kwarm's start
          and exit outside the slice) and any wait on a prerequisite
  tail    after the last slice starts: no step left to start, the slots empty
          one by one (the longest last steps decide it)

Then each pack's wait: its slice's start minus the end of its callable's last
unit's slice. A pack the step of that unit made itself (src/pack/packnow.h:
the usual case; its slice says "by": "compile") follows the unit's slice on
the same slot at once, with no hand-over of make's between them (so it is not
counted as one); a pack left
to make's recipe (a unit of the callable made by another process, say)
waits one hand-over when make finds it ready, and until make's walk down the
warm-up list has started the last unit when the walk passed it over (issue
#13's item 1). Printed: how many packs the unit's step made, how many waited
more than HANDOVER, the mean and the longest wait, and how many started only
after the last unit had started. A callable's units come from
the plan side file gen wrote beside the Makefile (src/plan/planfile.h): by
default the one the run's folder names (OUT/.kwarm/run/<tag>/units).
"""

import argparse
import glob
import hashlib
import json
import os

# A wait longer than this is more than make's reap and start of the pack.
HANDOVER = 0.05


def slices(path):
    with open(path) as f:
        events = json.load(f)
    return [(e["ts"] / 1e6, (e["ts"] + e["dur"]) / 1e6, e.get("cat", ""), e.get("args", {}).get("key"),
             e.get("args", {}).get("by"))
            for e in events if e.get("ph") == "X"]


def busy_between(spans, a, b):
    """Slot-seconds spent inside slices between times a and b."""
    return sum(max(0.0, min(e, b) - max(s, a)) for s, e, _, _, _ in spans)


def plan_units(plan):
    """{callable key: [unit keys]} from the plan's callable sections: each a
    pack description (whose SHA-256 is the callable key; its orch and child
    lines name the units), then 'unit KEY N' records of N lines each."""
    with open(plan, "rb") as f:
        data = f.read()
    head = data[:67].split()
    if head[:1] != [b"kwarm-plan"] or head[1:2] not in ([b"1"], [b"2"], [b"3"]):
        raise SystemExit("trace_idle: %s is not a kwarm plan" % plan)
    lines = data[67:int(head[2])].decode("utf-8", "replace").split("\n")
    units, i = {}, 0
    while i < len(lines) and lines[i]:
        desc = []
        while i < len(lines) and not lines[i].startswith("unit "):
            desc.append(lines[i])
            i += 1
        ckey = hashlib.sha256(("\n".join(desc) + "\n").encode()).hexdigest()
        units[ckey] = [ln.split()[1] if ln.startswith("orch ") else ln.split()[2]
                       for ln in desc if ln.startswith(("orch ", "child "))]
        while i < len(lines) and lines[i].startswith("unit "):
            i += 1 + int(lines[i].split()[2])
    return units


def run_plan(trace):
    """The plan the trace's run read, when its OUT/.kwarm names one."""
    paths = set()
    for f in glob.glob(os.path.join(os.path.dirname(trace), "run", "*", "units")):
        with open(f) as fh:
            paths.add(fh.read().strip())
    return paths.pop() if len(paths) == 1 else None


def pack_waits(spans, plan):
    """Each pack's wait after its last unit's end, for the packs whose units
    all have a slice in the trace, and how many packs the step of their last
    unit made itself (src/pack/packnow.h; its slice says "by": "compile")."""
    units = plan_units(plan)
    ends = {key: e for _, e, cat, key, _ in spans if cat == "compile"}
    waits = []
    inline = sum(1 for _, _, cat, _, by in spans if cat == "pack" and by == "compile")
    for s, _, cat, key, _ in spans:
        if cat != "pack":
            continue
        if key not in units:
            raise SystemExit("trace_idle: pack %s is not in %s" % (key, plan))
        if all(u in ends for u in units[key]):
            waits.append(s - max(ends[u] for u in units[key]))
    return waits, inline


def idle(path, n, wall=None, plan=None):
    spans = slices(path)
    if not spans:
        raise SystemExit("trace_idle: no slices in %s" % path)
    end = max(e for _, e, _, _, _ in spans)
    wall = max(wall or end, end)
    first = min(s for s, _, _, _, _ in spans)
    last_start = max(s for s, _, _, _, _ in spans)
    compiles = [sp for sp in spans if sp[2] == "compile"]
    packs = [sp for sp in spans if sp[2] == "pack"]
    last_compile_end = max((sp[1] for sp in compiles), default=0.0)
    last_compile_start = max((sp[0] for sp in compiles), default=0.0)
    middle = n * (last_start - first) - busy_between(spans, first, last_start)
    plan = plan or run_plan(path)
    waits, inline = pack_waits(spans, plan) if plan and packs else \
        ([], sum(1 for sp in packs if sp[4] == "compile"))
    return {
        "n": n, "wall": wall, "steps": len(spans),
        "busy": sum(e - s for s, e, _, _, _ in spans),
        "head": n * first,
        "middle": middle,
        "tail": n * (wall - last_start) - busy_between(spans, last_start, wall),
        # An inline pack's slice follows its unit's in the same process.
        "handover_ms": 1000 * middle / max(1, len(spans) - n - inline),
        "inline": inline,
        "first_pack": min((sp[0] for sp in packs), default=None),
        "packs_after_compiles": sum(1 for sp in packs if sp[0] >= last_compile_end),
        "packs": len(packs),
        "last_compile_end": last_compile_end,
        "last_compile_start": last_compile_start,
        "packs_after_last_start": sum(1 for sp in packs if sp[0] >= last_compile_start),
        "waits": len(waits),
        "waited": sum(1 for w in waits if w > HANDOVER),
        "wait_mean": sum(waits) / len(waits) if waits else None,
        "wait_max": max(waits, default=None),
    }


def describe(r):
    total = r["n"] * r["wall"]
    pct = lambda x: 100.0 * x / total  # noqa: E731
    lines = [
        "%d steps on %d slots, %.2f s: %.1f slot-s, busy %.1f%%"
        % (r["steps"], r["n"], r["wall"], total, pct(r["busy"])),
        "  idle: head %.2f slot-s (%.1f%%), middle %.2f (%.1f%%, %.0f ms per hand-over), tail %.2f (%.1f%%)"
        % (r["head"], pct(r["head"]), r["middle"], pct(r["middle"]), r["handover_ms"],
           r["tail"], pct(r["tail"])),
    ]
    if r["packs"]:
        lines.append("  packs: %d, the first at %.2f s, %d started after the last compile ended (%.2f s),"
                     " %d after the last compile started (%.2f s)"
                     % (r["packs"], r["first_pack"], r["packs_after_compiles"], r["last_compile_end"],
                        r["packs_after_last_start"], r["last_compile_start"]))
    if r["waits"]:
        lines.append("  pack waits after the last unit's end (%d packs; %d made by that unit's step):"
                     " %d over %.0f ms, mean %.2f s, longest %.2f s"
                     % (r["waits"], r["inline"], r["waited"], 1000 * HANDOVER, r["wait_mean"], r["wait_max"]))
    return "\n".join(lines)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("n", type=int)
    ap.add_argument("wall", type=float, nargs="?")
    ap.add_argument("--plan", help="the Makefile's MAKEFILE.plan (default: the one the run's folder names)")
    a = ap.parse_args()
    print(describe(idle(a.trace, a.n, a.wall, a.plan)))

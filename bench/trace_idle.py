#!/usr/bin/env python3
"""Where a warm-up's job slots sat idle, read from its OUT/.kwarm/trace.json.

    bench/trace_idle.py TRACE N [WALL]

N is make's -j; WALL the measured seconds of gen + make (default: the end of
the last slice). The slot-seconds the run had (N x WALL) split into:
  busy    inside a step's slice (compiler, kwarm's own work, pack)
  head    before the first slice starts: gen, make's parse, the first step's start
  middle  from the first slice's start to the last one's: the hand-over between
          one step and the next on a slot (make's reap and fork, kwarm's start
          and exit outside the slice) and any wait on a prerequisite
  tail    after the last slice starts: no step left to start, the slots empty
          one by one (the longest last steps decide it)
"""

import json
import sys


def slices(path):
    with open(path) as f:
        events = json.load(f)
    return [(e["ts"] / 1e6, (e["ts"] + e["dur"]) / 1e6, e.get("cat", ""))
            for e in events if e.get("ph") == "X"]


def busy_between(spans, a, b):
    """Slot-seconds spent inside slices between times a and b."""
    return sum(max(0.0, min(e, b) - max(s, a)) for s, e, _ in spans)


def idle(path, n, wall=None):
    spans = slices(path)
    if not spans:
        raise SystemExit("trace_idle: no slices in %s" % path)
    end = max(e for _, e, _ in spans)
    wall = max(wall or end, end)
    first = min(s for s, _, _ in spans)
    last_start = max(s for s, _, _ in spans)
    compiles = [sp for sp in spans if sp[2] == "compile"]
    packs = [sp for sp in spans if sp[2] == "pack"]
    last_compile_end = max((e for _, e, _ in compiles), default=0.0)
    middle = n * (last_start - first) - busy_between(spans, first, last_start)
    return {
        "n": n, "wall": wall, "steps": len(spans),
        "busy": sum(e - s for s, e, _ in spans),
        "head": n * first,
        "middle": middle,
        "tail": n * (wall - last_start) - busy_between(spans, last_start, wall),
        "handover_ms": 1000 * middle / max(1, len(spans) - n),
        "first_pack": min((s for s, _, _ in packs), default=None),
        "packs_after_compiles": sum(1 for s, _, _ in packs if s >= last_compile_end),
        "packs": len(packs),
        "last_compile_end": last_compile_end,
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
        lines.append("  packs: %d, the first at %.2f s, %d started after the last compile ended (%.2f s)"
                     % (r["packs"], r["first_pack"], r["packs_after_compiles"], r["last_compile_end"]))
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__.strip().splitlines()[2].strip())
    print(describe(idle(sys.argv[1], int(sys.argv[2]),
                        float(sys.argv[3]) if len(sys.argv) == 4 else None)))

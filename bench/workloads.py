"""The benchmark's workloads (../shared/WORKLOADS.md), written as kwarm specs.

A workload is a list of classes; each class holds callables; each callable an
orchestration unit and its incore units in CoreCallable order. A unit is
(role, source): role "orch", "aiv" or "aic" picks the toolchain, whose flags
carry a role macro (-DKW_ORCH, -D__DAV_VEC__, -D__DAV_CUBE__), so the pair
names one distinct compile. Every source declares its stand-in cost with a
`// kwarm-cost: S` line (and `// kwarm-cost(__DAV_VEC__): S` where the AIV
half of a mixed source costs more).
"""

import os
import random

ROLE_FLAG = {"orch": "-DKW_ORCH", "aiv": "-D__DAV_VEC__", "aic": "-D__DAV_CUBE__"}

INCORE = 1.2       # an ordinary incore, seconds
ORCH = 6.6         # the qwen orchestration
FUSED_AIV = 8.4    # the fused-attention AIV half


class Unit:
    def __init__(self, role, source, name=None):
        self.role, self.source = role, source
        self.name = name or os.path.splitext(os.path.basename(source))[0]

    @property
    def key(self):
        return (ROLE_FLAG[self.role], self.source)


class Callable:
    def __init__(self, name, orch, incores):
        self.name, self.orch, self.incores = name, orch, incores


class Class:
    def __init__(self, name, callables, level=2, runtime="tensormap_and_ringbuffer"):
        self.name, self.callables, self.level, self.runtime = name, callables, level, runtime


class Workload:
    """Classes plus the cost of every source: costs[src] = (base, vec or None)."""

    def __init__(self, name, classes, costs, header=False):
        self.name, self.classes, self.costs, self.header = name, classes, costs, header

    def units(self):
        """Distinct units in spec order (first use)."""
        seen, out = set(), []
        for c in self.classes:
            for cal in c.callables:
                for u in [cal.orch] + cal.incores:
                    if u.key not in seen:
                        seen.add(u.key)
                        out.append(u)
        return out

    def cost(self, u):
        base, vec = self.costs[u.source]
        return vec if (u.role == "aiv" and vec is not None) else base

    def total(self):
        return sum(self.cost(u) for u in self.units())

    def longest(self):
        return max(self.cost(u) for u in self.units())

    def lower_bound(self, n, scale):
        """LB(N) = max(longest unit, total work / N), scaled."""
        return max(self.longest(), self.total() / n) * scale

    def write(self, root, compilers):
        """Write spec.yaml and every source under root; returns the spec path.
        compilers: {"orch": argv0, "aiv": argv0, "aic": argv0}; extra flags
        (e.g. ["-c"] for real compiles) come from compilers["flags"], and
        every role gets compilers["launcher"] and compilers["link"] (argv
        lists: the two-step form of a compile farm) where given."""
        os.makedirs(os.path.join(root, "include"), exist_ok=True)
        with open(os.path.join(root, "include", "common.h"), "w") as f:
            f.write("/* shared by every source */\n#define KW_COMMON 1\n")
        made = set()
        for src, (base, vec) in self.costs.items():
            d = os.path.dirname(os.path.join(root, src))
            if d not in made:
                os.makedirs(d, exist_ok=True)
                made.add(d)
            sym = "".join(ch if ch.isalnum() else "_" for ch in src)
            lines = ["// %s: benchmark source" % src, "// kwarm-cost: %g" % base]
            if vec is not None:
                lines.append("// kwarm-cost(__DAV_VEC__): %g" % vec)
            if self.header:
                lines.append('#include "common.h"')
            lines.append("int %s(int x) { return x + %d; }" % (sym, len(src)))
            with open(os.path.join(root, src), "w") as f:
                f.write("\n".join(lines) + "\n")
        flags = compilers.get("flags", ["-O2", "-fPIC", "-shared"])
        y = ["version: 1", "platform: a5sim", "root: .", "", "toolchains:"]

        def chain(role):
            extra = "".join(", %s: [%s]" % (k, ", ".join(compilers[k]))
                            for k in ("launcher", "link") if compilers.get(k))
            return "{compiler: %s, flags: [%s], include_dirs: [include]%s}" % (
                compilers[role], ", ".join(flags + [ROLE_FLAG[role]]), extra)
        y.append("  orchestration: " + chain("orch"))
        y.append("  incore:")
        y.append("    aiv: " + chain("aiv"))
        y.append("    aic: " + chain("aic"))
        y.append("classes:")
        for c in self.classes:
            y.append("  - name: %s" % c.name)
            y.append("    runtime: %s" % c.runtime)
            if c.level == 2:
                y.append("    callable:")
                y.extend(callable_yaml(c.callables[0], "      "))
            else:
                y.append("    callables:")
                for cal in c.callables:
                    y.append("      - name: %s" % cal.name)
                    y.extend(callable_yaml(cal, "        "))
        spec = os.path.join(root, "spec.yaml")
        with open(spec, "w") as f:
            f.write("\n".join(y) + "\n")
        return spec


def callable_yaml(cal, ind):
    y = [ind + "orchestration: {source: %s, function_name: entry}" % cal.orch.source,
         ind + "incores:"]
    for i, u in enumerate(cal.incores):
        y.append(ind + "  - {func_id: %d, name: %s, source: %s, core_type: %s}"
                 % (i, u.name, u.source, u.role))
    return y


def qwen_incores(costs, late=False):
    """37 incores from 36 files: the 12th and 13th are the AIC and AIV halves
    of kernels/mix/fused_attention.cpp; the AIV half costs 8.4 s. With late,
    the AIV half moves to the end of the list."""
    out = []
    for i in range(35):
        role = "aic" if i % 3 == 2 else "aiv"
        src = "kernels/%s/k%02d.cpp" % (role, i)
        costs[src] = (INCORE, None)
        out.append(Unit(role, src))
    fused = "kernels/mix/fused_attention.cpp"
    costs[fused] = (INCORE, FUSED_AIV)
    aic = Unit("aic", fused, "fused_attention_aic")
    aiv = Unit("aiv", fused, "fused_attention_aiv")
    out[11:11] = [aic, aiv]
    if late:
        out.remove(aiv)
        out.append(aiv)
    return out


def qwen(late=False):
    costs = {}
    incores = qwen_incores(costs, late)
    orch = "kernels/orchestration/qwen3_decode_orch.cpp"
    costs[orch] = (ORCH, None)
    c = Class("TestQwen3Decode", [Callable("decode", Unit("orch", orch), incores)])
    return Workload("qwen-late" if late else "qwen", [c], costs)


def qwen_pair():
    costs = {}
    incores = qwen_incores(costs)
    classes = []
    for name, runtime, orch in (
            ("TestQwen3Decode", "tensormap_and_ringbuffer", "kernels/orchestration/decode_orch.cpp"),
            ("TestQwen3DecodeGraph", "host_build_graph", "kernels/orchestration/graph_orch.cpp")):
        costs[orch] = (ORCH, None)
        classes.append(Class(name, [Callable("decode", Unit("orch", orch), list(incores))],
                             runtime=runtime))
    return Workload("qwen-pair", classes, costs)


def deepseek(incores=368):
    costs = {}
    orch = "kernels/orchestration/deepseek_orch.cpp"
    costs[orch] = (INCORE, None)
    units = []
    for i in range(incores):
        role = "aic" if i % 4 == 3 else "aiv"
        src = "kernels/%s/ds%03d.cpp" % (role, i)
        costs[src] = (INCORE, None)
        units.append(Unit(role, src))
    c = Class("TestDeepSeekV3", [Callable("decode", Unit("orch", orch), units)], level=3)
    return Workload("deepseek", [c], costs)


# Callables per incore count in the scene-test suite (213 callables).
SUITE_HISTOGRAM = [(1, 73), (2, 35), (3, 59), (4, 36), (5, 4), (37, 4), (368, 2)]


def suite(shrink=1):
    """173 classes (136 level 2, 37 level 3), 213 callables, 620 distinct
    incore sources: the two 368-incore callables share one set, the four
    37-incore ones are qwen's set, the small callables draw from a pool of 216
    sources shared by up to 15 callables. With shrink > 1 every count is
    divided (a quicker run of the same shape)."""
    rng = random.Random(20240605)
    costs = {}
    big = 368 // shrink
    big_set = []
    for i in range(big):
        role = "aic" if i % 4 == 3 else "aiv"
        src = "kernels/ds/%s%03d.cpp" % (role, i)
        costs[src] = (INCORE, None)
        big_set.append(Unit(role, src))
    qwen_set = qwen_incores(costs)
    pool = []
    for i in range(216 // shrink):
        role = "aic" if i % 3 == 0 else "aiv"
        src = "kernels/pool/p%03d.cpp" % i
        costs[src] = (INCORE, None)
        pool.append(Unit(role, src))
    shapes = []
    for count, callables in SUITE_HISTOGRAM:
        n = max(1, callables // shrink)
        shapes += [count] * n
    rng.shuffle(shapes)
    uses = {u.source: 0 for u in pool}
    unused = list(pool)
    rng.shuffle(unused)
    callables = []
    for i, count in enumerate(shapes):
        orch = "kernels/orch/o%03d.cpp" % i
        costs[orch] = (ORCH if count >= 37 else INCORE, None)
        if count == 368:
            incores = list(big_set)
        elif count == 37:
            incores = list(qwen_set)
        else:
            incores = []
            while len(incores) < count:
                # Every pool source is used at least once, then at most 15 times.
                u = unused.pop() if unused else rng.choice(pool)
                if u in incores or uses[u.source] >= 15:
                    continue
                uses[u.source] += 1
                incores.append(u)
        callables.append(Callable("c%03d" % i, Unit("orch", orch), incores))
    # 136 level-2 classes take one callable each, 37 level-3 classes the rest.
    n_l2 = max(1, 136 // shrink)
    n_l3 = max(1, 37 // shrink)
    classes = [Class("TestSuiteL2_%03d" % i, [callables[i]]) for i in range(n_l2)]
    rest = callables[n_l2:]
    for j in range(n_l3):
        part = rest[j::n_l3]
        if part:
            classes.append(Class("TestSuiteL3_%03d" % j, part, level=3))
    return Workload("suite", classes, costs)


def synthetic(units, per_class=10):
    """units compile units in classes of one orchestration plus per_class - 1
    incores, every source distinct and including one shared header."""
    costs, classes = {}, []
    for c in range(units // per_class):
        d = "kernels/c%05d" % c
        orch = "%s/orch.cpp" % d
        costs[orch] = (INCORE, None)
        incores = []
        for i in range(per_class - 1):
            role = "aic" if i % 3 == 2 else "aiv"
            src = "%s/u%d.cpp" % (d, i)
            costs[src] = (INCORE, None)
            incores.append(Unit(role, src))
        classes.append(Class("TestScale%05d" % c, [Callable("c", Unit("orch", orch), incores)]))
    return Workload("scale-%d" % units, classes, costs, header=True)


def tiny(units, per_class=100):
    """units trivial C files for real compiles (the per-unit overhead)."""
    w = synthetic(units, min(per_class, units))
    w.name = "tiny-%d" % units
    return w


def write_real_closure(src, units=38, shared=130, own=3):
    """WORKLOADS.md's "real closure": units .cpp files under src/k, each
    including pto/include/pto.h (an umbrella over shared headers of ~7.7 KB,
    ~1 MB together), own headers of its own and a few standard headers; a
    spec (host g++, -O0) with one class. Returns the spec's path."""
    inc = os.path.join(src, "pto", "include")
    os.makedirs(inc)
    os.makedirs(os.path.join(src, "k", "own"))
    filler = "".join("// %s\n" % ("x" * 70) for _ in range(100))
    with open(os.path.join(inc, "pto.h"), "w") as f:
        f.write("#pragma once\n" + "".join('#include "pto_%03d.h"\n' % i for i in range(shared)))
    for i in range(shared):
        with open(os.path.join(inc, "pto_%03d.h" % i), "w") as f:
            f.write("#pragma once\ninline int pto_%03d(int x) { return x + %d; }\n%s" % (i, i, filler))
    sources = []
    for u in range(units):
        name = "orch" if u == 0 else "u%02d" % u
        for j in range(own):
            with open(os.path.join(src, "k", "own", "%s_%d.h" % (name, j)), "w") as f:
                f.write("#pragma once\n#define %s_%d %d\n" % (name.upper(), j, j))
        with open(os.path.join(src, "k", name + ".cpp"), "w") as f:
            f.write('#include "pto.h"\n' + "".join('#include "own/%s_%d.h"\n' % (name, j) for j in range(own))
                    + "#include <vector>\n#include <cstring>\n#include <cstdint>\n#include <algorithm>\n"
                    + 'extern "C" int f_%s(void) { std::vector<int> v{1}; return pto_001(v[0]); }\n' % name)
        sources.append("k/%s.cpp" % name)
    tc = "{compiler: g++, flags: [-O0, -fPIC, -shared], include_dirs: [pto/include]}"
    lines = ["version: 1", "platform: a5sim", "toolchains:", "  orchestration: " + tc,
             "  incore:", "    aiv: " + tc, "classes:", "  - name: TestClosure", "    callable:",
             "      orchestration: {source: %s, function_name: e}" % sources[0], "      incores:"]
    for i, s in enumerate(sources[1:]):
        lines.append("        - {func_id: %d, source: %s, core_type: aiv}" % (i, s))
    spec = os.path.join(src, "spec.yaml")
    with open(spec, "w") as f:
        f.write("\n".join(lines) + "\n")
    return spec

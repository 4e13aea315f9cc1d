#!/usr/bin/env python3
"""kwarm benchmark: see bench/README.md. Run through bench/run.sh."""

import argparse
import concurrent.futures
import datetime
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import distccd  # noqa: E402
import trace_idle  # noqa: E402
import simulate_order  # noqa: E402
import workloads as wl  # noqa: E402

# A unit's own words in the generated Makefile: KW_CMD_<key> = WORDS (gen/makefile.c).
UNIT_LINE = re.compile(r"^KW_CMD_[0-9a-f]{64} = ")


def unit_lines(mk):
    """The words of each unit line of a generated Makefile, in file order."""
    with open(mk) as f:
        return [shlex.split(line[m.end():]) for line in f for m in [UNIT_LINE.match(line)] if m]

# A row whose LB is under SHORT_LB seconds runs each column SHORT_RUNS times,
# in rounds (every column once a round), and shows each column's median: one
# run of a few seconds is within a shared machine's noise.
SHORT_LB, SHORT_RUNS = 5.0, 3


def runs_for(lb):
    return SHORT_RUNS if lb < SHORT_LB else 1


# The modelled farm: DISTCC_HOSTS='localhost/FARM_LOCAL farm/FARM_REMOTE'.
FARM_REMOTE, FARM_LOCAL = 8, 1
DISTCC_VARS = ("DISTCC_HOSTS", "DISTCC_FALLBACK", "DISTCC_DIR", "DISTCC_VERBOSE",
               "DISTCC_SAVE_TEMPS", "DISTCC_SKIP_LOCAL_RETRY")


def makefile_root(mk):
    """The folder a generated Makefile's compiles run in (its KW_ROOT)."""
    with open(mk) as f:
        for line in f:
            if line.startswith("KW_ROOT := "):
                return shlex.split(line[len("KW_ROOT := "):])[0]
    raise SystemExit("bench: no KW_ROOT in %s" % mk)


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


class Bench:
    def __init__(self, args):
        self.a = args
        self.kwarm = os.path.abspath(args.kwarm)
        self.standin = os.path.abspath(args.standin)
        self.scratch = args.scratch
        self.cpu_total = 0.0	# CPU seconds of every run so far, descendants included
        self.cpu_user = self.cpu_sys = 0.0	# the same, user and kernel apart
        self.env = dict(os.environ)
        for k in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "KWARM_CACHE", "STANDIN_LOG", "FARM_SLOTS") + DISTCC_VARS:
            self.env.pop(k, None)
        self.env["STANDIN_SCALE"] = repr(args.scale)
        self.ninja = shutil.which("ninja")
        self.ccache = shutil.which("ccache")
        self.seq = 0
        self.closure_row = None

    def fresh(self, name):
        self.seq += 1
        d = os.path.join(self.scratch, "%03d-%s" % (self.seq, name))
        os.makedirs(d)
        return d

    def run(self, argv, cwd=None, log_name=None, ok=(0,)):
        """Run argv to completion; returns (seconds, peak RSS KiB, status)."""
        out = open(log_name, "wb") if log_name else subprocess.DEVNULL
        t0 = time.monotonic()
        p = subprocess.Popen(argv, cwd=cwd, env=self.env, stdout=out, stderr=subprocess.STDOUT)
        _, status, ru = os.wait4(p.pid, 0)
        dt = time.monotonic() - t0
        # wait4's figures include the descendants the child waited for.
        self.cpu_total += ru.ru_utime + ru.ru_stime
        self.cpu_user += ru.ru_utime
        self.cpu_sys += ru.ru_stime
        p.returncode = os.waitstatus_to_exitcode(status)
        if log_name:
            out.close()
        if p.returncode not in ok:
            tail = ""
            if log_name:
                tail = open(log_name, errors="replace").read()[-2000:]
            raise SystemExit("bench: %s failed (status %d) in %s\n%s"
                             % (" ".join(argv[:4]), p.returncode, cwd or ".", tail))
        return dt, ru.ru_maxrss, p.returncode

    # ---- workloads and their unit commands

    def setup(self, w, compilers=None, flags=None):
        """Write w under a fresh folder; returns (folder, spec)."""
        d = self.fresh(w.name)
        comp = compilers or {"orch": self.standin, "aiv": self.standin, "aic": self.standin}
        if flags is not None:
            comp = dict(comp, flags=flags)
        spec = w.write(os.path.join(d, "src"), comp)
        return d, spec

    def gen(self, spec, mk, cache, out, extra=()):
        return self.run([self.kwarm, "gen", spec, "-o", mk, "--cache", cache, "--out", out] + list(extra),
                        log_name=mk + ".gen.log")

    def commands(self, w, mk):
        """The unit commands of the generated Makefile, in spec order: a list of
        (cwd, argv with '{out}' as the output placeholder)."""
        by_key = {}
        root = makefile_root(mk)
        for words in unit_lines(mk):
            cmd = words[words.index("--") + 1:]
            flag = next(x for x in cmd if x in wl.ROLE_FLAG.values())
            by_key[(flag, cmd[-1])] = (root, cmd)
        units = w.units()
        if len(by_key) != len(units):
            raise SystemExit("bench: %s has %d unit recipes, the workload %d units"
                             % (mk, len(by_key), len(units)))
        return [by_key[u.key] for u in units]

    # ---- the schedulers

    def kwarm_cold(self, spec, n, durations=None, gen_args=()):
        """gen + make -jN warmup with a fresh cache; returns (seconds, cache).
        durations: a durations.log to seed the fresh cache with; gen_args:
        more arguments of kwarm gen."""
        d = self.fresh("kwarm-j%d" % n)
        cache, out, mk = os.path.join(d, "cache"), os.path.join(d, "out"), os.path.join(d, "warmup.mk")
        if durations:
            os.makedirs(cache)
            shutil.copy(durations, os.path.join(cache, "durations.log"))
        t0 = time.monotonic()
        self.gen(spec, mk, cache, out, gen_args)
        self.run(["make", "-f", mk, "-j%d" % n, "warmup"], log_name=os.path.join(d, "make.log"))
        return time.monotonic() - t0, cache

    @staticmethod
    def argv(cmd, out):
        return [out if x == "{out}" else x for x in cmd]

    def serial(self, cmds):
        d = self.fresh("serial")
        t0 = time.monotonic()
        for i, (root, cmd) in enumerate(cmds):
            self.run(self.argv(cmd, os.path.join(d, "u%05d" % i)), cwd=root)
        return time.monotonic() - t0

    def pool(self, cmds, n):
        """A flat pool of n workers fed in spec order (the suite's scheme)."""
        d = self.fresh("pool-j%d" % n)
        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max_workers=n) as ex:
            futs = [ex.submit(self.run, self.argv(cmd, os.path.join(d, "u%05d" % i)), root)
                    for i, (root, cmd) in enumerate(cmds)]
            for f in futs:
                f.result()
        return time.monotonic() - t0

    def xargs(self, cmds, n):
        d = self.fresh("xargs-j%d" % n)
        lst = os.path.join(d, "commands")
        with open(lst, "wb") as f:
            for i, (root, cmd) in enumerate(cmds):
                line = "cd %s && exec %s" % (shlex.quote(root),
                                             shlex.join(self.argv(cmd, os.path.join(d, "u%05d" % i))))
                f.write(line.encode() + b"\0")
        t0 = time.monotonic()
        self.run(["sh", "-c", "xargs -0 -n 1 -P %d sh -c < %s" % (n, shlex.quote(lst))])
        return time.monotonic() - t0

    def write_ninja(self, cmds, d):
        def esc(p):
            return re.sub(r"([$ :])", r"$\1", p)
        lines = ["rule unit", "  command = cd $root && $cmd", "  description = $out", ""]
        for i, (root, cmd) in enumerate(cmds):
            out = os.path.join(d, "out", "u%05d" % i)
            src = os.path.join(root, cmd[-1])
            lines.append("build %s: unit %s" % (esc(out), esc(src)))
            lines.append("  root = %s" % shlex.quote(root).replace("$", "$$"))
            lines.append("  cmd = %s" % shlex.join(self.argv(cmd, out)).replace("$", "$$"))
        with open(os.path.join(d, "build.ninja"), "w") as f:
            f.write("\n".join(lines) + "\n")

    def ninja_run(self, cmds, n):
        """ninja -jN on an equivalent build.ninja; returns (seconds, folder)."""
        d = self.fresh("ninja-j%d" % n)
        self.write_ninja(cmds, d)
        dt, _, _ = self.run([self.ninja, "-C", d, "-j%d" % n], log_name=os.path.join(d, "ninja.out"))
        return dt, d

    # ---- the figures

    def makespans(self, w, ns):
        """Cold makespan / LB(N) of every scheduler; one row per N. A short
        row (runs_for) shows each column's median of its rounds."""
        log("%s: %d units, %.1f s of work, longest %.1f s" % (w.name, len(w.units()), w.total(), w.longest()))
        d, spec = self.setup(w)
        mk = os.path.join(d, "probe.mk")
        self.gen(spec, mk, os.path.join(d, "probe-cache"), os.path.join(d, "probe-out"))
        cmds = self.commands(w, mk)
        # One loop for every row: as many runs as its shortest row has.
        serial = statistics.median(self.serial(cmds)
                                   for _ in range(max(runs_for(w.lower_bound(n, self.a.scale)) for n in ns)))
        rows = []
        for n in ns:
            lb = w.lower_bound(n, self.a.scale)
            got = {"kwarm": [], "kwarm_rec": [], "pool": [], "xargs": [], "ninja": []}
            recorded = True
            for _ in range(runs_for(lb)):
                first, cache = self.kwarm_cold(spec, n)
                rec = os.path.join(cache, "durations.log")
                recorded = recorded and os.path.exists(rec)
                second, cache2 = self.kwarm_cold(spec, n, rec if os.path.exists(rec) else None)
                got["kwarm"].append(first)
                got["kwarm_rec"].append(second)
                got["pool"].append(self.pool(cmds, n))
                got["xargs"].append(self.xargs(cmds, n))
                if self.ninja:
                    got["ninja"].append(self.ninja_run(cmds, n)[0])
            row = {"workload": w.name, "n": n, "lb": lb, "runs": runs_for(lb), "recorded": recorded,
                   "serial": serial / lb}
            for col, secs in got.items():
                row[col] = statistics.median(secs) / lb if secs else None
            if w.name.startswith("suite"):
                # Where its slots sat idle, for issue #13's note on the suite.
                row["idle"] = [(name, trace_idle.idle(trace_of(c), n, secs, plan_of(c)))
                               for name, secs, c in (("kwarm", first, cache), ("kw+rec", second, cache2))]
            log("  N=%d LB %.2f s%s: kwarm %.2f, with record %.2f, pool %.2f, xargs %.2f, ninja %s"
                % (n, lb, ", medians of %d" % row["runs"] if row["runs"] > 1 else "", row["kwarm"],
                   row["kwarm_rec"], row["pool"], row["xargs"], "%.2f" % row["ninja"] if self.ninja else "n/a"))
            rows.append(row)
        return rows

    # ---- compile farms

    def farm(self, w, ns, slots, record=True):
        """The two-step form (stand-in -c through bench/farm_launcher.sh
        holding one of `slots` farm slots, stand-in link run locally): cold
        makespan / LB over min(N, slots) slots, first run and with a record,
        and the most compiles seen running at once; one row per N. Without
        record, no second run (kw+rec shows n/a)."""
        log("farm %s: %d units, %d slots, N = %s" % (w.name, len(w.units()), slots,
                                                     ", ".join(map(str, ns))))
        launcher = os.path.join(self.a.src, "bench", "farm_launcher.sh")
        comp = {"orch": self.standin, "aiv": self.standin, "aic": self.standin,
                "flags": ["-O2", "-fPIC", "-c"], "launcher": [launcher], "link": [self.standin]}
        _, spec = self.setup(w, comp)
        rows = []
        for n in ns:
            used = min(n, slots)
            lb = w.lower_bound(used, self.a.scale)
            firsts, seconds, peak, recorded = [], [], 0, True
            for _ in range(runs_for(lb)):
                first, cache, p1 = self.farm_cold(w, spec, n, slots)
                rec = os.path.join(cache, "durations.log")
                recorded = recorded and os.path.exists(rec)
                firsts.append(first)
                peak = max(peak, p1)
                if record:
                    second, _, p2 = self.farm_cold(w, spec, n, slots, rec if os.path.exists(rec) else None)
                    seconds.append(second)
                    peak = max(peak, p2)
            wall = statistics.median(firsts)
            row = {"workload": w.name, "n": n, "slots": used, "lb": lb, "wall": wall, "runs": runs_for(lb),
                   "kwarm": wall / lb, "kwarm_rec": statistics.median(seconds) / lb if record else None,
                   "recorded": recorded, "peak": peak}
            log("  N=%d (%d slots) LB %.2f s%s: kwarm %.2f s = %.2f LB, with record %s LB, peak %d compiles"
                % (n, used, lb, ", medians of %d" % row["runs"] if row["runs"] > 1 else "", wall, row["kwarm"],
                   "%.2f" % row["kwarm_rec"] if record else "n/a", row["peak"]))
            rows.append(row)
        return rows

    def farm_cold(self, w, spec, n, slots, durations=None):
        """One cold farm run at -jN; returns (seconds, cache, peak compiles)."""
        d = self.fresh("farm-slots-j%d" % n)
        fifo, slog = os.path.join(d, "slots"), os.path.join(d, "standin.log")
        os.mkfifo(fifo)
        fd = os.open(fifo, os.O_RDWR)
        try:
            os.write(fd, b"s" * slots)
            self.env["FARM_SLOTS"], self.env["STANDIN_LOG"] = fifo, slog
            dt, cache = self.kwarm_cold(spec, n, durations)
            os.set_blocking(fd, False)
            try:
                back = len(os.read(fd, 65536))
            except BlockingIOError:
                back = 0
        finally:
            del self.env["FARM_SLOTS"], self.env["STANDIN_LOG"]
            os.close(fd)
        if back != slots:
            raise SystemExit("bench: the farm launcher gave back %d of its %d slots (%s)" % (back, slots, d))
        starts, peak = compile_spans(slog)
        if starts != len(w.units()):
            raise SystemExit("bench: %s: %d compiles ran, the workload has %d units"
                             % (slog, starts, len(w.units())))
        return dt, cache, peak

    def distcc_real(self):
        """examples/distcc cold, through a private distccd on 127.0.0.1 at
        N = `distcc -j` and locally at -j2 without a launcher. Returns a dict;
        {"na": reason} when distcc is missing or cannot run."""
        ex = os.path.join(self.a.src, "examples", "distcc")
        tools = {t: shutil.which(t) for t in ("distcc", "distccd", "g++")}
        if not os.path.isdir(ex):
            return {"na": "no examples/distcc"}
        missing = [t for t, p in tools.items() if not p]
        if missing:
            return {"na": "%s not installed%s" % (", ".join(missing),
                                                 " (Debian: apt-get install distcc)" if "g++" not in missing else "")}
        d = self.fresh("distcc")
        shutil.copytree(ex, os.path.join(d, "src"), ignore=shutil.ignore_patterns(".kwarm"))
        spec = os.path.join(d, "src", "spec.yaml")
        daemon = distccd.Distccd(tools["distccd"], 4)
        log("real distcc: starting a private distccd")
        saved = {k: self.env.pop(k, None) for k in DISTCC_VARS}
        try:
            # Inside the try: a signal while it starts still stops it.
            try:
                daemon.start()
            except distccd.StartError as e:
                return {"na": str(e)}
            res = {"hosts": daemon.hosts()}
            self.env.update(DISTCC_HOSTS=daemon.hosts(), DISTCC_FALLBACK="0",
                            DISTCC_DIR=os.path.join(d, "distcc-client"))
            os.makedirs(self.env["DISTCC_DIR"])
            j = subprocess.run([tools["distcc"], "-j"], env=self.env, capture_output=True, text=True)
            try:
                res["n"] = int(j.stdout.split()[0])
            except (IndexError, ValueError):
                return {"na": "'distcc -j' printed %r" % (j.stdout.strip() or j.stderr.strip())}
            farm, local, ok = [], [], []
            for _ in range(self.a.reps):
                dt, cache = self.kwarm_cold(spec, 2)
                local.append(dt)
                before = daemon.compiles()
                try:
                    dt, cache = self.kwarm_cold(spec, res["n"], gen_args=["--launcher", "distcc"])
                except SystemExit as e:
                    if not isinstance(e.code, str):  # a signal, not a failed command
                        raise
                    return {"na": "the warm-up through distcc failed: %s" % e.code.splitlines()[0]}
                farm.append(dt)
                ok.append(daemon.compiles() - before)
            mk = os.path.join(os.path.dirname(cache), "warmup.mk")
            res.update(farm=min(farm), local=min(local), compile_ok=min(ok), reps=self.a.reps,
                       units=len(unit_lines(mk)))
            log("  distcc -j%d %.2f s (COMPILE_OK %d/%d), local -j2 %.2f s"
                % (res["n"], res["farm"], res["compile_ok"], res["units"], res["local"]))
            return res
        finally:
            for k, v in saved.items():
                self.env.pop(k, None)
                if v is not None:
                    self.env[k] = v
            daemon.stop(keep_log=os.path.join(d, "distccd.log"))

    def cached(self):
        """Fully cached re-runs (fresh out folder, warm cache)."""
        res = {}
        w = wl.qwen()
        d, spec = self.setup(w)
        cache, mk = os.path.join(d, "cache"), os.path.join(d, "warmup.mk")
        self.gen(spec, mk, cache, os.path.join(d, "out0"))
        self.run(["make", "-f", mk, "-j8", "warmup"], log_name=mk + ".cold.log")
        cmds = self.commands(w, mk)
        times = []
        for i in range(self.a.reps):
            out = os.path.join(d, "out%d" % (i + 1))
            t0 = time.monotonic()
            self.gen(spec, mk, cache, out)
            self.run(["make", "-f", mk, "-j8", "warmup"], log_name=mk + ".warm.log")
            times.append(time.monotonic() - t0)
            if not os.path.exists(os.path.join(out, "TestQwen3Decode.callable")):
                raise SystemExit("bench: the cached re-run wrote no callable")
        res["kwarm_standin"] = min(times)
        if self.ninja:
            _, nd = self.ninja_run(cmds, 8)
            res["ninja_noop"] = min(self.run([self.ninja, "-C", nd, "-j8"])[0] for _ in range(self.a.reps))
        # Real compiles: the qwen3_decode example with the host g++.
        ex = os.path.join(self.a.src, "examples", "qwen3_decode")
        gxx = shutil.which("g++")
        if os.path.isdir(ex) and gxx:
            d = self.fresh("qwen-real")
            shutil.copytree(ex, os.path.join(d, "src"), ignore=shutil.ignore_patterns(".kwarm"))
            spec = os.path.join(d, "src", "spec.yaml")
            cache, mk = os.path.join(d, "cache"), os.path.join(d, "warmup.mk")
            self.gen(spec, mk, cache, os.path.join(d, "out0"))
            self.run(["make", "-f", mk, "-j8", "warmup"], log_name=mk + ".cold.log")
            times = []
            for i in range(self.a.reps):
                t0 = time.monotonic()
                self.gen(spec, mk, cache, os.path.join(d, "out%d" % (i + 1)))
                self.run(["make", "-f", mk, "-j8", "warmup"], log_name=mk + ".warm.log")
                times.append(time.monotonic() - t0)
            res["kwarm_real"] = min(times)
            res["real_units"] = len(unit_lines(mk))
            if self.ccache:
                res["ccache"] = self.ccache_hits(mk, d)
        return res

    def closure(self):
        """WORKLOADS.md's "real closure" with the host g++: 38 units, each
        including an umbrella header over 130 shared project headers (~1 MB),
        3 headers of its own and a few standard ones. kwarm gen with an empty
        cache; gen after a cold build (every unit's recorded reads, ~300 system
        headers, checked); gen + make -j8 fully cached, fresh out folder."""
        gxx = shutil.which("g++")
        if not gxx:
            return None
        d = self.fresh("closure")
        src = os.path.join(d, "src")
        wl.write_real_closure(src)
        spec = os.path.join(src, "spec.yaml")
        cache, mk = os.path.join(d, "cache"), os.path.join(d, "warmup.mk")
        reps = max(self.a.reps, 3)
        cold = min(self.gen(spec, mk, os.path.join(d, "empty%d" % i), os.path.join(d, "out"))[0]
                   for i in range(reps))
        self.gen(spec, mk, cache, os.path.join(d, "out"))
        self.run(["make", "-f", mk, "-j2", "warmup"], log_name=mk + ".cold.log")
        self.run(["make", "-f", mk, "-j2", "warmup"], log_name=mk + ".regen.log")
        warm = min(self.gen(spec, mk, cache, os.path.join(d, "out"))[0] for _ in range(reps))
        times = []
        for i in range(reps):
            t0 = time.monotonic()
            self.gen(spec, mk, cache, os.path.join(d, "fresh%d" % i))
            self.run(["make", "-f", mk, "-j8", "warmup"], log_name=mk + ".warm.log")
            times.append(time.monotonic() - t0)
        with open(mk + ".inputs") as f:
            inputs = sum(1 for line in f if line.startswith("i /usr/"))
        return {"gen_cold": cold, "gen_warm": warm, "cached": min(times), "reps": reps,
                "system_inputs": inputs}

    def ccache_hits(self, mk, d):
        """The example's compiles through ccache, second pass (all hits), by a
        pool of 8. ccache does not cache -shared links: -c instead."""
        cmds = []
        root = makefile_root(mk)
        for words in unit_lines(mk):
            cmd = ["-c" if x == "-shared" else x for x in words[words.index("--") + 1:]]
            cmds.append((root, [self.ccache] + cmd))
        self.env["CCACHE_DIR"] = os.path.join(d, "ccache")
        try:
            self.pool_into(cmds, os.path.join(d, "cc-miss"))
            self.run([self.ccache, "-z"])
            times = [self.pool_into(cmds, os.path.join(d, "cc-hit%d" % i)) for i in range(self.a.reps)]
            stats = subprocess.run([self.ccache, "--print-stats"], env=self.env,
                                   capture_output=True, text=True).stdout
        finally:
            del self.env["CCACHE_DIR"]
        hits = sum(int(v) for k, v in re.findall(r"^(direct_cache_hit|preprocessed_cache_hit)\t(\d+)$",
                                                 stats, re.M))
        return {"seconds": min(times), "hits": hits, "compiles": len(cmds) * self.a.reps}

    def pool_into(self, cmds, d):
        os.makedirs(d)
        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as ex:
            futs = [ex.submit(self.run, self.argv(cmd, os.path.join(d, "u%05d.o" % i)), root)
                    for i, (root, cmd) in enumerate(cmds)]
            for f in futs:
                f.result()
        return time.monotonic() - t0

    def overhead(self, units):
        """units tiny real compiles: kwarm (gen + make -j2) vs a plain Makefile
        with the same commands (make -j2), interleaved; wall and CPU seconds
        (user + sys of every process) of each run."""
        w = wl.tiny(units)
        cc = shutil.which("cc") or shutil.which("gcc")
        d, spec = self.setup(w, {"orch": cc, "aiv": cc, "aic": cc}, ["-O0", "-c"])
        mk = os.path.join(d, "probe.mk")
        self.gen(spec, mk, os.path.join(d, "probe-cache"), os.path.join(d, "probe-out"))
        cmds = self.commands(w, mk)
        # The noisiest figure on a shared machine, and the one with the
        # tightest target: nine runs each where there is time (five gave
        # pairs from 0.99 to 1.18 in one quiet run: the median of nine moves
        # less; it is still the median of every pair), the order
        # alternating (plain first, then kwarm first) so that a slow spell
        # of the machine weighs on both sides.
        reps = 1 if (self.a.smoke or self.a.quick) else 9
        kw, plain = [], []
        for r in range(reps):
            k = self.fresh("tiny-plain")
            lines = ["all:"]
            outs = []
            for i, (root, cmd) in enumerate(cmds):
                out = os.path.join(k, "u%05d.o" % i)
                outs.append(out)
                lines.append("%s: %s\n\tcd %s && %s" % (out, os.path.join(root, cmd[-1]), shlex.quote(root),
                                                        shlex.join(self.argv(cmd, out)).replace("$", "$$")))
            lines[0] = "all: " + " ".join(outs)
            pm = os.path.join(k, "plain.mk")
            with open(pm, "w") as f:
                f.write("\n".join(lines) + "\n")
            for side in ("plain", "kwarm") if r % 2 == 0 else ("kwarm", "plain"):
                # Each side starts with nothing dirty (a sync outside the
                # timing, both alike): else the dirty pages of the previous
                # run or row (the real closure, the cached re-runs) are
                # written back during this one, and kwarm's fsyncs wait on
                # that disk traffic while the plain side, which never syncs,
                # does not: the figure then measures the previous row.
                os.sync()
                cpu0, user0, sys0 = self.cpu_total, self.cpu_user, self.cpu_sys
                if side == "plain":
                    wall = self.run(["make", "-r", "-s", "-f", pm, "-j2", "all"], log_name=pm + ".log")[0]
                    to = plain
                else:
                    wall = self.kwarm_cold(spec, 2)[0]
                    to = kw
                # (wall, CPU, user, sys): the split says where a CPU difference is.
                to.append((wall, self.cpu_total - cpu0, self.cpu_user - user0, self.cpu_sys - sys0))
        ratios = sorted(k[0] / p[0] for k, p in zip(kw, plain))
        return {"units": len(cmds), "reps": reps, "runs": list(zip(kw, plain)),
                "median_ratio": ratios[len(ratios) // 2],
                "kwarm": min(x[0] for x in kw), "plain": min(x[0] for x in plain),
                "kwarm_cpu": min(x[1] for x in kw), "plain_cpu": min(x[1] for x in plain),
                "kwarm_split": min(kw, key=lambda x: x[1])[2:], "plain_split": min(plain, key=lambda x: x[1])[2:]}

    def scale(self, sizes):
        rows = []
        for units in sizes:
            w = wl.synthetic(units)
            log("scale: writing %d units" % units)
            d, spec = self.setup(w)
            # The workload's files just written are still going to disk: gen
            # would share the two cores with that writeback. A user's tree
            # was written long before gen reads it.
            os.sync()
            mk = os.path.join(d, "warmup.mk")
            gen_s, rss, _ = self.gen(spec, mk, os.path.join(d, "cache"), os.path.join(d, "out"))
            # A second run, best of two: the growth figures divide two
            # timings, and one slow spell of a shared machine would skew them.
            g2, r2, _ = self.gen(spec, mk, os.path.join(d, "cache"), os.path.join(d, "out"))
            gen_s, rss = min(gen_s, g2), max(rss, r2)
            noop, _, _ = self.run(["make", "-q", "-f", mk, "warmup"], cwd=d, ok=(0, 1),
                                  log_name=mk + ".q.log")
            rows.append({"units": units, "gen": gen_s, "mb": rss / 1024.0, "noop": noop,
                         "mk_mb": os.path.getsize(mk) / 1e6})
            log("  %d units: gen %.2f s, %.0f MB; make -q %.2f s" % (units, gen_s, rss / 1024.0, noop))
        return rows


def trace_of(cache):
    """The trace.json of the kwarm_cold run whose cache this is."""
    return os.path.join(os.path.dirname(cache), "out", ".kwarm", "trace.json")


def plan_of(cache):
    """The plan side file of the kwarm_cold run whose cache this is."""
    return os.path.join(os.path.dirname(cache), "warmup.mk.plan")


def compile_spans(path):
    """(compiles started, most running at once) from a STANDIN_LOG: the
    lines of sources (.cpp), not of links, whose input is an object. The
    count is tests/tools/max_overlap.sh's, the tests' one overlap rule."""
    with open(path) as f:
        lines = [ln for ln in f if ln.rstrip("\n").endswith(".cpp")]
    tool = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "tests", "tools", "max_overlap.sh")
    peak = subprocess.run(["bash", tool], input="".join(lines), capture_output=True,
                          text=True, check=True).stdout
    return sum(ln.startswith("start ") for ln in lines), int(peak)


def machine(scale):
    def first(argv):
        try:
            out = subprocess.run(argv, capture_output=True, text=True).stdout.strip().splitlines()
            return out[0] if out else "n/a"
        except OSError:
            return "n/a"
    cpu = "unknown cpu"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return ["machine: %d cpus (nproc), %s, Linux %s" % (os.cpu_count(), cpu, platform.release()),
            "tools:   %s; ninja %s; %s; %s" % (first(["make", "--version"]), first(["ninja", "--version"]),
                                              first(["gcc", "--version"]), first(["ccache", "--version"])),
            "date:    %s; stand-in scale %g (a unit of cost S sleeps S x %g s)"
            % (datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), scale, scale)]


def table(b, head, spans, farm, cached, over, scale_rows, sim=None):
    """The one table; a section whose figures are None is left out."""
    t = list(head) + [""]
    f2 = lambda x: "%.2f" % x if x is not None else "n/a"  # noqa: E731
    if spans is not None:
        t.append("cold makespan / LB(N)   LB = max(longest unit, total work / N) x scale")
        t.append("%-10s %2s %7s | %6s %8s | %6s %6s %6s %6s" %
                 ("workload", "N", "LB s", "kwarm", "kw+rec", "serial", "pool", "xargs", "ninja"))
        for r in spans:
            t.append("%-10s %2d %7.2f | %6s %8s | %6s %6s %6s %6s" %
                     (r["workload"], r["n"], r["lb"], f2(r["kwarm"]),
                      f2(r["kwarm_rec"]) + ("" if r["recorded"] else "*"),
                      f2(r["serial"]), f2(r["pool"]), f2(r["xargs"]), f2(r["ninja"])))
        if any(not r["recorded"] for r in spans):
            t.append("  * no durations.log was written by the first run: the second run had no record")
        short_note(t, spans, "; serial: the median of as many loops")
        idle_rows(t, spans)
        t.append("")
    if sim is not None:
        t += sim + [""]
    if farm is not None:
        farm_section(t, f2, farm)
    if cached is not None:
        t.append("fully cached re-run of qwen (warm cache, fresh out folder), best of %d" % b.a.reps)
        t.append("  kwarm gen + make -j8, stand-in qwen (38 units)          %7.3f s" % cached["kwarm_standin"])
        if "ninja_noop" in cached:
            t.append("  ninja -j8 no-op, same 38 commands                      %7.3f s   kwarm/ninja %.1fx"
                     % (cached["ninja_noop"], cached["kwarm_standin"] / max(cached["ninja_noop"], 1e-6)))
        if "kwarm_real" in cached:
            t.append("  kwarm gen + make -j8, examples/qwen3_decode, g++ (%d)   %7.3f s"
                     % (cached["real_units"], cached["kwarm_real"]))
        if "ccache" in cached:
            c = cached["ccache"]
            t.append("  same %d g++ compiles as ccache hits, pool of 8          %7.3f s   kwarm/ccache %.2fx"
                     % (c["compiles"] // b.a.reps, c["seconds"], cached["kwarm_real"] / c["seconds"]))
            t.append("    (ccache: -c instead of -shared, ccache refuses links as uncacheable; %d/%d hits)"
                     % (c["hits"], c["compiles"]))
        t.append("")
    if b.closure_row is not None:
        c = b.closure_row
        t.append("real closure (38 units, g++, 134 project headers of ~1 MB in all, standard headers), best of %d"
                 % c["reps"])
        t.append("  kwarm gen, empty cache                                  %7.3f s" % c["gen_cold"])
        t.append("  kwarm gen, after a build (recorded reads checked: %d system files) %7.3f s"
                 % (c["system_inputs"], c["gen_warm"]))
        t.append("  kwarm gen + make -j8, fully cached, fresh out folder    %7.3f s" % c["cached"])
        t.append("")
    if over is not None:
        t.append("per-unit overhead: %d tiny real compiles (cc -O0 -c), -j2, %d alternating runs each"
                 % (over["units"], over["reps"]))
        t.append("  wall, best of %d: kwarm gen + make -j2 warmup %6.2f s   plain Makefile %6.2f s   ratio %.3f"
                 % (over["reps"], over["kwarm"], over["plain"], over["kwarm"] / over["plain"]))
        t.append("  CPU (user + sys, every process), best of %d: kwarm %6.2f s   plain %6.2f s   ratio %.3f"
                 % (over["reps"], over["kwarm_cpu"], over["plain_cpu"], over["kwarm_cpu"] / over["plain_cpu"]))
        t.append("    of which user / sys: kwarm %.2f / %.2f s   plain %.2f / %.2f s"
                 % (over["kwarm_split"] + over["plain_split"]))
        if over["reps"] > 1:
            t.append("  each pair's wall ratio (kwarm / plain, adjacent runs): "
                     + " ".join("%.3f" % (k[0] / p[0]) for k, p in over["runs"])
                     + "; median %.3f" % over["median_ratio"])
        t.append("")
    if scale_rows is not None:
        t.append("generator and make at scale (classes of 1 orchestration + 9 incores, one shared header)")
        t.append("  %7s %8s %8s %10s %9s" % ("units", "gen s", "gen MB", "make -q s", "mk MB"))
        for r in scale_rows:
            t.append("  %7d %8.3f %8.1f %10.3f %9.1f" % (r["units"], r["gen"], r["mb"], r["noop"], r["mk_mb"]))
        for a, z in zip(scale_rows, scale_rows[1:]):
            f = z["units"] / a["units"]
            t.append("  growth %dk -> %dk (x%g units): gen x%.1f, memory x%.1f, make -q x%.1f"
                     % (a["units"] // 1000, z["units"] // 1000, f, z["gen"] / a["gen"], z["mb"] / a["mb"],
                        z["noop"] / a["noop"]))
    return "\n".join(t) + "\n"


def short_note(t, rows, more):
    """Which rows show medians (runs_for)."""
    short = [r for r in rows if r["runs"] > 1]
    if short:
        t.append("  rows with LB under %g s (%d of %d): each column the median of %d runs, in rounds of every"
                 " column in turn%s" % (SHORT_LB, len(short), len(rows), SHORT_RUNS, more))


def idle_rows(t, spans):
    """The suite's slot time per run, from its trace (bench/trace_idle.py)."""
    rows = [(r["n"], name, x) for r in spans for name, x in r.get("idle", ())]
    if not rows:
        return
    t.append("  the suite's slot time (N x wall) from each run's trace.json: busy in a step, idle before the first")
    t.append("  step (head), between steps on a slot (hand-over), after the last step started (tail); each pack's")
    t.append("  wait from its last unit's end to its start, how many that unit's step made itself, and the packs")
    t.append("  that started after the last compile started (the last units' own, or ones make passed over in its")
    t.append("  first pass) and after it ended")
    for n, name, x in rows:
        total = x["n"] * x["wall"]
        t.append("  N=%-2d %-6s %4d steps %6.1f slot-s: busy %4.1f%%, head %3.1f%%, hand-over %4.1f%% (%2.0f ms each),"
                 " tail %3.1f%%"
                 % (n, name, x["steps"], total, 100 * x["busy"] / total, 100 * x["head"] / total,
                    100 * x["middle"] / total, x["handover_ms"], 100 * x["tail"] / total))
        waits = ("%d waited over %.0f ms, mean %.2f s, longest %.2f s"
                 % (x["waited"], 1000 * trace_idle.HANDOVER, x["wait_mean"], x["wait_max"])
                 if x["waits"] else "waits n/a (no plan)")
        t.append("  %10s %d packs (%d by their last unit's step): %s; %d started after the last compile"
                 " started, %d after it ended"
                 % ("", x["packs"], x.get("inline", 0), waits, x["packs_after_last_start"],
                    x["packs_after_compiles"]))


def farm_section(t, f2, farm):
    rows, real = farm["rows"], farm["distcc"]
    t.append("compile farm: two-step form (stand-in -c through bench/farm_launcher.sh, stand-in link run locally)")
    t.append("  the launcher holds one of S + L = %d + %d slots per compile, like distcc with"
             " DISTCC_HOSTS='localhost/%d farm/%d'" % (FARM_REMOTE, FARM_LOCAL, FARM_LOCAL, FARM_REMOTE))
    t.append("  N = S + L = %d (what `distcc -j` prints); LB over min(N, S + L) slots: past S + L jobs queue"
             % (FARM_REMOTE + FARM_LOCAL))
    t.append("%-10s %2s %5s %7s %7s | %6s %8s | %4s" %
             ("workload", "N", "slots", "LB s", "wall s", "kwarm", "kw+rec", "peak"))
    for r in rows:
        t.append("%-10s %2d %5d %7.2f %7.2f | %6s %8s | %4d" %
                 (r["workload"], r["n"], r["slots"], r["lb"], r["wall"], f2(r["kwarm"]),
                  f2(r["kwarm_rec"]) + ("" if r["recorded"] else "*"), r["peak"]))
    t.append("  wall s: the first run (kwarm); peak: most compiles running at once (stand-in log)%s"
             % ("; kw+rec n/a: not run in --smoke" if any(r["kwarm_rec"] is None for r in rows) else ""))
    if any(not r["recorded"] for r in rows):
        t.append("  * no durations.log was written by the first run: the second run had no record")
    short_note(t, rows, "; wall s: the median of the first runs; peak: the most of every run")
    if "na" in real:
        t.append("real distcc, examples/distcc: n/a (%s)" % real["na"])
    else:
        t.append("real distcc, examples/distcc (%d units, g++ -c through distcc, link local), cold, best of %d:"
                 % (real["units"], real["reps"]))
        t.append("  private distccd on 127.0.0.1, DISTCC_HOSTS=%s, DISTCC_FALLBACK=0" % real["hosts"])
        t.append("  kwarm gen --launcher distcc + make -j%d (distcc -j) %7.3f s   distccd COMPILE_OK %d/%d"
                 % (real["n"], real["farm"], real["compile_ok"], real["units"]))
        t.append("  kwarm gen + make -j2, local, no launcher          %7.3f s" % real["local"])
    t.append("")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.dirname(here)
    ap = argparse.ArgumentParser(description="kwarm benchmark (bench/README.md)")
    ap.add_argument("--scale", type=float, default=0.1, help="stand-in time factor (default 0.1)")
    ap.add_argument("--quick", action="store_true", help="smaller deepseek and suite, no 100k units")
    ap.add_argument("--smoke", action="store_true", help="qwen at N=2 only, tiny sizes (for the tests)")
    ap.add_argument("--output", help="also write the table here (default bench/results/latest.txt,"
                    " with --only X latest-X.txt)")
    ap.add_argument("--scratch", help="work folder (default: a fresh temporary one, removed after)")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("--only", choices=["farm", "overhead", "closure", "suite", "scale"],
                    help="run one section only (with --quick/--smoke sizes); suite: the suite's rows alone")
    ap.add_argument("--skip-slow", action="store_true",
                    help="leave out the suite's rows at N = 2 and 3 (about 7 of the full run's minutes)")
    ap.add_argument("--kwarm", default=os.environ.get("KWARM", os.path.join(src, "build", "kwarm")))
    ap.add_argument("--standin", default=os.environ.get("STANDIN", os.path.join(src, "build", "kwarm-standin")))
    a = ap.parse_args()
    a.src = src
    for what, p in (("kwarm", a.kwarm), ("stand-in", a.standin)):
        if not os.access(p, os.X_OK):
            ap.error("no %s binary at '%s' (build first, or set KWARM / STANDIN)" % (what, p))
    made_scratch = not a.scratch
    if made_scratch:
        import tempfile
        a.scratch = tempfile.mkdtemp(prefix="kwarm-bench.")
    os.makedirs(a.scratch, exist_ok=True)
    a.scratch = os.path.abspath(a.scratch)
    a.reps = 1 if (a.smoke or a.quick) else 2
    b = Bench(a)
    head = machine(a.scale)
    mode = "smoke" if a.smoke else "quick" if a.quick else "full"
    head.append("command: bench/run.sh --scale %g%s%s%s" % (a.scale, "" if mode == "full" else " --" + mode,
                                                           " --only " + a.only if a.only else "",
                                                           " --skip-slow" if a.skip_slow else ""))
    # A signal ends the run through the finally blocks: the scratch folder
    # is removed and a private distccd stopped.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
    t0 = time.monotonic()
    spans = farm = cached = over = scale_rows = sim = None
    every = not a.only
    shrink = 4 if a.quick else 1
    # The suite at N = 2 and 3 runs each column for 35-52 s (stand-in scale 0.1).
    suite_ns = [8] if a.skip_slow else [2, 3, 8]
    try:
        if every:
            spans = []
            if a.smoke:
                spans += b.makespans(wl.qwen(), [2])
            else:
                for w in (wl.qwen(), wl.qwen(late=True), wl.qwen_pair()):
                    spans += b.makespans(w, [2, 3, 8])
                spans += b.makespans(wl.deepseek(368 // shrink), [8])
                spans += b.makespans(wl.suite(shrink), suite_ns)
        elif a.only == "suite":
            spans = b.makespans(wl.suite(shrink), [8] if a.smoke else suite_ns)
        if every:
            log("simulated warm-up order")
            sim = simulate_order.table(b.kwarm, b.standin)
        if every or a.only == "farm":
            slots = FARM_REMOTE + FARM_LOCAL
            ns = [2, slots, 2 * slots]
            rows = b.farm(wl.qwen(), ns, slots, record=not a.smoke)
            if not a.smoke:
                rows += b.farm(wl.deepseek(368 // shrink), ns, slots)
            farm = {"rows": rows, "distcc": b.distcc_real()}
        if every:
            log("cached re-runs")
            cached = b.cached()
        if every or a.only == "closure":
            log("real closure")
            b.closure_row = b.closure()
        if every or a.only == "overhead":
            n_tiny = 40 if a.smoke else 300 if a.quick else 1000
            log("per-unit overhead: %d tiny compiles" % n_tiny)
            over = b.overhead(n_tiny)
        if every or a.only == "scale":
            sizes = [1000] if a.smoke else [1000, 10000] if a.quick else [1000, 10000, 100000]
            scale_rows = b.scale(sizes)
    finally:
        if made_scratch and not a.keep:
            shutil.rmtree(a.scratch, ignore_errors=True)
    head.append("wall time of this run: %.0f s" % (time.monotonic() - t0))
    text = table(b, head, spans, farm, cached, over, scale_rows, sim)
    sys.stdout.write(text)
    out = a.output or os.path.join(here, "results", "latest%s.txt" % ("-" + a.only if a.only else ""))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        f.write(text)
    log("table written to %s" % out)


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# labels: e2e;slow
# SIGKILL to the whole make process group at random points of a warm-up (20
# runs, delays from a fixed seed, each run after an edit of every source so it
# has all its work to do, the Makefile's self-remake included). After every kill
# nothing torn is visible under a final name: every cache entry with a manifest
# verifies (size and SHA-256 of its artifact), every pack description hashes to
# its name, every OUT/*.callable equals the bytes of some version of the
# sources; then a plain re-run succeeds with the bytes of the current version.
. "$(dirname "$0")/lib.sh"

# The tree checker: verify.py CACHE OUT REFS [--no-temps]. REFS/<version>/<path
# under OUT> are the accepted callables; --no-temps also refuses publish temps
# ("*.tmp.*") and scratch folders left in the cache and OUT.
cat > "$T/verify.py" <<'PY'
import hashlib, os, sys

cache, out, refs = sys.argv[1:4]
no_temps = "--no-temps" in sys.argv
bad, entries = [], 0
sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
for dp, dns, fs in os.walk(os.path.join(cache, "units")):
    for f in fs:
        if not f.endswith(".m"):
            continue
        m = os.path.join(dp, f)
        key = f[:-2]
        lines = open(m, "rb").read().decode("utf-8", "replace").split("\n")
        fields = dict(l.split(" ", 1) for l in lines[1:] if " " in l)
        art = os.path.join(dp, key)
        if lines[0] != "kwarm-manifest 1" or fields.get("key") != key:
            bad.append("manifest %s: bad head or key" % m)
        elif not os.path.isfile(art):
            bad.append("manifest %s: no artifact" % m)
        elif str(os.path.getsize(art)) != fields.get("size") or sha(art) != fields.get("sha256"):
            bad.append("entry %s: artifact does not match its manifest" % art)
        entries += 1
for dp, dns, fs in os.walk(os.path.join(cache, "packs")):
    for f in fs:
        if f.endswith(".pack") and sha(os.path.join(dp, f)) != f[:-5]:
            bad.append("pack description %s does not hash to its name" % f)
versions = sorted(os.listdir(refs)) if os.path.isdir(refs) else []
callables = 0
for dp, dns, fs in os.walk(out):
    if ".kwarm" in dns:
        dns.remove(".kwarm")
    for f in fs:
        if not f.endswith(".callable"):
            continue
        p = os.path.join(dp, f)
        rel = os.path.relpath(p, out)
        data = open(p, "rb").read()
        if not any(os.path.isfile(os.path.join(refs, v, rel)) and
                   open(os.path.join(refs, v, rel), "rb").read() == data for v in versions):
            bad.append("callable %s equals no version of its sources (%d bytes)" % (rel, len(data)))
        callables += 1
if no_temps:
    for top in (cache, out):
        for dp, dns, fs in os.walk(top):
            for f in fs + dns:
                if ".tmp." in f:
                    bad.append("temp left: %s" % os.path.join(dp, f))
    for tmp in (os.path.join(cache, "tmp"), os.path.join(out, ".kwarm", "private", "tmp")):
        if os.path.isdir(tmp) and os.listdir(tmp):
            bad.append("scratch left in %s: %s" % (tmp, os.listdir(tmp)))
if bad:
    sys.exit("FAIL: torn or stray files:\n  " + "\n  ".join(bad))
print("%d entries, %d callables verified" % (entries, callables))
PY

R=$T/root
mkdir -p "$R/src" "$T/refs"
cat > "$R/spec.yaml" <<YAML
version: 1
platform: a5sim
toolchains:
  orchestration: {compiler: $STANDIN}
  incore: {aiv: {compiler: $STANDIN}}
classes:
  - name: TestA
    callable:
      orchestration: {source: src/orch.c, function_name: e, signature: [IN]}
      incores:
        - {func_id: 0, source: src/k0.c, core_type: aiv}
        - {func_id: 1, source: src/k1.c, core_type: aiv}
        - {func_id: 2, source: src/k2.c, core_type: aiv}
        - {func_id: 3, source: src/k3.c, core_type: aiv}
  - name: TestB
    callables:
      - name: b
        orchestration: {source: src/orch.c, function_name: e}
        incores:
          - {func_id: 0, source: src/k4.c, core_type: aiv}
          - {func_id: 1, source: src/k5.c, core_type: aiv}
          - {func_id: 2, source: src/k6.c, core_type: aiv}
YAML
units="orch k0 k1 k2 k3 k4 k5 k6"

# Sources of version v (each unit costs 0.2 s: 8 units at -j2 take ~0.8 s), and
# the callables they must give, from the stand-in run directly.
version() {
	local v=$1 u
	for u in $units; do
		printf '// kwarm-cost: 0.2\nint %s_v%d;\n' "$u" "$v" > "$R/src/$u.c"
	done
	mkdir -p "$T/bins/$v" "$T/refs/$v/TestB"
	for u in $units; do
		(cd "$R" && STANDIN_LOG= STANDIN_SCALE=0 "$STANDIN" -o "$T/bins/$v/$u" "src/$u.c")
	done
	cat > "$T/bins/$v/a.json" <<JSON
{"sig": [1], "func": "e", "orch": "$T/bins/$v/orch", "children": [
 {"id": 0, "sig": [], "bin": "$T/bins/$v/k0"}, {"id": 1, "sig": [], "bin": "$T/bins/$v/k1"},
 {"id": 2, "sig": [], "bin": "$T/bins/$v/k2"}, {"id": 3, "sig": [], "bin": "$T/bins/$v/k3"}]}
JSON
	cat > "$T/bins/$v/b.json" <<JSON
{"sig": [], "func": "e", "orch": "$T/bins/$v/orch", "children": [
 {"id": 0, "sig": [], "bin": "$T/bins/$v/k4"}, {"id": 1, "sig": [], "bin": "$T/bins/$v/k5"},
 {"id": 2, "sig": [], "bin": "$T/bins/$v/k6"}]}
JSON
	expected_callable "$T/bins/$v/a.json" > "$T/refs/$v/TestA.callable"
	expected_callable "$T/bins/$v/b.json" > "$T/refs/$v/TestB/b.callable"
}
check_current() {
	cmp -s "$T/refs/$1/TestA.callable" "$T/out/TestA.callable" &&
		cmp -s "$T/refs/$1/TestB/b.callable" "$T/out/TestB/b.callable"
}

cd "$T"
export STANDIN_SCALE=1
version 0
"$KWARM" gen root/spec.yaml -o warmup.mk --cache "$T/cache" --out "$T/out"
start=$(date +%s.%N)
make -f warmup.mk -j2 warmup > ref.txt 2>&1 || { cat ref.txt; fail "the reference run failed"; }
echo "a full run takes $(python3 -c "import time; print('%.2f' % (time.time() - $start))") s"
check_current 0 || fail "the reference run's callables are wrong"

delays=$(python3 -c 'import random; r = random.Random(1234); print(" ".join("%.3f" % (0.5 * r.random()) for _ in range(20)))')
interrupted=0 recovered=0 v=0
for d in $delays; do
	v=$((v + 1))
	version "$v"
	# setsid: make leads a process group of its own (the script has no job
	# control, so setsid need not fork and $! is that group's id).
	setsid make -f warmup.mk -j2 warmup > "run$v.txt" 2>&1 &
	pid=$!
	[ "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ] || fail "make is not a process group leader"
	sleep "$d"	# the random point of the kill: intended, not a wait
	if kill -KILL -- -"$pid" 2>/dev/null; then
		interrupted=$((interrupted + 1))
	fi
	wait "$pid" || true
	# The killed group's processes (compilers, kwarm holding flocks) die
	# asynchronously: wait until none is left but zombies (their files are
	# closed; this machine's init may be slow to reap them).
	i=0
	while ps -o stat= -g "$pid" | grep -qv '^Z'; do
		i=$((i + 1)); [ "$i" -lt 1000 ] || fail "run $v: processes of the killed group remain"
		sleep 0.01
	done
	python3 verify.py cache out refs > /dev/null || fail "run $v (killed after $d s): torn files"
	make -f warmup.mk -j2 warmup > "rerun$v.txt" 2>&1 || { cat "rerun$v.txt"; fail "run $v: the re-run failed"; }
	python3 verify.py cache out refs > /dev/null || fail "run $v: torn files after the re-run"
	check_current "$v" || fail "run $v (killed after $d s): the re-run's callables are not version $v's"
	recovered=$((recovered + 1))
done
[ "$interrupted" -ge 10 ] || fail "only $interrupted of 20 runs were interrupted: the delays miss the runs"

# A last clean run into a fresh cache gives the same bytes as the recovered one.
"$KWARM" gen root/spec.yaml -o clean.mk --cache "$T/clean-cache" --out "$T/clean-out"
make -f clean.mk -j2 warmup > clean.txt 2>&1 || fail "the clean run failed"
cmp clean-out/TestA.callable out/TestA.callable && cmp clean-out/TestB/b.callable out/TestB/b.callable ||
	fail "the recovered callables differ from a clean run's"
python3 verify.py cache out refs || fail "final check"
pass "SIGKILL: $interrupted of 20 runs interrupted, $recovered recovered (re-run right, nothing torn)"

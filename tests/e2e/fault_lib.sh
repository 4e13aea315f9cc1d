# shellcheck shell=bash
# Shared part of the fault tests (t_fault_*.sh), sourced after lib.sh: the
# tree check, the root R, and a two-class spec with versioned sources.

need python3 python3
R=$T/root
mkdir -p "$R/src" "$T/refs"

# tree_check CACHE OUT REFS [--no-temps]: every cache entry verifies (its
# manifest whole, size and SHA-256 of its artifact), every pack description hashes
# to its name, every OUT/*.callable equals REFS/<version>/<path under OUT> of
# some version; --no-temps also refuses publish temps ("*.tmp.*") and scratch
# folders left in the cache and OUT.
tree_check() {
	python3 - "$@" <<'PY'
import hashlib, os, sys

cache, out, refs = sys.argv[1:4]
no_temps = "--no-temps" in sys.argv
bad, entries = [], 0
sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
for dp, dns, fs in os.walk(os.path.join(cache, "units")):
    for f in fs:
        if not f.endswith(".m"):
            continue
        # An entry: the artifact, then its manifest, then the manifest's
        # length (8 digits and LF, counted in it).
        m = os.path.join(dp, f)
        key = f[:-2]
        data = open(m, "rb").read()
        tail = data[-9:]
        if len(data) < 9 or not tail[:8].isdigit() or tail[8:] != b"\n" or int(tail[:8]) > len(data):
            bad.append("entry %s: no manifest at its end" % m)
            entries += 1
            continue
        start = len(data) - int(tail[:8])
        lines = data[start:-9].decode("utf-8", "replace").split("\n")
        fields = dict(l.split(" ", 1) for l in lines[1:] if " " in l)
        art = data[:start]
        if lines[0] != "kwarm-entry 2" or fields.get("key") != key:
            bad.append("entry %s: bad head or key" % m)
        elif str(len(art)) != fields.get("size") or hashlib.sha256(art).hexdigest() != fields.get("sha256"):
            bad.append("entry %s: artifact does not match its manifest" % m)
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
}

# fault_bins DIR UNIT..: DIR/UNIT is $R/src/UNIT.c compiled by the stand-in
# directly, out of its log and at no cost.
fault_bins() {
	local dir=$1 u
	shift
	mkdir -p "$dir"
	for u in "$@"; do
		(cd "$R" && STANDIN_LOG='' STANDIN_SCALE=0 "$STANDIN" -o "$dir/$u" "src/$u.c")
	done
}

# fault_expect FILE SIG DIR ORCH KID..: FILE gets the callable (function e)
# of DIR/ORCH, signature SIG (a JSON list), and DIR/KID.. as incores 0 on.
fault_expect() {
	local file=$1 sig=$2 dir=$3 orch=$4 kids='' id=0 k
	shift 4
	for k in "$@"; do
		kids="$kids${kids:+, }{\"id\": $id, \"sig\": [], \"bin\": \"$dir/$k\"}"
		id=$((id + 1))
	done
	expected_callable <(printf '{"sig": %s, "func": "e", "orch": "%s", "children": [%s]}\n' \
		"$sig" "$dir/$orch" "$kids") > "$file"
}

# fault_two_classes: TestA (orch and k0..k3) and TestB/b (orch and k4..k6),
# every source under $R/src ($units names them); the stand-in then takes the
# real time of each source's kwarm-cost, which gives a run its length.
fault_two_classes() {
	export STANDIN_SCALE=1
	standin_spec "$R" <<'YAML'
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
}
units="orch k0 k1 k2 k3 k4 k5 k6"

# fault_version V: sources of version V (each unit costs 0.2 s: 8 units at -j2
# take ~0.8 s), and the callables they must give, from the stand-in run directly.
fault_version() {
	local v=$1 u
	for u in $units; do
		printf '// kwarm-cost: 0.2\nint %s_v%d;\n' "$u" "$v" > "$R/src/$u.c"
	done
	mkdir -p "$T/refs/$v/TestB"
	# shellcheck disable=SC2086
	fault_bins "$T/bins/$v" $units
	fault_expect "$T/refs/$v/TestA.callable" "[1]" "$T/bins/$v" orch k0 k1 k2 k3
	fault_expect "$T/refs/$v/TestB/b.callable" "[]" "$T/bins/$v" orch k4 k5 k6
}
# fault_version_blocked: version 0, with k0's compiler blocking mid-write
# (its partial output beside the entry): it creates $T/blocked, then waits
# until $T/blocked.go exists. The expected TestA is made with k0 let go.
fault_version_blocked() {
	fault_version 0
	printf '// kwarm-standin: block %s/blocked\n' "$T" >> "$R/src/k0.c"
	(cd "$R" && : > "$T/blocked.go" && STANDIN_LOG= STANDIN_SCALE=0 "$STANDIN" -o "$T/bins/0/k0" src/k0.c)
	rm "$T/blocked" "$T/blocked.go"
	fault_expect "$T/refs/0/TestA.callable" "[1]" "$T/bins/0" orch k0 k1 k2 k3
}
# fault_check_current V: OUT holds version V's callables.
fault_check_current() {
	cmp -s "$T/refs/$1/TestA.callable" "$T/out/TestA.callable" &&
		cmp -s "$T/refs/$1/TestB/b.callable" "$T/out/TestB/b.callable"
}

# fault_group_leader PID: wait until PID, started as `setsid CMD &`, leads its
# own process group (the background child may not have called setsid yet),
# failing if it ends first or after 60 s.
fault_group_leader() {
	local i=0
	until [ "$(ps -o pgid= -p "$1" | tr -d ' ')" = "$1" ]; do
		kill -0 "$1" 2>/dev/null || fail "process $1 ended before it led its own group"
		i=$((i + 1)); [ "$i" -lt 6000 ] || fail "process $1 never led its own process group"
		sleep 0.01
	done
}

# fault_settle PGID [WHAT]: wait until the group's processes are gone (zombies
# aside: their files are closed, and this machine's init may be slow to reap
# them).
fault_settle() {
	local i=0
	while [ "$(ps -o stat= -g "$1" | grep -cv '^Z')" != 0 ]; do
		i=$((i + 1)); [ "$i" -lt 1000 ] || fail "${2:-processes of group $1} remain"
		sleep 0.01
	done
}

# fault_signal_run SIG V DELAY: edit every source to version V, start a
# warm-up (output in run$V.txt) in a process group that make leads (the
# script has no job control, so setsid need not fork and $! is that group's
# id), send SIG to the group DELAY seconds later and wait until all of it is
# gone. Adds 1 to $interrupted when the signal found the group still there.
# make starts with SIGINT at its default, as from a terminal: a script's
# background job starts with it ignored, and so would make and its compilers.
fault_signal_run() {
	local sig=$1 v=$2 d=$3 pid
	fault_version "$v"
	setsid env --default-signal=INT make -f warmup.mk -j2 warmup > "run$v.txt" 2>&1 &
	pid=$!
	fault_group_leader "$pid"
	sleep "$d"	# the random point of the signal: intended, not a wait
	if kill -"$sig" -- -"$pid" 2>/dev/null; then
		interrupted=$((interrupted + 1))
	fi
	wait "$pid" || true
	# The group's processes (compilers, kwarm holding flocks) die asynchronously.
	fault_settle "$pid" "run $v: processes of the signalled group"
}

# shellcheck shell=bash
# Shared helpers of the end-to-end tests (sourced, not run).
# Environment from CTest: KWARM, STANDIN, KWARM_TEST_SRC, KWARM_TEST_TMP.
set -euo pipefail

: "${KWARM:?run under ctest}" "${STANDIN:?}" "${KWARM_TEST_SRC:?}" "${KWARM_TEST_TMP:?}"
T=$KWARM_TEST_TMP
# shellcheck disable=SC2034 # used by the tests that source this
TOOLS=$KWARM_TEST_SRC/tests/tools
rm -rf "$T"
mkdir -p "$T"
export STANDIN_LOG=$T/standin.log
unset MAKEFLAGS MAKELEVEL MFLAGS KWARM_CACHE

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
# A test that cannot run here says why and exits 77, which CTest reports as
# skipped (SKIP_RETURN_CODE): never a silent pass.
skip() { echo "SKIP: $*" >&2; exit 77; }
# need PROGRAM DEBIAN-PACKAGE: skip unless PROGRAM is on PATH. A script says
# need near its top for every program it runs beyond what building kwarm
# needs (python3, g++, git, groff, ninja, ccache, distcc, nginx), also when
# only a helper it sources runs it (fault_lib.sh, tools/distccd.sh do).
need() { command -v "$1" > /dev/null || skip "$1 is not installed (Debian: apt-get install $2; scripts/deps.sh installs it)"; }

# must LOG WHAT COMMAND..: run COMMAND with its stdout and stderr into LOG;
# when it fails, show LOG and fail saying WHAT.
must() {
	local log=$1 what=$2
	shift 2
	"$@" > "$log" 2>&1 || { cat "$log"; fail "$what"; }
}

# holds [-x] FILE PATTERN WHAT: a line of FILE matches the grep pattern
# PATTERN (with -x, the whole line); if none does, show FILE and fail saying WHAT.
holds() {
	local opt=-q
	[ "$1" != -x ] || { opt=-qx; shift; }
	grep "$opt" -- "$2" "$1" || { cat "$1"; fail "$3"; }
}

# Wait until file exists (polling it), failing if process pid ends first or
# after 60 s: a wait on a file, not a guess.
wait_file() {
	local file=$1 pid=${2:-} i=0
	while [ ! -e "$file" ]; do
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then fail "process $pid ended before $file appeared"; fi
		i=$((i + 1))
		[ "$i" -lt 6000 ] || fail "timed out waiting for $file"
		sleep 0.01
	done
}

# Number of compiles the stand-in logged (start lines), optionally for a source.
compiles() { if [ -f "$STANDIN_LOG" ]; then grep -c "^start .*${1:-}" "$STANDIN_LOG" || true; else echo 0; fi; }

# The largest number of stand-in processes running at once, from the log.
max_overlap() {
	[ -f "$STANDIN_LOG" ] || { echo 0; return; }
	bash "$TOOLS/max_overlap.sh" "$STANDIN_LOG"
}

# Copy an example into $T/NAME with its compilers replaced by the stand-in.
standin_example() {
	local example=$1 name=$2
	mkdir -p "$T/$name"
	cp -r "$KWARM_TEST_SRC/examples/$example/." "$T/$name/"
	rm -rf "$T/$name/.kwarm"
	sed -i "s#compiler: g++#compiler: $STANDIN#; s#compiler: cc#compiler: $STANDIN#" "$T/$name/spec.yaml"
}

# gen_warmup: in $T, generate warmup.mk from root/spec.yaml, caching in
# $T/cache, the callables in $T/out.
gen_warmup() {
	cd "$T"
	"$KWARM" gen root/spec.yaml -o warmup.mk --cache "$T/cache" --out "$T/out"
}

# failure_block ERR UNIT REST N FOLLOW: make's stderr ERR holds one failure
# line of UNIT, "kwarm: error: UNIT failed REST" whole, and the tool's output
# (a line with FOLLOW, a grep pattern) among the N lines after it.
failure_block() {
	local err=$1 unit=$2
	[ "$(grep -cF "$unit failed" "$err")" = 1 ] || { cat "$err"; fail "no single failure line for $unit"; }
	grep -qxF "kwarm: error: $unit failed $3" "$err" ||
		{ cat "$err"; fail "the failure line of $unit is not \"$unit failed $3\""; }
	grep -A"$4" -F "$unit failed" "$err" | grep -q -- "$5" ||
		{ cat "$err"; fail "the tool's output does not follow the failure line of $unit"; }
}

# standin_spec DIR [CLASS=SRC,SRC..]..: write DIR/spec.yaml, a version 1 a5sim
# spec whose orchestration and aiv compilers are the stand-in. Each CLASS packs
# orch.c ($STANDIN_ORCH when set; function e) with its SRCs as aiv incores,
# func_id 0 on; with no CLASS the classes (the lines under "classes:") are
# read from stdin.
standin_spec() {
	local dir=$1 orch=${STANDIN_ORCH:-orch.c} class src sep i
	local -a srcs
	shift
	{
		printf 'version: 1\nplatform: a5sim\ntoolchains:\n'
		printf '  orchestration: {compiler: %s}\n  incore: {aiv: {compiler: %s}}\n' "$STANDIN" "$STANDIN"
		printf 'classes:\n'
		[ $# != 0 ] || cat
		for class in "$@"; do
			printf '  - name: %s\n    callable:\n' "${class%%=*}"
			printf '      orchestration: {source: %s, function_name: e}\n      incores: [' "$orch"
			IFS=, read -ra srcs <<< "${class#*=}"
			sep='' i=0
			for src in "${srcs[@]}"; do
				printf '%s{func_id: %d, source: %s, core_type: aiv}' "$sep" "$i" "$src"
				sep=', ' i=$((i + 1))
			done
			printf ']\n'
		done
	} > "$dir/spec.yaml"
}

# gxx_project [DIR..]: make the project folder P=$T/p with k/, include/ and
# the DIRs in it, and cd there.
gxx_project() {
	P=$T/p
	mkdir -p "$P"
	cd "$P"
	mkdir -p k include "$@"
}

# gxx_spec COMPILER CLASS=SRC,SRC..: in the current folder, write k/orch.cpp
# and spec.yaml, whose classes pack it (g++) with their SRCs, incores of role
# w: COMPILER (gcc dependency output) with -O2 -fPIC -shared and -Iinclude.
gxx_spec() {
	local compiler=$1 class src i
	local -a srcs
	shift
	mkdir -p k
	printf 'extern "C" int orch(void) { return 1; }\n' > k/orch.cpp
	{
		printf 'version: 1\nplatform: a5sim\ntoolchains:\n'
		printf '  orchestration: {compiler: g++, flags: [-O2, -fPIC, -shared]}\n'
		printf '  incore:\n    w: {compiler: %s, deps: gcc, flags: [-O2, -fPIC, -shared], include_dirs: [include]}\n' "$compiler"
		printf 'classes:\n'
		for class in "$@"; do
			printf '  - name: %s\n    callable:\n' "${class%%=*}"
			printf '      orchestration: {source: k/orch.cpp, function_name: e}\n      incores:\n'
			IFS=, read -ra srcs <<< "${class#*=}"
			i=0
			for src in "${srcs[@]}"; do
				printf '        - {func_id: %d, source: %s, core_type: w}\n' "$i" "$src"
				i=$((i + 1))
			done
		done
	} > spec.yaml
}

# gxx_roles NAME=FLAGS..: give unit k/NAME.cpp of gxx_spec's spec.yaml a role
# NAME of its own: role w's with FLAGS (YAML list items) added.
gxx_roles() {
	python3 - "$@" <<'PY'
import sys
s = open("spec.yaml").read()
at = s.index("    w: {")
role = s[at:s.index("\n", at) + 1]
roles = ""
for arg in sys.argv[1:]:
    name, flags = arg.split("=", 1)
    roles += role.replace("    w:", "    %s:" % name).replace("-shared]", "-shared, %s]" % flags)
    s = s.replace("source: k/%s.cpp, core_type: w" % name, "source: k/%s.cpp, core_type: %s" % (name, name))
open("spec.yaml", "w").write(s.replace(role, role + roles))
PY
}

# gxx_run WHAT [OUT]: gen and make -j2 warmup of the current folder's spec.yaml,
# caching in $T/cache, out in $T/out, make's output in OUT (default $T/run.out).
gxx_run() {
	local out=${2:-$T/run.out}
	"$KWARM" gen spec.yaml -o "$T/w.mk" --cache "$T/cache" --out "$T/out" 2> "$T/gen.err" ||
		{ cat "$T/gen.err"; fail "gen failed: $1"; }
	make -f "$T/w.mk" -j2 warmup > "$out" 2>&1 || { cat "$out"; fail "make failed: $1"; }
}

# gxx_same_as_fresh CLASS WHAT: CLASS's callable in $T/out equals the one an
# empty cache builds.
gxx_same_as_fresh() {
	local fresh
	fresh=$(mktemp -d "$T/fresh.XXXX")
	"$KWARM" gen spec.yaml -o "$fresh/w.mk" --cache "$fresh/cache" --out "$fresh/out" 2> /dev/null
	make -f "$fresh/w.mk" -j2 warmup > /dev/null 2>&1 || fail "$2: the empty-cache build failed"
	cmp "$T/out/$1.callable" "$fresh/out/$1.callable" ||
		fail "$2: the callable differs from an empty-cache build (a stale entry was used)"
}

# Expected ChipCallable bytes, built independently of kwarm's pack code from
# a JSON description: {"sig":[..],"func":"..","config":"..","orch":"path",
# "children":[{"id":N,"sig":[..],"bin":"path"},..]}.
expected_callable() {
	python3 - "$1" <<'PY'
import json, struct, sys
d = json.load(open(sys.argv[1]))
orch = open(d["orch"], "rb").read()
kids = [(c["id"], c["sig"], open(c["bin"], "rb").read()) for c in d["children"]]
hdr = bytearray(9376)
for i, s in enumerate(d["sig"]):
    struct.pack_into("<i", hdr, 4 * i, s)
struct.pack_into("<iI", hdr, 1024, len(d["sig"]), len(orch))
f = d["func"].encode()
hdr[1032:1032 + len(f)] = f
struct.pack_into("<I", hdr, 1096, len(f))
al = lambda x: (x + 63) & ~63
off, offs = al(len(orch)), []
for cid, sig, b in kids:
    offs.append(off)
    off = al(off + 192 + len(b))
for i, (cid, sig, b) in enumerate(kids):
    struct.pack_into("<i", hdr, 1100 + 4 * i, cid)
    struct.pack_into("<I", hdr, 5196 + 4 * i, offs[i])
struct.pack_into("<i", hdr, 9292, len(kids))
c = d.get("config", "").encode()
hdr[9296:9296 + len(c)] = c
struct.pack_into("<I", hdr, 9360, len(c))
end = offs[-1] + 192 + len(kids[-1][2]) if kids else len(orch)
store = bytearray(end)
store[0:len(orch)] = orch
for (cid, sig, b), o in zip(kids, offs):
    ch = bytearray(192)
    for i, s in enumerate(sig):
        struct.pack_into("<i", ch, 4 * i, s)
    struct.pack_into("<iIQ", ch, 128, len(sig), len(b), 0)
    store[o:o + 192] = ch
    store[o + 192:o + 192 + len(b)] = b
sys.stdout.buffer.write(bytes(hdr) + bytes(store))
PY
}

# parent_project: install kwarm under $T/prefix (P), copy the qwen example to
# $T/q with the stand-in as compiler, and write $T/proj, a CMake project that
# finds the package and adds 'warmup' with kwarm_add_warmup(): SPEC ${KW_SPEC},
# ARGS ${KW_CACHE_ARGS} (default: --cache $T/cache) --out ${KW_OUT}. Ends in $T.
parent_project() {
	P=$T/prefix
	cmake --install "$(dirname "$KWARM")" --prefix "$P" > "$T/install.log" 2>&1 ||
		{ cat "$T/install.log"; fail "install failed"; }
	standin_example qwen3_decode q
	export STANDIN_SCALE=0.03
	mkdir -p "$T/proj"
	cat > "$T/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.16)
project(parent C)
find_package(kwarm 0.1 REQUIRED)
if(NOT DEFINED KW_CACHE_ARGS)
  set(KW_CACHE_ARGS --cache $T/cache)
endif()
kwarm_add_warmup(warmup SPEC \${KW_SPEC} OUTPUT kernels/warmup.mk ARGS \${KW_CACHE_ARGS} --out \${KW_OUT})
if(NOT TARGET kwarm::kwarm OR NOT EXISTS "\${kwarm_MAKE_FRAGMENT}")
  message(FATAL_ERROR "package incomplete")
endif()
CM
	cd "$T"
}

# The ways the tests damage a cache entry file, one row each, "HOW|REASON":
# REASON is what kwarm says of the entry after damage_entry HOW FILE [FROM]:
# flip its first byte (the artifact's), cut that byte out, drop its last
# byte (the length line's end), or copy the entry FROM over it. Scripts that
# use them need python3.
ENTRY_DAMAGE=(
	"flip|artifact SHA-256 differs from its manifest"
	"cut|artifact size differs from its manifest"
	"end|no manifest at its end (truncated?)"
	"other|manifest names another key"
)
damage_entry() {
	if [ "$1" = other ]; then cp "$3" "$2"; return; fi
	python3 - "$1" "$2" <<'PY'
import sys
how, p = sys.argv[1:]
b = bytearray(open(p, "rb").read())
if how == "flip":
    b[0] ^= 1
elif how == "cut":
    del b[0]
elif how == "end":
    del b[-1]
else:
    sys.exit("damage_entry: no way '%s'" % how)
open(p, "wb").write(b)
PY
}

# unit_keys MAKEFILE [PATTERN]: the keys of the Makefile's units in the order
# of their lines (a unit's line is KW_CMD_<key> = its own words and compile
# command; its target is its entry, units/<k>/<key>.m), only those whose line
# matches PATTERN (an awk regular expression) when one is given.
unit_keys() {
	awk -v pat="${2:-}" '
		/^KW_CMD_[0-9a-f]+ = / { if (pat == "" || $0 ~ pat) { key = $1; sub(/^KW_CMD_/, "", key); print key } }' "$1"
}

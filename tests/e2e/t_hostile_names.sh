#!/usr/bin/env bash
# labels: e2e;slow
# Hostile but legal file names: spaces, $, $(shell ...), #, :, ;, |, quotes,
# backquotes, a leading -, glob characters, %, ~, control characters and UTF-8,
# each placed as a source file name, a source's folder, a role include dir, an
# extra_include_dirs entry and a header name. Each (name, place) is either refused
# by `kwarm gen` (exit 2, one message naming it, nothing written) or compiles to
# the bytes of the stand-in run directly on the same argv (no shell between).
# Names that would run a command if evaluated by make or by sh carry a canary:
# none may appear after gen, make -n, make V=1, a warm make and the Makefile's
# self-remake. Class and callable names are refused by the spec's charset; other
# spec words that reach the Makefile are checked at the end.
. "$(dirname "$0")/lib.sh"
need python3 python3

export HOME=$T/home
mkdir -p "$HOME"
cd "$T"

# Any canary file, wherever a command could have run (make's folder and the
# compilers' root are under $T, HOME is $T/home; / for a command run elsewhere).
canaries() {
	{ find "$T" -regextype posix-extended -regex '.*/CANARY[0-9]+' 2>/dev/null
	  ls -d /CANARY[0-9]* 2>/dev/null; } || true
}
no_canary() {
	local c
	c=$(canaries)
	[ -z "$c" ] || fail "a command ran after $1: $c"
}

# Phase 1 (python, argv lists: no shell between the test and the programs):
# make the tree, classify every (name, place) with a gen of its own, check each
# refusal, then write the spec of everything accepted (one class per name, one
# incore per accepted place) and the stand-in argv of every unit.
python3 - "$T" "$KWARM" "$STANDIN" <<'PY'
import json, os, subprocess, sys

T, KWARM, STANDIN = sys.argv[1], sys.argv[2], sys.argv[3]
R = os.path.join(T, "root")
os.makedirs(os.path.join(R, "src"))

# (name, verdict in every place): "ok" compiles, "refused" is refused by gen.
# CANARYn: what a name would create if it were ever evaluated by make or sh.
NAMES = [
    ("sp ace", "ok"),
    (" lead space", "ok"),
    ("trail space ", "ok"),
    ("dol$lar", "ok"),
    ("dd$$x", "ok"),
    ("v$Vx", "ok"),                          # make's $V is 1 under make V=1
    ("br${HOME}ace", "ok"),
    ("mk$(shell touch CANARY1)", "ok"),
    ("sh$(touch CANARY2)", "ok"),
    ("var$(V)x", "ok"),
    ("bq`touch CANARY3`", "ok"),
    ("hash#x", "ok"),
    ("co:lon", "ok"),
    ("colon:", "ok"),
    ("semi;touch CANARY4", "ok"),
    ("sq'uote", "ok"),
    ("dq\"uote", "ok"),
    ("q'&touch CANARY5&'", "ok"),             # breaks out of naive single quotes
    ("d\"&touch CANARY6&\"", "ok"),           # ... and out of naive double quotes
    ("amp&touch CANARY7", "ok"),
    # An include dir ending in '&': its empty rule is written "path :" so that
    # make does not read a grouped target.
    ("amp&", "ok"),
    ("pipe|touch CANARY8", "ok"),             # '|' escaped: not an order-only bar
    ("redir>CANARY9", "ok"),
    ("-lead", "ok"),
    ("--help", "ok"),
    ("-o", "ok"),
    ("st*r", "ok"),
    ("*", "ok"),
    ("q?m", "ok"),
    ("br[a]ck", "ok"),
    # '%' is escaped in targets (the empty rules), left bare in prerequisites.
    ("pc%t", "ok"),
    ("%", "ok"),
    ("~tilde", "ok"),
    ("{a,b}", "ok"),
    ("!bang", "ok"),
    ("@at+plus", "ok"),
    ("\u00fcn\u00ef-\u65e5\u672c", "ok"),
    ("back\\slash", "ok"),
    ("eq=ual", "ok"),
    ("new\nline", "refused"),
    ("tab\there", "refused"),
    ("cr\rx", "refused"),
]
PLACES = ["file", "dir", "inc", "xinc", "hdr"]


def vis(rel):
    """The compiler-visible path: relative to root, ./ before a leading '-'."""
    return "./" + rel if rel.startswith("-") else rel


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


# Each case: one unit with the hostile name in one place.
cases = []
for i, entry in enumerate(NAMES):
    name, verdict = entry[0], entry[1]
    verdicts = entry[2] if len(entry) > 2 else {}
    for f_id, place in enumerate(PLACES):
        verdict = verdicts.get(place, entry[1])
        if place == "hdr" and ("\"" in name or "\n" in name):
            continue    # #include "..." cannot spell it
        u = {"i": i, "name": name, "verdict": verdict, "place": place, "id": f_id,
             "core": "a", "extra": None, "incs": [], "cls": "H%d" % i}
        if place == "file":
            u["source"] = name + ".c"
            u["edit"] = u["source"]
            write(os.path.join(R, u["source"]), "int f%d;\n" % i)
        elif place == "dir":
            u["source"] = name + ".d/k.c"
            u["edit"] = u["source"]
            write(os.path.join(R, u["source"]), "int d%d;\n" % i)
        elif place == "inc":                     # the bare name as a folder
            u["edit"] = name + "/hi.h"
            write(os.path.join(R, u["edit"]), "#define I%d\n" % i)
            u["source"] = "src/inc%d.c" % i
            write(os.path.join(R, u["source"]), "#include \"hi.h\"\nint i%d;\n" % i)
            u["core"] = "t%d" % i
            u["incs"] = [name]
        elif place == "xinc":
            u["edit"] = name + ".x/hx.h"
            write(os.path.join(R, u["edit"]), "#define X%d\n" % i)
            u["source"] = "src/x%d.c" % i
            write(os.path.join(R, u["source"]), "#include \"hx.h\"\nint x%d;\n" % i)
            u["extra"] = name + ".x"
            u["incs"] = [u["extra"]]
        else:
            u["edit"] = "src/" + name + ".h"
            write(os.path.join(R, u["edit"]), "#define H%d\n" % i)
            u["source"] = "src/h%d.c" % i
            write(os.path.join(R, u["source"]),
                  "#include \"%s.h\"\nint h%d;\n" % (name, i))
        cases.append(u)

# Include dirs go through $VAR expansion: a name with '$' goes in by variable
# (whose value then reaches the Makefile's KW_ENV_ lines: make-level escaping).
env = dict(os.environ)
def dir_written(d):
    if "$" not in d:
        return d
    var = "KWH_%d" % len([k for k in env if k.startswith("KWH_")])
    env[var] = d
    return "$" + var


def spec_text(units, root):
    q = lambda s: json.dumps(s, ensure_ascii=False)   # a JSON string is a YAML scalar
    lines = ["version: 1", "platform: a5sim", "root: " + root, "toolchains:",
             "  orchestration: {compiler: %s}" % q(STANDIN), "  incore:",
             "    a: {compiler: %s}" % q(STANDIN)]
    for u in units:
        if u["place"] == "inc":
            lines.append("    %s: {compiler: %s, include_dirs: [%s]}"
                         % (u["core"], q(STANDIN), q(dir_written(u["incs"][0]))))
    lines.append("classes:")
    by_class = {}
    for u in units:
        by_class.setdefault(u["cls"], []).append(u)
    for cls, us in by_class.items():
        lines += ["  - name: " + cls, "    callable:",
                  "      orchestration: {source: o.c, function_name: f}", "      incores:"]
        for u in us:
            extra = ""
            if u["extra"]:
                extra = ", extra_include_dirs: [%s]" % q(dir_written(u["extra"]))
            lines.append("        - {func_id: %d, source: %s, core_type: %s%s}"
                         % (u["id"], q(u["source"]), u["core"], extra))
    return "\n".join(lines) + "\n"


write(os.path.join(R, "o.c"), "int o;\n")
os.makedirs(os.path.join(T, "specs"))
bad, accepted = [], []
for n, u in enumerate(cases):
    spec = os.path.join(T, "specs", "%d.yaml" % n)
    write(spec, spec_text([u], "../root"))
    mk = os.path.join(T, "one.mk")
    scratch = os.path.join(T, "one")
    r = subprocess.run([KWARM, "gen", spec, "-o", mk, "--cache", scratch + "/cache",
                        "--out", scratch + "/out"], capture_output=True, env=env, cwd=T)
    got = {0: "ok", 2: "refused"}.get(r.returncode, "exit %d" % r.returncode)
    err = r.stderr.decode("utf-8", "replace")
    what = "%s %r" % (u["place"], u["name"])
    if got != u["verdict"]:
        bad.append("%s: %s, expected %s: %s" % (what, got, u["verdict"], err.strip()))
    elif got == "refused":
        # One error naming it: from gen ("kwarm: error: ... 'NAME' ...") or
        # from the spec loader at the name's position ("FILE:L:C: ..."),
        # which shows control characters escaped.
        shown = u["name"].encode("unicode_escape").decode("ascii")
        located = err.startswith(spec + ":") and err.count("\n") == 1
        if (u["name"] not in err and shown not in err) or not (
                located or (err.count("kwarm: ") == 1 and err.startswith("kwarm: "))):
            bad.append("%s: the refusal does not name it once: %r" % (what, err))
        written = [os.path.join(dp, f) for dp, _, fs in os.walk(scratch) for f in fs]
        if os.path.exists(mk) or written:
            bad.append("%s: refused, yet wrote %s" % (what, [mk] + written))
    else:
        accepted.append(u)
    subprocess.run(["rm", "-rf", mk, scratch], check=True)
if bad:
    sys.exit("FAIL: classification:\n  " + "\n  ".join(bad))

with open(os.path.join(T, "spec.yaml"), "w") as f:
    f.write(spec_text(accepted, "root"))
with open(os.path.join(T, "env.sh"), "w") as f:
    for k, v in env.items():
        if k.startswith("KWH_"):
            f.write("export %s='%s'\n" % (k, v.replace("'", "'\\''")))
classes = sorted({u["cls"] for u in accepted}, key=lambda c: int(c[1:]))
with open(os.path.join(T, "classes.txt"), "w") as f:
    f.write("".join(c + "\n" for c in classes))
with open(os.path.join(T, "counts.txt"), "w") as f:
    f.write("%d %d %d %d\n" % (len(accepted), len(cases) - len(accepted),
                               len(classes), len(NAMES)))
with open(os.path.join(T, "edits.txt"), "wb") as f:
    # The file of each accepted case whose path holds the name (NUL-separated).
    f.write(b"".join(os.path.join(R, u["edit"]).encode() + b"\0" for u in accepted))
# The stand-in's argv for every unit, with the children of each class.
units = {"orch": ["-o", "{out}", "o.c"]}
children = {c: [] for c in classes}
for u in accepted:
    key = "%s.%s" % (u["cls"], u["place"])
    units[key] = ["-I" + vis(d) for d in u["incs"]] + ["-o", "{out}", vis(u["source"])]
    children[u["cls"]].append((u["id"], key))
with open(os.path.join(T, "argv.json"), "w") as f:
    json.dump({"units": units, "children": children}, f)
PY

read -r n_ok n_refused n_classes n_names < counts.txt
. ./env.sh

# Expected bytes of every class into bins$1/<class>.callable: the stand-in run
# directly on the recorded argv (cwd root, no shell), then the callable built by
# lib.sh's construction, independent of kwarm's pack code.
build_expected() {
	rm -rf "bins$1"
	python3 - "$T" "$STANDIN" "bins$1" <<'PY'
import json, os, subprocess, sys
T, STANDIN, bins = sys.argv[1], sys.argv[2], os.path.join(sys.argv[1], sys.argv[3])
env = dict(os.environ)
env.pop("STANDIN_LOG", None)
os.makedirs(bins)
d = json.load(open(os.path.join(T, "argv.json")))
for key, argv in d["units"].items():
    out = os.path.join(bins, key)
    subprocess.run([STANDIN] + [out if a == "{out}" else a for a in argv],
                   cwd=os.path.join(T, "root"), env=env, check=True)
for cls, kids in d["children"].items():
    json.dump({"sig": [], "func": "f", "orch": os.path.join(bins, "orch"),
               "children": [{"id": i, "sig": [], "bin": os.path.join(bins, k)} for i, k in kids]},
              open(os.path.join(bins, cls + ".json"), "w"))
PY
	local cls
	while read -r cls; do
		expected_callable "bins$1/$cls.json" > "bins$1/$cls.callable"
	done < classes.txt
}
check_callables() {
	local cls bad=0
	while read -r cls; do
		cmp -s "bins$1/$cls.callable" "out/$cls.callable" || { echo "differs: $cls" >&2; bad=1; }
	done < classes.txt
	[ "$bad" = 0 ] || fail "callables differ from the stand-in run directly ($2)"
}

build_expected 1
"$KWARM" gen spec.yaml -o warmup.mk --cache "$T/cache" --out "$T/out" || fail "gen of all accepted names"
no_canary "gen"
make -f warmup.mk -n warmup > dry.txt || fail "make -n"
[ "$(compiles)" = 0 ] || fail "make -n ran a compiler"
[ -z "$(ls out/*.callable 2>/dev/null)" ] || fail "make -n packed"
no_canary "make -n"
make -f warmup.mk -j2 V=1 warmup > v1.txt || fail "make V=1 warmup"
no_canary "make V=1"
[ "$(compiles)" = "$((n_ok + 1))" ] || fail "expected $((n_ok + 1)) compiles, got $(compiles)"
check_callables 1 "first run"
pass "$n_names names in 5 places: $n_ok (name, place) cases compile to the stand-in's bytes, $n_refused are refused by gen"

# A warm run: nothing compiles, and the Makefile does not remake itself (an input
# spelled wrongly in a prerequisite would look missing, hence always changed).
before=$(stat -c %i warmup.mk)
make -f warmup.mk -j2 warmup > warm.txt || fail "warm make"
[ "$(compiles)" = "$((n_ok + 1))" ] || fail "the warm run compiled"
[ "$(stat -c %i warmup.mk)" = "$before" ] || fail "the warm run regenerated the Makefile"
make -f warmup.mk -q warmup || fail "make -q: the warm-up is not up to date"
no_canary "a warm make"
pass "warm run: no compile, no self-remake"

# Edit every file whose path holds a hostile name (made older than that first,
# whatever the clock's granularity): the Makefile remakes itself, since its
# prerequisites name each of them, and exactly those units recompile.
touch -d '1 minute ago' warmup.mk
python3 - "$T/edits.txt" <<'PY'
import sys
for p in open(sys.argv[1], "rb").read().split(b"\0"):
    if p:
        with open(p, "ab") as f:
            f.write(b"/* edited */\n")
PY
make -f warmup.mk -j2 warmup > remake.txt || fail "make after the edits"
[ "$(stat -c %i warmup.mk)" != "$before" ] || fail "the Makefile did not remake itself"
[ "$(compiles)" = "$((2 * n_ok + 1))" ] || fail "expected $n_ok recompiles, got $(($(compiles) - n_ok - 1))"
no_canary "the self-remake"
build_expected 2
check_callables 2 "after the self-remake"
make -f warmup.mk -n V=1 warmup > dry2.txt || fail "make -n after the remake"
no_canary "make -n after the remake"
pass "edits of hostile files remake the Makefile and recompile exactly their units"

# Class and callable names: only [A-Za-z_][A-Za-z0-9_.-]*, so none is hostile.
mkdir -p names
spec_with() {	# spec_with CLASS-LINE CALLABLE-LINES > file
	printf 'version: 1\nplatform: a5sim\nroot: ../root\ntoolchains:\n  orchestration: {compiler: %s}\n  incore: {a: {compiler: %s}}\nclasses:\n  - name: %s\n%s\n' \
		"$STANDIN" "$STANDIN" "$1" "$2"
}
l2='    callable:
      orchestration: {source: o.c, function_name: f}
      incores: []'
n=0
for cls in '"C$(shell touch CANARY50)"' '"C;touch CANARY51"' '"C x"' '"C`touch CANARY52`"' \
	   '"-C"' '"C:x"' '"C$V"' '"C\u00fc"' '"C\nx"' '"C%"'; do
	n=$((n + 1))
	spec_with "$cls" "$l2" > "names/c$n.yaml"
	set +e; "$KWARM" gen "names/c$n.yaml" -o names/c.mk --cache names/cache --out names/out 2> names/err; rc=$?; set -e
	[ "$rc" = 2 ] || fail "class name $cls: exit $rc, expected 2"
	grep -Eq "names/c$n.yaml:8:11: .*(class name|control characters)" names/err || { cat names/err; fail "class name $cls: message"; }
	[ ! -e names/c.mk ] && [ ! -e names/cache ] && [ ! -e names/out ] || fail "class name $cls: wrote something"
done
for cn in '"c$(shell touch CANARY53)"' '"c d"' '"c;touch CANARY54"' '"c/d"'; do
	n=$((n + 1))
	spec_with C "    callables:
      - name: $cn
        orchestration: {source: o.c, function_name: f}
        incores: []" > "names/c$n.yaml"
	set +e; "$KWARM" gen "names/c$n.yaml" -o names/c.mk --cache names/cache --out names/out 2> names/err; rc=$?; set -e
	[ "$rc" = 2 ] || fail "callable name $cn: exit $rc, expected 2"
	holds names/err "names/c$n.yaml:10:15: .*callable name" "callable name $cn: message"
	[ ! -e names/c.mk ] || fail "callable name $cn: wrote a Makefile"
done
no_canary "hostile class and callable names"
pass "hostile class and callable names are refused by the spec, with their position"

# Free-text spec words that reach the Makefile: an incore's name (in recipes),
# function_name (in comments). A newline in them must not end a Makefile line.
# The spec refuses control characters in every string, so neither can.
if true; then
	printf 'int w;\n' > root/w.c
	for f in 'incores: [{func_id: 0, source: w.c, core_type: a, name: "x\nkw-pwn: ;touch CANARY60 #\nwarmup: kw-pwn #"}]' \
		 'incores: [{func_id: 0, source: w.c, core_type: a}]'; do
		fn='f'
		case $f in *CANARY60*) ;; *) fn='"f\nkw-pwn: ;touch CANARY61 #\nwarmup: kw-pwn #"' ;; esac
		spec_with C "    callable:
      orchestration: {source: o.c, function_name: $fn}
      $f" > names/words.yaml
		rm -rf names/w.mk names/cache names/out
		set +e; "$KWARM" gen names/words.yaml -o names/w.mk --cache names/cache --out names/out 2> names/err; rc=$?; set -e
		if [ "$rc" = 0 ]; then make -k -f names/w.mk warmup > names/out.txt 2>&1 || true; fi
		no_canary "a newline in a spec word ($f)"
		[ "$rc" = 2 ] || fail "a newline in a spec word reaching the Makefile was accepted"
	done
	pass "spec words with newlines are refused"
fi

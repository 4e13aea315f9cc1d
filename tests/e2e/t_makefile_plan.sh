#!/usr/bin/env bash
# labels: e2e
# The generated Makefile reads as a plan (examples/qwen3_decode, real g++
# commands, not run): at most 30 KB (the cache folder counted as C); each unit's line has a comment naming the
# unit and its classes, and spends at most 160 characters before the compiler
# command (its own words: KW_CMD_<key> = ...; one rule makes every entry);
# make -n V=1 prints every compiler command as it would run; make help lists
# each class with its callables and its units cached / in all.
. "$(dirname "$0")/lib.sh"
need g++ g++
need python3 python3

mkdir -p "$T/q"
cp -r "$KWARM_TEST_SRC/examples/qwen3_decode/." "$T/q/"
rm -rf "$T/q/.kwarm"
cd "$T"
"$KWARM" gen q/spec.yaml -o w.mk --cache "$T/cache" --out "$T/out"
# Entries are spelled whole (make reads them faster): the size counts the
# cache folder as the one letter C and the test's folder as T, so it does not
# depend on where $T is (the README's test runs the suite deeper down).
size=$(sed "s|$T/cache/|C/|g; s|$T|T|g" w.mk | wc -c)
[ "$size" -le 30720 ] || fail "the Makefile is $size bytes, more than 30 KB"
units=$(sed -n 's/^# platform a5sim: .*callables, \([0-9]*\) distinct units$/\1/p' w.mk)
[ "$units" = 39 ] || fail "$units units, not 39"
python3 - w.mk <<'PY' || fail "a unit's line is not as planned (above)"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
rules = 0
for i, line in enumerate(lines):
    if not re.match(r"^KW_CMD_[0-9a-f]{64} = ", line):
        continue
    rules += 1
    assert re.match(r"^# (orchestration|incore) '.*'.* of Test", lines[i - 1]), lines[i - 1]
    prefix = line[:line.index(" -- ") + 4]
    assert len(prefix) <= 160, (len(prefix), prefix)
assert rules == 39, rules
rule = [l for l in lines if l.startswith("\t$(KW_Q)$(KW_COMPILE)")]
assert rule == ["\t$(KW_Q)$(KW_COMPILE) $(KW_CMD_$(notdir $*))"], rule
print("39 unit lines, each with its comment; longest prefix %d characters" % max(
    len(l[:l.index(" -- ") + 4]) for l in lines if l.startswith("KW_CMD_")))
PY
pass "$size bytes; each unit named in a comment, under 160 characters before its command"

make -n V=1 -f w.mk warmup > dry.txt
[ ! -e out ] && [ -z "$(find cache/units -type f)" ] || fail "make -n wrote something"
# Every compiler command, as the recipe spells it, whole on one line.
grep -o -- ' -- g++ .*' w.mk | sort -u > planned.txt
grep -o -- ' -- g++ .*' dry.txt | sort -u > shown.txt
[ "$(wc -l < planned.txt)" = 39 ] && cmp planned.txt shown.txt ||
	{ diff planned.txt shown.txt | head; fail "make -n V=1 does not show every compiler command"; }
grep -q -- "--key [0-9a-f]\{64\} -- g++" dry.txt || fail "make -n shows no unit key"
pass "make -n V=1 prints all 39 compiler commands as they run"

make -f w.mk help > help.txt
holds -x help.txt '  warmup-TestQwen3Decode  1 callable, units 0 / 38' "make help does not count the units"
holds -x help.txt '  warmup-TestQwen3DecodeGraph  1 callable, units 0 / 38' "make help does not count the units"
must build.txt "warm-up failed" make -f w.mk -j2 warmup-TestQwen3Decode
make -f w.mk help > help.txt
holds -x help.txt '  warmup-TestQwen3Decode  1 callable, units 38 / 38' "make help does not count the cached units"
holds -x help.txt '  warmup-TestQwen3DecodeGraph  1 callable, units 37 / 38' "make help does not count the cached units"
pass "make help: each class, its callables, units cached / in all"

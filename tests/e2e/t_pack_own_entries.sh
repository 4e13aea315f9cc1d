#!/usr/bin/env bash
# labels: e2e
# The pack checks an entry made during the run against this checkout's files
# unless this run's own compile step made it (its record in run/<tag>/made):
# that one was built from these files. A header only the dependency output
# knows (a macro-named include) changes after its unit compiled, before the
# pack (the wrapper compiling the next unit changes it): the pack packs what
# this run compiled, as it would an entry from before the run, and the next
# run builds the unit again from the new header. Real g++, make -j1.
. "$(dirname "$0")/lib.sh"
need g++ g++

cat > "$T/cc.sh" <<'SH'
#!/bin/sh
# The compile of k/later.cpp changes the header k/first.cpp read.
case "$*" in
*k/first.cpp*) touch "$(dirname "$0")/first-done" ;;
*k/later.cpp*) [ -e "$(dirname "$0")/first-done" ] || { echo "later before first" >&2; exit 1; }
	echo '#define SCALE 30' > include/scale.h ;;
esac
exec g++ "$@"
SH
chmod +x "$T/cc.sh"
gxx_project
printf '#define CFG "scale.h"\n#include CFG\nextern "C" int f(void) { return SCALE; }\n' > k/first.cpp
printf 'extern "C" int g(void) { return 5; }\n' > k/later.cpp
echo '#define SCALE 3' > include/scale.h
gxx_spec "$T/cc.sh" TestX=k/first.cpp,k/later.cpp
"$KWARM" gen spec.yaml -o "$T/w.mk" --cache "$T/cache" --out "$T/out" 2> "$T/gen.err" ||
	{ cat "$T/gen.err"; fail "gen failed"; }
must "$T/run.out" "the pack checked an entry this run built against the header changed after" \
	make -f "$T/w.mk" -j1 warmup
made=$(find "$T/out/.kwarm/run" -name made -size +0)
[ -n "$made" ] || fail "the compile steps left no run/<tag>/made"
rm "$T/first-done"
gxx_run "the run after the header changed"
holds "$T/run.out" "built incore 'first'" "the next run did not build the unit again"
gxx_same_as_fresh TestX "the run after the header changed"
pass "a pack packs the entries its own run built without checking them again"

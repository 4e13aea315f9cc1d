#!/usr/bin/env bash
# labels: e2e
# A file the compiler read that changes while it compiles is never cached as
# what it read: not a header outside the scanner's closure (a macro-named
# include, known only from the dependency output and hashed after the
# compile), nor a header edited and put back during the compile (the key,
# recomputed after it, is the old one again). The compiler is a wrapper of
# g++ that does the edit. An edit during the first compile only heals: the
# unit is compiled again in the same step, with one warning, and gives what an
# empty cache builds from the files as they are. An edit during every compile
# fails the unit, saying so, and the next run builds what an empty cache builds.
. "$(dirname "$0")/lib.sh"
need g++ g++

gxx_project
cat > cc.sh <<'SH'
#!/bin/sh
# once: g++, then the edit (after g++ read the header). aba: the edit, g++,
# then the header as it was. $0.edit is for one compile, $0.always for each.
edit=$(cat "$0.edit" "$0.always" 2>/dev/null); rm -f "$0.edit"
case $edit in
aba) cp include/plain.h plain.h.was; echo '#define PLAIN 2' > include/plain.h ;;
esac
g++ "$@" || exit
case $edit in
once) echo "#define SCALE $(($(wc -c < include/scale.h) + 1))" > include/scale.h ;;
aba) cp plain.h.was include/plain.h ;;
relink) ln -sfn scale-b.h include/scale.h ;;
esac
SH
chmod +x cc.sh
printf '#define CFG "scale.h"\n#include CFG\nextern "C" int f(void) { return SCALE; }\n' > k/macro.cpp
printf '#include "plain.h"\nextern "C" int g(void) { return PLAIN; }\n' > k/plain.cpp
echo '#define SCALE 3' > include/scale.h
echo '#define PLAIN 1' > include/plain.h
gxx_spec "$P/cc.sh" TestMacro=k/macro.cpp TestPlain=k/plain.cpp

# same N CLASS WHAT: what run N made for CLASS equals an empty-cache build now.
same() {
	local n=$1 class=$2 what=$3
	"$KWARM" gen spec.yaml -o "$T/f$n.mk" --cache "$T/fresh$n" --out "$T/fresh$n-out" 2> /dev/null
	make -f "$T/f$n.mk" "warmup-$class" > /dev/null 2>&1 || fail "$what: the empty-cache build failed"
	cmp "$T/out$n/$class.callable" "$T/fresh$n-out/$class.callable" ||
		fail "$what: the callable differs from an empty-cache build (a stale entry was used)"
}

# heal CLASS WHAT: an edit during the first compile of CLASS's unit only.
n=0
heal() {
	local class=$1 what=$2
	n=$((n + 1))
	"$KWARM" gen spec.yaml -o "$T/w$n.mk" --cache "$T/cache$n" --out "$T/out$n" 2> /dev/null
	make -f "$T/w$n.mk" "warmup-$class" > "$T/run$n.out" 2>&1 ||
		{ cat "$T/run$n.out"; fail "$what: the run failed"; }
	[ "$(grep -c "changed while it compiled; compiling it again" "$T/run$n.out")" = 1 ] &&
		grep -q "'include/$3' changed while it compiled" "$T/run$n.out" &&
		! grep -q "error:" "$T/run$n.out" ||
		{ cat "$T/run$n.out"; fail "$what: not one warning naming include/$3, or an error"; }
	same $n "$class" "$what"
	pass "$what: compiled again in the same step, one warning; equals an empty-cache build"
}

# fails CLASS WHAT: an edit during every compile of CLASS's unit; then a run
# with nothing edited.
fails() {
	local class=$1 what=$2
	n=$((n + 1))
	"$KWARM" gen spec.yaml -o "$T/w$n.mk" --cache "$T/cache$n" --out "$T/out$n" 2> /dev/null
	! make -f "$T/w$n.mk" "warmup-$class" > "$T/run$n.out" 2>&1 ||
		{ cat "$T/run$n.out"; fail "$what: the run succeeded"; }
	grep -q "changed while it compiled; the result is not cached" "$T/run$n.out" ||
		{ cat "$T/run$n.out"; fail "$what: the run failed without saying an input changed"; }
	rm -f cc.sh.always
	make -f "$T/w$n.mk" "warmup-$class" > "$T/again$n.out" 2>&1 ||
		{ cat "$T/again$n.out"; fail "$what: the next run failed"; }
	same $n "$class" "$what"
	pass "$what: not cached as what the compiler read; the next run equals an empty-cache build"
}
echo once > cc.sh.edit
heal TestMacro "a macro-named header edited after the compiler read it" scale.h
echo aba > cc.sh.edit
heal TestPlain "a header edited and put back while it compiled" plain.h
echo once > cc.sh.always
fails TestMacro "a macro-named header edited during every compile"
echo aba > cc.sh.always
fails TestPlain "a header edited and put back during every compile"
# A symlink pointed at another, older file while it compiled: only the
# link's own ctime tells.
cp include/scale.h include/scale-a.h
echo '#define SCALE 7' > include/scale-b.h
ln -sfn scale-a.h include/scale.h
echo relink > cc.sh.edit
heal TestMacro "a macro-named header that is a symlink, pointed elsewhere while it compiled" scale.h

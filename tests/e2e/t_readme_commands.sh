#!/usr/bin/env bash
# labels: e2e;slow
# timeout: 1800
# The README's first two indented command lines, read from the README and run
# verbatim in a fresh clone of the committed source tree: the main job warms up
# examples/qwen3_decode into build/callables with its cache in build/kwarm-cache
# and leaves nothing but build/ in the tree; the test command then builds with
# -Werror and runs the whole suite, in which this test skips itself (the
# environment variable KWARM_TEST_NESTED) rather than recurse.
. "$(dirname "$0")/lib.sh"

[ -z "${KWARM_TEST_NESTED:-}" ] || skip "the README's test command runs this suite: not again inside it"
need git git
need g++ g++

git clone -q "$KWARM_TEST_SRC" "$T/src" || fail "cannot clone '$KWARM_TEST_SRC'"
cd "$T/src"
echo "testing commit $(git rev-parse --short HEAD) of $KWARM_TEST_SRC (uncommitted changes are not tested)"

# The first two lines of the README indented by 4 spaces, less the indent and
# the trailing '# ...' comment.
mapfile -t lines < <(grep -m 2 '^    [^ ]' README.md | sed 's/^    //; s/[[:space:]]\{1,\}#.*$//')
[ "${#lines[@]}" = 2 ] || fail "the README has ${#lines[@]} indented command lines, want 2"
main=${lines[0]} tests=${lines[1]}
case $main in *"--target warmup"*) ;; *) fail "the README's first line is not the main job: $main" ;; esac
case $tests in *ctest*) ;; *) fail "the README's second line is not the test command: $tests" ;; esac

# Only what the build gets from its caller: none of this test's variables.
run() {
	env -u KWARM -u STANDIN -u STANDIN_LOG -u KWARM_TEST_SRC -u KWARM_TEST_TMP \
		KWARM_TEST_NESTED=1 bash -c "$1" > "$2" 2>&1
}

# The tree holds nothing new but the build folder.
clean_tree() {
	local st
	st=$(git status --ignored --porcelain)
	case $st in "!! build/" | "?? build/") ;; *) echo "$st" >&2; fail "after $1 the tree holds more than build/ (above)" ;; esac
}

echo "main job: $main"
run "$main" "$T/main.log" || { tail -n 50 "$T/main.log"; fail "the main job failed"; }
for c in TestQwen3Decode TestQwen3DecodeGraph; do
	[ -s "build/callables/$c.callable" ] || { tail -n 20 "$T/main.log"; fail "the main job made no build/callables/$c.callable"; }
done
entries=$(find build/kwarm-cache/units -name '*.m' 2> /dev/null | wc -l)
[ "$entries" = 39 ] || fail "build/kwarm-cache holds $entries entries, want the example's 39 units"
build/kwarm cache --cache build/kwarm-cache verify > "$T/verify.log" 2>&1 ||
	{ cat "$T/verify.log"; fail "the main job's cache does not verify"; }
clean_tree "the main job"
pass "main job: 2 callables in build/callables, 39 entries in build/kwarm-cache, nothing outside build/"

echo "test command: $tests"
run "$tests" "$T/tests.log" || { tail -n 80 "$T/tests.log"; fail "the test command failed"; }
grep -Eq '^100% tests passed, 0 tests failed out of [0-9]+' "$T/tests.log" ||
	{ tail -n 40 "$T/tests.log"; fail "the test command did not report every test passed"; }
grep -Eq 'e2e\.t_readme_commands .*Skipped' "$T/tests.log" ||
	{ tail -n 40 "$T/tests.log"; fail "the nested run did not skip this test"; }
clean_tree "the test command"
pass "test command: $(grep -Eo 'out of [0-9]+' "$T/tests.log" | head -n 1) tests passed, nothing outside build/"

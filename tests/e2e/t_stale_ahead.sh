#!/usr/bin/env bash
# labels: e2e
# The remake check ahead (kwarm stale --ahead / --answer): a Makefile with a
# long watch list starts its check at its top and takes the answer at its
# end, which is the answer kwarm stale gives; make remakes the Makefile
# through it after an edit, and only then; a Makefile with a short list keeps
# the one check at its end. The checking process holds no fd of make's and
# ends with the make it was started for, answered or not.
. "$(dirname "$0")/lib.sh"

# One unit that includes 4,200 headers: a watch list over WATCH_AHEAD_MIN.
mkdir -p "$T/root"
cd "$T/root"
for i in $(seq -w 0 4199); do echo "#define H$i $i" > "h$i.h"; done
{ for i in $(seq -w 0 4199); do echo "#include \"h$i.h\""; done
  echo 'int e(void) { return 0; }'; } > orch.c
echo 'int k(void) { return 1; }' > k.c
standin_spec "$T/root" TestAhead=k.c
touch -d '1 hour ago' ./*.h ./*.c spec.yaml
cd "$T"
"$KWARM" gen root/spec.yaml -o big.mk --cache "$T/cache" --out "$T/out"
[ "$(grep -c '^[ia] ' big.mk.inputs)" -ge 4096 ] || fail "the watch list is not long"
holds -x big.mk 'KW_STALE := $(shell $(KW_KWARM) stale --ahead $$PPID $(KW_MAKEFILE))' "no check ahead at the top"
holds -x big.mk "KW_STALE_SAYS := \$(shell \$(KW_KWARM) stale --tag --answer '\$(KW_STALE)' \$(KW_MAKEFILE))" "no answer taken at the end"
mkdir short
echo 'int e(void) { return 2; }' > short/orch.c
echo 'int k(void) { return 3; }' > short/k.c
standin_spec "$T/short" TestShort=k.c
"$KWARM" gen short/spec.yaml -o short.mk --cache "$T/cache" --out "$T/out"
! grep -q 'KW_STALE :=\|--answer' short.mk || fail "a short watch list is checked ahead"
holds -x short.mk 'KW_STALE_SAYS := $(shell $(KW_KWARM) stale --tag $(KW_MAKEFILE))' "a short list has no check at the end"
pass "a long watch list is checked ahead, a short one at the end only"

# The answer is kwarm stale's, before and after an edit; without a check to
# ask (no token, one of no process) --answer checks itself.
tok=$("$KWARM" stale --ahead $$ big.mk)
case $tok in kwarm-stale-$$-*) ;; *) fail "no token: '$tok'" ;; esac
[ -z "$("$KWARM" stale --answer "$tok" big.mk)" ] || fail "a fresh Makefile is called stale ahead"
touch root/h2100.h
tok=$("$KWARM" stale --ahead $$ big.mk)
[ "$("$KWARM" stale --answer "$tok" big.mk)" = "$T/root/h2100.h" ] || fail "the edited header is not named ahead"
[ "$("$KWARM" stale --answer '' big.mk)" = "$T/root/h2100.h" ] || fail "no token: the edit is not named"
[ "$("$KWARM" stale --answer kwarm-stale-1-00 big.mk)" = "$T/root/h2100.h" ] || fail "a token of no check: the edit is not named"
pass "the answer ahead is kwarm stale's; without a check to ask, the check is made then"

# Through make: an edit remakes the Makefile, the next run does not.
before=$(stat -c %Y.%y big.mk)
make -f big.mk help > help1.txt 2>&1 || { cat help1.txt; fail "make help failed"; }
[ "$(stat -c %Y.%y big.mk)" != "$before" ] || fail "the Makefile was not remade after an edit"
after=$(stat -c %Y.%y big.mk)
make -f big.mk help > help2.txt 2>&1 || { cat help2.txt; fail "make help failed again"; }
[ "$(stat -c %Y.%y big.mk)" = "$after" ] || fail "the Makefile was remade with nothing edited"
holds help2.txt 'warmup-TestAhead  1 callable, units 0 / 2' "make help does not list the class"
pass "make remakes the Makefile after an edit, and not again"

# The check holds none of make's fds: make's output through a pipe ends when
# make does. And it ends with its make, never asked.
make -f big.mk help | cat > help3.txt
cmp -s help2.txt help3.txt || fail "make help through a pipe differs"
sleep infinity &
owner=$!
trap 'kill -KILL $owner 2> /dev/null || true' EXIT
tok=$("$KWARM" stale --ahead "$owner" big.mk)
inode=$(awk -v name="@$tok" '$8 == name { print $7 }' /proc/net/unix)
[ -n "$inode" ] || fail "no socket listens for $tok"
checker=$({ find /proc/[0-9]*/fd -lname "socket:\[$inode\]" 2> /dev/null || true; } | sed -n '1s|^/proc/\([0-9]*\)/.*|\1|p')
[ -n "$checker" ] || fail "no process holds the socket of $tok"
[ "$(find "/proc/$checker/fd" -mindepth 1 | wc -l)" = 5 ] || { ls -l "/proc/$checker/fd"; fail "the check holds more than its socket, its watch and /dev/null"; }
kill "$owner"
wait "$owner" 2> /dev/null || true
timeout 60 tail --pid="$checker" -f /dev/null || fail "the check outlived its make by a minute"
pass "the check holds no fd of make's and ends with its make"

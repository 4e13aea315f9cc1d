#!/usr/bin/env bash
# labels: e2e
# kwarm --help, kwarm help CMD and the man page agree: every command of the
# table has a ".SS kwarm CMD" section and no section names a missing command;
# each option in a command's usage appears in its section and each option in
# the section appears in its usage; -h prints the same usage as help CMD.
. "$(dirname "$0")/lib.sh"
need python3 python3

man=$KWARM_TEST_SRC/doc/kwarm.1
cd "$T"
"$KWARM" --help > help.txt
cmds=$(awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }' help.txt)
[ -n "$cmds" ] || fail "no command table in kwarm --help"
for c in $cmds; do
	"$KWARM" help "$c" > "usage.$c" || fail "kwarm help $c failed"
	"$KWARM" "$c" -h > "h.$c" || fail "kwarm $c -h failed"
	cmp -s "usage.$c" "h.$c" || fail "kwarm $c -h differs from kwarm help $c"
done
cat > check.py <<'PY'
import re, sys
man, cmds = sys.argv[1], sys.argv[2:]
text = open(man).read()

def plain(roff):
    roff = re.sub(r'\\f[BIRP]', '', roff)
    roff = roff.replace('\\-', '-').replace('\\(em', '-')
    # Request names (.TP, .BI ...) are not text.
    return '\n'.join(re.sub(r'^\.[A-Za-z]+\s?', '', l) for l in roff.splitlines()
                     if not l.startswith('.\\"'))

OPT = re.compile(r'(?<![\w-])(--?[A-Za-z][A-Za-z0-9-]*)')
sections = {}
for m in re.finditer(r'^\.SS kwarm (\S+)\n(.*?)(?=^\.S[SH] )', text, re.S | re.M):
    sections[m.group(1)] = plain(m.group(2))
bad = []
for c in cmds:
    if c not in sections:
        bad.append(f"command {c}: no '.SS kwarm {c}' section in the man page")
        continue
    usage = open(f"usage.{c}").read()
    u, s = set(OPT.findall(usage)), set(OPT.findall(sections[c]))
    for o in sorted(u - s):
        bad.append(f"command {c}: usage option {o} is not in its man section")
    for o in sorted(s - u):
        bad.append(f"command {c}: man option {o} is not in its usage")
for c in sorted(set(sections) - set(cmds)):
    bad.append(f"man section 'kwarm {c}' names no command of kwarm --help")
for b in bad:
    print(b)
print(f"{len(cmds)} commands checked")
sys.exit(1 if bad else 0)
PY
python3 check.py "$man" $cmds || fail "the man page and the usage texts differ (above)"
pass "kwarm --help, help CMD, CMD -h and the man page agree ($(echo $cmds | wc -w) commands)"

# The check bites: a man page missing one option of compile, or naming one
# the usage lacks, fails it.
sed 's/\\-\\-goals/\\-\\-gols/g' "$man" > broken.1
grep -q -- '-gols' broken.1 || fail "could not break the man page copy"
python3 check.py broken.1 $cmds > broken.out && fail "a man page without --goals passed"
grep -q "usage option --goals is not in its man section" broken.out || fail "missing --goals not named"
grep -q "man option --gols is not in its usage" broken.out || fail "stray --gols not named"
pass "a man page out of sync is caught, naming the option"

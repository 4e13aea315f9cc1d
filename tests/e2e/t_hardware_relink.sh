#!/usr/bin/env bash
# labels: e2e
# Link words are part of a unit's key: changing one role's linker flags in the
# spec recompiles (and relinks) exactly that role's units on a plain `make`
# (the Makefile remakes itself), and nothing else; so does a new linker binary.
. "$(dirname "$0")/lib.sh"
need g++ g++
need python3 python3

H=$T/hw
mkdir -p "$H" "$T/bin"
cp -r "$KWARM_TEST_SRC/examples/hardware/." "$H/"
rm -rf "$H/.kwarm"
# Wrappers that log each run, so compiles and links can be counted per source.
cat > "$T/bin/cc-log" <<SH
#!/bin/sh
echo "cc \$*" >> "$T/tools.log"
exec cc "\$@"
SH
cat > "$T/bin/gxx-log" <<SH
#!/bin/sh
echo "cc \$*" >> "$T/tools.log"
exec g++ "\$@"
SH
cat > "$T/bin/ld-log" <<SH
#!/bin/sh
echo "ld \$*" >> "$T/tools.log"
exec ld "\$@"
SH
chmod +x "$T/bin/cc-log" "$T/bin/gxx-log" "$T/bin/ld-log"
sed -i "s#compiler: cc#compiler: $T/bin/cc-log#; s#compiler: g++#compiler: $T/bin/gxx-log#; s#link: \[ld,#link: [$T/bin/ld-log,#" "$H/spec.yaml"
grep -q "cc-log" "$H/spec.yaml" && grep -q "gxx-log" "$H/spec.yaml" && grep -q "ld-log" "$H/spec.yaml" || fail "the wrappers are not in the spec"

# Runs of TOOL (cc or ld) whose command line names NAME.
runs() { grep -c "^$1 .*$2" "$T/tools.log" || true; }
cd "$T"
"$KWARM" gen hw/spec.yaml -o warmup.mk --cache "$T/cache" --out "$T/out"

# run WHAT EXPECTED...: one plain make, then "stem=N" for each unit's compiles.
run() {
	local what=$1 want got
	shift
	: > "$T/tools.log"
	must make.out "$what: make failed" make -f warmup.mk -j2 warmup
	for want in "$@"; do
		got=$(runs cc "${want%%=*}")
		[ "$got" = "${want##*=}" ] || { cat "$T/tools.log"; fail "$what: ${want%%=*} compiled $got times, want ${want##*=}"; }
	done
	pass "$what: $*"
}

run "cold" vec_add=1 vec_scale=1 row_sum=1 mat_mul=1 hw_orch=1
[ "$(grep -c '^ld ' "$T/tools.log")" = 4 ] || fail "cold: $(grep -c '^ld ' "$T/tools.log") links, want 4"
run "nothing changed" vec_add=0 vec_scale=0 row_sum=0 mat_mul=0 hw_orch=0

# Edit one role's link words only (the line after its name's block opens).
edit_link() {
	python3 - "$H/spec.yaml" "$1" "$2" <<'PY'
import re, sys
path, role, extra = sys.argv[1:]
lines = open(path).read().split("\n")
cur = None
for i, line in enumerate(lines):
    m = re.match(r"^    (\w+):\s*$", line)
    if m:
        cur = m.group(1)
    if cur == role and line.lstrip().startswith("link: ["):
        lines[i] = line.replace("link: [", "link: [").rstrip("]") + ", " + extra + "]"
        break
else:
    sys.exit("no link line for role " + role)
open(path, "w").write("\n".join(lines))
PY
}
edit_link aiv "-z, noexecstack"
run "aiv link flags (-z noexecstack)" vec_add=1 vec_scale=1 row_sum=1 mat_mul=0 hw_orch=0
[ "$(grep -c '^ld .*noexecstack' "$T/tools.log")" = 3 ] || fail "the new link flag was not used by 3 links"
edit_link aic "--defsym=device_core=1"
run "aic link flags (--defsym)" vec_add=0 vec_scale=0 row_sum=0 mat_mul=1 hw_orch=0
sed -i 's/--defsym=device_core=1/--defsym=device_core=2/' "$H/spec.yaml"
run "aic --defsym value" vec_add=0 vec_scale=0 row_sum=0 mat_mul=1 hw_orch=0

# The linker's identity is in the key too: a changed linker relinks every incore.
printf '# a new linker\n' >> "$T/bin/ld-log"
run "a new linker binary" vec_add=1 vec_scale=1 row_sum=1 mat_mul=1 hw_orch=0

# The linker script's content is in the key: editing it relinks every unit
# linked with it (all four incores), nothing else.
printf '\n/* edited */\n' >> "$H/link.ld"
run "an edited linker script" vec_add=1 vec_scale=1 row_sum=1 mat_mul=1 hw_orch=0

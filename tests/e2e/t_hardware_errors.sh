#!/usr/bin/env bash
# labels: e2e
# Hardware-style failures with the real cc and ld: an undefined symbol fails at
# the link step naming the unit and its classes; an image without .text and an
# entry point that is not the start of .text are clear errors; none is cached
# or packed, while the good classes finish (make -k).
. "$(dirname "$0")/lib.sh"

R=$T/root
mkdir -p "$R"
cp "$KWARM_TEST_SRC/examples/hardware/link.ld" "$R/"
printf 'int orch(void) { return 0; }\n' > "$R/orch.c"
printf 'void kernel_entry(int *p) { p[0] = 1; }\n' > "$R/good.c"
printf 'void missing_helper(int *p);\nvoid kernel_entry(int *p) { missing_helper(p); }\n' > "$R/undef.c"
# Its only function sits in a section of its own: the image has no .text.
printf '__attribute__((section(".kernel"))) void kernel_entry(int *p) { p[0] = 1; }\n' > "$R/notext.c"
# A helper the compiler emits first: without the layout script the entry is not at 0.
cat > "$R/late.c" <<'C'
__attribute__((noinline)) static int helper(int *p) { return p[1] * 3 + p[2]; }
void kernel_entry(int *p) { p[0] = helper(p); }
C
kflags='[-O2, -c, -ffreestanding, -fno-pic, -fno-asynchronous-unwind-tables, -fno-unwind-tables]'
# The example's way: each function in its own section, the layout script puts the entry first.
lflags='[-O2, -c, -ffreestanding, -fno-pic, -fno-asynchronous-unwind-tables, -fno-unwind-tables, -ffunction-sections]'
cat > "$R/spec.yaml" <<YAML
version: 1
platform: a5hw
toolchains:
  orchestration: {compiler: cc, flags: [-O2, -fPIC, -shared]}
  incore:
    aiv: {compiler: cc, flags: $lflags, link: [ld, -e, kernel_entry, -T, link.ld], extract: text}
    plain: {compiler: cc, flags: $kflags, link: [ld, -e, kernel_entry], extract: text}
classes:
  - name: TestA
    callable:
      orchestration: &orch {source: orch.c, function_name: orch}
      incores: [{func_id: 0, source: good.c, core_type: aiv}, {func_id: 1, source: undef.c, core_type: aiv}]
  - {name: TestB, callable: {orchestration: *orch, incores: [{func_id: 0, source: undef.c, core_type: aiv}]}}
  - {name: TestNoText, callable: {orchestration: *orch, incores: [{func_id: 0, source: notext.c, core_type: plain}]}}
  - {name: TestLate, callable: {orchestration: *orch, incores: [{func_id: 0, source: late.c, core_type: plain}]}}
  - {name: TestLateLaidOut, callable: {orchestration: *orch, incores: [{func_id: 0, source: late.c, core_type: aiv}]}}
YAML
gen_warmup
if make -k -f warmup.mk -j2 warmup > out.txt 2> err.txt; then fail "make succeeded"; fi

failure_block err.txt "incore 'undef' (aiv)" "at the link step (exit status 1); classes: TestA, TestB" \
	3 "undefined reference to .missing_helper"
pass "undefined symbol: fails at the link step, naming the unit and its classes"

holds err.txt "^kwarm: error: incore 'notext' (plain): the linked image has no .text section$" \
	"an image without .text is not a clear error"
pass "an image without .text is an error naming the unit"

# The precondition, checked apart from kwarm: ld put the helper first.
(cd "$R" && cc -O2 -c -ffreestanding -fno-pic -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-o "$T/late.o" late.c && ld -e kernel_entry -o "$T/late.elf" "$T/late.o")
entry=$(readelf -h "$T/late.elf" | awk '/Entry point/ { print $4 }')
text=$(objdump -h "$T/late.elf" | awk '$2 == ".text" { print $4 }')
text=$(printf '0x%x' "$((16#$text))")
[ "$((entry))" != "$((text))" ] || fail "precondition: the entry is at the start of .text"
holds err.txt "^kwarm: error: incore 'late' (plain): the entry point $entry is not the start of .text ($text)$" \
	"an entry point off the start of .text is not an error"
pass "an entry point that is not the start of .text is an error"

[ -s out/TestLateLaidOut.callable ] || fail "the same kernel with the layout script was not packed"
for c in TestA TestB TestNoText TestLate; do
	[ ! -e "out/$c.callable" ] || fail "$c was packed with a failed unit"
done
pass "make -k: the good class finished, no class with a failed unit packed"

: > out.txt
make -k -f warmup.mk -j2 warmup > out.txt 2> err2.txt || true
for u in undef notext late; do
	grep -q "incore '$u' (" err2.txt || fail "failed unit $u was cached"
done
[ -z "$(find cache/tmp -mindepth 1)" ] || fail "scratch files left in the cache: $(find cache/tmp -mindepth 1)"
pass "failed units are not cached, no scratch left"

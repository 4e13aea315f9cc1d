/* Unit tests of extract: real images built here with cc and ld, each error
 * told apart by its message, and the good bytes compared with objcopy's. */
#include "buf.h"
#include "check.h"
#include "pack/extract.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dir;

/* A layout like the hardware example's: the entry first, then the rest. */
static const char layout[] =
	"SECTIONS {\n"
	"  . = 0;\n"
	"  .text : { *(.text.kernel_entry) *(.text .text.*) *(.rodata .rodata.*) }\n"
	"  /DISCARD/ : { *(.comment .note .note.* .eh_frame) }\n"
	"}\n";

/* A kernel whose helper gcc emits before the entry, and a second function. */
static const char kernel[] =
	"__attribute__((noinline)) static int helper(int *p, int n)\n"
	"{ int s = 0; for (int i = 0; i < n; i++) s += p[i] * 3; return s; }\n"
	"__attribute__((noinline)) void second(int *p) { p[1] = 7; }\n"
	"void kernel_entry(int *p, int n) { p[0] = helper(p, n); second(p); }\n";

/* Run a shell command in dir; die if it fails (the test's own setup). */
static void sh(const char *cmd)
{
	char *full = xstrfmt("cd '%s' && %s", dir, cmd);

	if (system(full) != 0)
		die("setup command failed: %s", cmd);
	free(full);
}

/* extract_text on dir/image into dir/out; returns its result and what it said
 * on stderr (caller frees *msg). */
static int extract(const char *image, const char *out, char **msg)
{
	char *in = xstrfmt("%s/%s", dir, image), *to = xstrfmt("%s/%s", dir, out);
	int ret;

	check_capture_begin(2);
	ret = extract_text(in, to, "incore 'k' (aiv)", NULL);
	*msg = check_capture_end(2);
	free(in);
	free(to);
	return ret;
}

static int exists(const char *name)
{
	char *path = xstrfmt("%s/%s", dir, name);
	struct stat st;
	int ret = !stat(path, &st);

	free(path);
	return ret;
}

static int same_file(const char *a, const char *b)
{
	char *pa = xstrfmt("%s/%s", dir, a), *pb = xstrfmt("%s/%s", dir, b);
	char *da, *db;
	size_t la, lb;
	int ret;

	if (read_file_all(pa, &da, &la) || read_file_all(pb, &db, &lb))
		die("cannot read '%s' or '%s'", pa, pb);
	ret = la == lb && la > 0 && !memcmp(da, db, la);
	free(da);
	free(db);
	free(pa);
	free(pb);
	return ret;
}

/* Expect a failure whose message contains want, and no output file left. */
static void expect_error(const char *image, const char *want)
{
	char *msg;
	int ret = extract(image, "bad.bin", &msg);

	CHECK_INT(ret, -1);
	if (!CHECK(strstr(msg, "kwarm: error: incore 'k' (aiv): ") && strstr(msg, want)))
		fprintf(stderr, "  image %s said: %s  want: %s\n", image, msg, want);
	if (!CHECK(!exists("bad.bin")))
		sh("rm -f bad.bin");
	free(msg);
}

#define CC "cc -O2 -c -ffreestanding -fno-pic -fno-asynchronous-unwind-tables -ffunction-sections "

static void test_good(void)
{
	char *msg;

	sh("ld -e kernel_entry -T layout.ld -o k.elf k.o");
	sh("objcopy -O binary -j .text k.elf objcopy.bin");
	CHECK_INT(extract("k.elf", "k.bin", &msg), 0);
	CHECK_STR(msg, "");
	CHECK(same_file("k.bin", "objcopy.bin"));
	free(msg);

	/* The output is a new file: an existing one is never overwritten. */
	CHECK_INT(extract("k.elf", "k.bin", &msg), -1);
	CHECK_HAS(msg, "cannot create");
	free(msg);
}

static void test_errors(void)
{
	char *msg;

	check_write_text(dir, "notelf.txt", "this is not an ELF image\n", 0644);
	expect_error("notelf.txt", "the linked image '");
	expect_error("notelf.txt", "is not an ELF file");
	expect_error("missing.elf", "cannot open the linked image");
	/* With a why, the error goes there and nothing is printed. */
	{
		char *in = xstrfmt("%s/notelf.txt", dir), *to = xstrfmt("%s/notelf.out", dir);
		struct buf why = BUF_INIT;

		check_capture_begin(2);
		CHECK_INT(extract_text(in, to, "incore 'k' (aiv)", &why), -1);
		msg = check_capture_end(2);
		CHECK_STR(msg, "");
		CHECK(starts_with(buf_str(&why), "incore 'k' (aiv): the linked image '"));
		CHECK_HAS(buf_str(&why), "is not an ELF file");
		CHECK(!exists("notelf.out"));
		free(msg);
		buf_release(&why);
		free(to);
		free(in);
	}

	/* Data only: ld warns that the entry is missing, and writes no .text. */
	check_write_text(dir, "data.c", "int table[4] = {1, 2, 3, 4};\n", 0644);
	sh(CC "-o data.o data.c && ld -e kernel_entry -o data.elf data.o 2>/dev/null");
	expect_error("data.elf", "the linked image has no .text section");

	/* An object (no link step) that calls another file keeps its relocations. */
	check_write_text(dir, "calls.c",
			 "void ext(int *p);\nvoid kernel_entry(int *p) { ext(p); p[0] = 1; }\n", 0644);
	check_write_text(dir, "ext.c", "void ext(int *p) { p[1] = 2; }\n", 0644);
	sh(CC "-fno-function-sections -o calls.o calls.c && " CC "-o ext.o ext.c");
	expect_error("calls.o", "relocations are left against .text (section '.rela.text')");
	/* A relocatable link keeps them too, and so does --emit-relocs. */
	sh("ld -r -o partial.o calls.o ext.o");
	expect_error("partial.o", "relocations are left against .text");
	sh("ld -e kernel_entry -T layout.ld -o calls.elf calls.o ext.o");
	CHECK_INT(extract("calls.elf", "calls.bin", &msg), 0);
	free(msg);
	sh("ld -q -e kernel_entry -T layout.ld --no-warn-rwx-segments -o emit.elf calls.o ext.o");
	expect_error("emit.elf", "relocations are left against .text (section '.rela.text')");

	/* Dynamic relocations patching .text (a text relocation of a shared link). */
	check_write_text(dir, "textrel.s", ".text\n.globl kernel_entry\nkernel_entry:\n\tret\n"
			 "\t.quad target\n.data\n.globl target\ntarget:\n\t.quad 0\n", 0644);
	sh("cc -c -o textrel.o textrel.s && "
	   "ld -shared -z notext -e kernel_entry -o textrel.so textrel.o");
	expect_error("textrel.so", "relocations are left against .text (section '.rela.dyn')");

	/* Linked with an entry that is not the first byte of .text. */
	sh("ld -e second -T layout.ld -o second.elf k.o");
	expect_error("second.elf", "the entry point 0x");
	expect_error("second.elf", "is not the start of .text (0x0)");

	/* A layout that marks .text NOLOAD: the section holds no bytes in the file. */
	check_write_text(dir, "noload.ld", "SECTIONS { . = 0; .text (NOLOAD) : { *(.text.kernel_entry) "
			 "*(.text .text.*) } }\n", 0644);
	sh("ld -e kernel_entry -T noload.ld -o noload.elf k.o");
	expect_error("noload.elf", "the .text section of the linked image is empty");
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	dir = check_tmpdir("extract");
	check_write_text(dir, "layout.ld", layout, 0644);
	check_write_text(dir, "k.c", kernel, 0644);
	sh(CC "-o k.o k.c");	/* both cases link it */
	TEST(test_good(), "good");
	TEST(test_errors(), "errors");
	free(dir);
	return check_done();
}

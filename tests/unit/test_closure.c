#include "batchread.h"
#include "buf.h"
#include "check.h"
#include "key/closure.h"
#include "path.h"
#include "util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void build_tree(const char *root)
{
	static const char *const tree[] = {
		"src/a.cpp",
			"#include \"local.h\"\n"
			"#include <lib/x.h>\n"
			"#include <stdio.h>\n"
			"// #include \"gone_line.h\"\n"
			"/* #include \"gone_inline.h\" */\n"
			"#  include \"spaced.h\"\n"
			"#include CONFIG_HEADER\n"
			"#include\"tight.h\"\n"
			"#include <shadow.h>\n"
			"#include <next.h>\n"
			"/*\n#include \"commented.h\"\n*/\n"
			"/* lead */ # /* mid */ include \"lead.h\" // tail\n"
			"#includes \"not_a_directive.h\"\n"
			"int main(void) { return 0; }\n",
		"src/local.h", "#pragma once\n#include \"cycle_a.h\"\n",
		"inc/local.h", "decoy: the quoted include finds src/local.h first\n",
		"src/cycle_a.h", "#include \"cycle_b.h\"\n",
		"src/cycle_b.h", "#include \"cycle_a.h\"\n",
		"inc/lib/x.h", "#include \"y.h\"\n",
		"inc/lib/y.h", "#ifdef NEVER\n#include <z.h>\n#endif\n",
		"inc2/z.h", "#include \"zz.h\"\r\n#include FOO_H\r\n#include <z.h>\r\n",
		"inc2/zz.h", "int zz;\n",
		"src/spaced.h", "\n",
		"inc2/shadow.h", "int first;\n",
		"inc3/shadow.h", "int second;\n",
		"inc2/next.h", "#include_next <next.h>\n",
		"inc3/next.h", "int next;\n",
		"src/lead.h", "",
		NULL
	};

	check_write_tree(root, tree);
}

static void dirs_of(struct strvec *sv, const char *a, const char *b, const char *c)
{
	strvec_init(sv);
	strvec_push(sv, a);
	if (b)
		strvec_push(sv, b);
	if (c)
		strvec_push(sv, c);
}

static void closure_hex(const struct closure *c, char hex[DIGEST_HEX_SIZE])
{
	struct digest d;

	digest_init(&d);
	closure_digest(c, &d);
	digest_final_hex(&d, hex);
}

/* closure_compute of src into hex (when it succeeds); its return value. */
static int compute_hex(struct closure_cache *cc, const char *root, const struct strvec *src,
		       const struct strvec *inc, char hex[DIGEST_HEX_SIZE])
{
	struct closure c;
	int ret = closure_compute(cc, root, src, inc, &c);

	if (!ret)
		closure_hex(&c, hex);
	closure_release(&c);
	return ret;
}

/* Compute the closure of one source in a fresh cache and return its digest. */
static int fresh_hex(const char *root, const char *source, const struct strvec *inc,
		     char hex[DIGEST_HEX_SIZE])
{
	struct closure_cache cc;
	struct strvec src;
	int ret;

	closure_cache_init(&cc);
	dirs_of(&src, source, NULL, NULL);
	ret = compute_hex(&cc, root, &src, inc, hex);
	strvec_release(&src);
	closure_cache_release(&cc);
	return ret;
}

/* build_tree in the fresh folder name, a closure cache over it, and the unit
 * src/a.cpp with -I inc inc2 inc3. */
struct fixture {
	char *root;
	struct closure_cache cc;
	struct strvec src, inc;
};

static void fixture_init(struct fixture *f, const char *name)
{
	f->root = check_tmpdir(name);
	build_tree(f->root);
	closure_cache_init(&f->cc);
	dirs_of(&f->src, "src/a.cpp", NULL, NULL);
	dirs_of(&f->inc, "inc", "inc2", "inc3");
}

static void fixture_release(struct fixture *f)
{
	strvec_release(&f->inc);
	strvec_release(&f->src);
	closure_cache_release(&f->cc);
	free(f->root);
}

static void test_tree(void)
{
	static const char *const files[] = {
		"src/a.cpp", "src/local.h", "src/cycle_a.h", "src/cycle_b.h", "inc/lib/x.h",
		"inc/lib/y.h", "inc2/z.h", "inc2/zz.h", "src/spaced.h", "inc2/shadow.h",
		"inc2/next.h", "inc3/next.h", "src/lead.h",
	};
	static const char *const edges[] = {
		"src/a.cpp\tquote\tlocal.h\tsrc/local.h",
		"src/local.h\tquote\tcycle_a.h\tsrc/cycle_a.h",
		"src/cycle_a.h\tquote\tcycle_b.h\tsrc/cycle_b.h",
		"src/cycle_b.h\tquote\tcycle_a.h\tsrc/cycle_a.h",
		"src/a.cpp\tangle\tlib/x.h\tinc/lib/x.h",
		"inc/lib/x.h\tquote\ty.h\tinc/lib/y.h",
		"inc/lib/y.h\tangle\tz.h\tinc2/z.h",
		"inc2/z.h\tquote\tzz.h\tinc2/zz.h",
		"inc2/z.h\tmacro\tFOO_H\t",
		"inc2/z.h\tangle\tz.h\tinc2/z.h",
		"src/a.cpp\tangle\tstdio.h\t",
		"src/a.cpp\tquote\tspaced.h\tsrc/spaced.h",
		"src/a.cpp\tmacro\tCONFIG_HEADER\t",
		"src/a.cpp\tquote\ttight.h\t",
		"src/a.cpp\tangle\tshadow.h\tinc2/shadow.h",
		"src/a.cpp\tangle\tnext.h\tinc2/next.h",
		"inc2/next.h\tangle-next\tnext.h\tinc2/next.h",
		"inc2/next.h\tangle-next\tnext.h\tinc3/next.h",
		"src/a.cpp\tquote\tcommented.h\t",
		"src/a.cpp\tquote\tlead.h\tsrc/lead.h",
	};
	static const char *const searched[] = { "inc", "inc/lib", "inc2", "inc3", "src" };
	struct fixture f;
	struct closure c;
	struct strvec dirs;
	char hex[DIGEST_HEX_SIZE], hex2[DIGEST_HEX_SIZE];

	fixture_init(&f, "closure/tree");
	CHECK_INT(closure_compute(&f.cc, f.root, &f.src, &f.inc, &c), 0);
	CHECK_INT(c.nr, ARRAY_SIZE(files));
	for (size_t i = 0; i < c.nr && i < ARRAY_SIZE(files); i++)
		CHECK_STR(c.files[i].path, files[i]);
	CHECK_INT(c.edges.nr, ARRAY_SIZE(edges));
	for (size_t i = 0; i < c.edges.nr && i < ARRAY_SIZE(edges); i++)
		CHECK_STR(c.edges.v[i], edges[i]);
	/* The recorded digest is the content's. */
	digest_bytes_hex("int zz;\n", 8, hex);
	CHECK_STR(c.files[7].hex, hex);
	/* The first include by a macro, in visit order, at its line. */
	CHECK_STR(c.macro_at, "inc2/z.h:2");
	strvec_init(&dirs);
	strvec_pushv(&dirs, closure_searched_dirs(&c));
	CHECK_INT(dirs.nr, ARRAY_SIZE(searched));
	for (size_t i = 0; i < dirs.nr && i < ARRAY_SIZE(searched); i++)
		CHECK_STR(dirs.v[i], searched[i]);
	strvec_release(&dirs);
	closure_hex(&c, hex);
	closure_release(&c);

	/* The same folders spelled differently give the same closure. */
	strvec_release(&f.inc);
	strvec_release(&f.src);
	dirs_of(&f.src, "./src/../src/a.cpp", NULL, NULL);
	dirs_of(&f.inc, "./inc/", "inc2//", "inc3/.");
	CHECK_INT(fresh_hex(f.root, "./src/../src/a.cpp", &f.inc, hex2), 0);
	CHECK_STR(hex2, hex);

	/* The -I order decides: with inc3 first, its shadow.h and next.h win. */
	strvec_release(&f.inc);
	dirs_of(&f.inc, "inc", "inc3", "inc2");
	CHECK_INT(closure_compute(&f.cc, f.root, &f.src, &f.inc, &c), 0);
	CHECK(strvec_find(&c.edges, "src/a.cpp\tangle\tshadow.h\tinc3/shadow.h") >= 0);
	CHECK(strvec_find(&c.edges, "src/a.cpp\tangle\tshadow.h\tinc2/shadow.h") < 0);
	closure_release(&c);
	fixture_release(&f);
}

static void test_edits(void)
{
	char h0[DIGEST_HEX_SIZE], h1[DIGEST_HEX_SIZE], h2[DIGEST_HEX_SIZE];
	struct fixture f;
	unsigned long reads;

	fixture_init(&f, "closure/edit");
	CHECK_INT(compute_hex(&f.cc, f.root, &f.src, &f.inc, h0), 0);
	reads = f.cc.reads;
	CHECK_INT(reads, 13);

	/* A nested header edited (here to a new size, so that the stamp surely
	 * changes): the same cache sees it, reading only that file again. */
	check_write_text(f.root, "inc2/zz.h", "int zz = 1;\n", 0644);
	CHECK_INT(compute_hex(&f.cc, f.root, &f.src, &f.inc, h1), 0);
	CHECK(strcmp(h0, h1) != 0);
	CHECK_INT(f.cc.reads, reads + 1);
	CHECK_INT(fresh_hex(f.root, "src/a.cpp", &f.inc, h2), 0);
	CHECK_STR(h2, h1);

	/* A file that does not exist reaches no digest: nothing changes. */
	check_write_text(f.root, "inc3/unrelated.h", "int u;\n", 0644);
	CHECK_INT(fresh_hex(f.root, "src/a.cpp", &f.inc, h2), 0);
	CHECK_STR(h2, h1);

	/* A header appearing where a name was unresolved changes the key. */
	check_write_text(f.root, "inc3/stdio.h", "int fake_stdio;\n", 0644);
	CHECK_INT(fresh_hex(f.root, "src/a.cpp", &f.inc, h2), 0);
	CHECK(strcmp(h2, h1) != 0);
	fixture_release(&f);
}

/* A snapshot (gen's cache) reads each file once: an edit after its first
 * read is not seen by that cache, and costs it no read; a new cache sees it. */
static void test_snapshot(void)
{
	char h0[DIGEST_HEX_SIZE], h1[DIGEST_HEX_SIZE], h2[DIGEST_HEX_SIZE];
	struct fixture f;

	fixture_init(&f, "closure/snapshot");
	f.cc.snapshot = 1;
	CHECK_INT(compute_hex(&f.cc, f.root, &f.src, &f.inc, h0), 0);
	CHECK_INT(f.cc.reads, 13);

	check_write_text(f.root, "inc2/zz.h", "int zz = 1;\n", 0644);
	CHECK_INT(compute_hex(&f.cc, f.root, &f.src, &f.inc, h1), 0);
	CHECK_STR(h1, h0);
	CHECK_INT(f.cc.reads, 13);
	CHECK_INT(fresh_hex(f.root, "src/a.cpp", &f.inc, h2), 0);
	CHECK(strcmp(h2, h0) != 0);
	fixture_release(&f);
}

/* gen reads sources ahead in batches (closure_prefetch): the closures are
 * the same as without, a source read ahead is not read again, the headers
 * it includes are read by the closure, and one that cannot be read is left
 * to the closure, which says why as it would have. Outside a snapshot
 * nothing is read ahead (a file's stamp is needed there). */
static void test_prefetch(void)
{
	char h_ahead[DIGEST_HEX_SIZE], h_plain[DIGEST_HEX_SIZE];
	struct batchread *probe = batchread_new();
	unsigned long ahead = probe ? 2 : 0;
	struct strvec paths, missing;
	struct closure c;
	struct fixture f;
	char *msg;

	batchread_free(probe);
	fixture_init(&f, "closure/prefetch");
	check_write_text(f.root, "src/b.cpp", "#include \"local.h\"\nint b;\n", 0644);
	dirs_of(&paths, "src/a.cpp", "./src/b.cpp", "src/missing.cpp");
	f.cc.snapshot = 1;
	closure_prefetch(&f.cc, f.root, &paths);
	CHECK_INT(f.cc.reads, ahead);
	closure_prefetch(&f.cc, f.root, &paths);
	CHECK_INT(f.cc.reads, ahead);
	CHECK_INT(compute_hex(&f.cc, f.root, &f.src, &f.inc, h_ahead), 0);
	CHECK_INT(fresh_hex(f.root, "src/a.cpp", &f.inc, h_plain), 0);
	CHECK_STR(h_ahead, h_plain);
	/* The other twelve files of a.cpp's closure, and a.cpp itself when no
	 * reader was to be had. */
	CHECK_INT(f.cc.reads, ahead ? ahead + 12 : 13);
	dirs_of(&missing, "src/missing.cpp", NULL, NULL);
	check_capture_begin(2);
	CHECK_INT(closure_compute(&f.cc, f.root, &missing, &f.inc, &c), -1);
	msg = check_capture_end(2);
	CHECK_HAS(msg, "cannot read source 'src/missing.cpp': No such file or directory\n");
	free(msg);
	strvec_release(&missing);
	closure_cache_release(&f.cc);

	closure_cache_init(&f.cc);
	closure_prefetch(&f.cc, f.root, &paths);
	CHECK_INT(f.cc.reads, 0);
	strvec_release(&paths);
	fixture_release(&f);
}

static void test_dropped_header(void)
{
	char *with = check_tmpdir("closure/with"), *without = check_tmpdir("closure/without");
	char h_with[DIGEST_HEX_SIZE], h_without[DIGEST_HEX_SIZE], h[DIGEST_HEX_SIZE];
	struct strvec inc;

	dirs_of(&inc, "include", NULL, NULL);
	check_write_text(with, "main.c", "#include <keep.h>\n#include <old.h>\n", 0644);
	check_write_text(with, "include/keep.h", "int keep;\n", 0644);
	check_write_text(with, "include/old.h", "int old;\n", 0644);
	check_write_text(without, "main.c", "#include <keep.h>\n", 0644);
	check_write_text(without, "include/keep.h", "int keep;\n", 0644);
	CHECK_INT(fresh_hex(with, "main.c", &inc, h_with), 0);
	CHECK_INT(fresh_hex(without, "main.c", &inc, h_without), 0);
	CHECK(strcmp(h_with, h_without) != 0);

	/* No longer included: old.h is still on disk but no longer matters. */
	check_write_text(with, "main.c", "#include <keep.h>\n", 0644);
	CHECK_INT(fresh_hex(with, "main.c", &inc, h), 0);
	CHECK_STR(h, h_without);
	check_write_text(with, "include/old.h", "int old_edited;\n", 0644);
	CHECK_INT(fresh_hex(with, "main.c", &inc, h), 0);
	CHECK_STR(h, h_without);

	strvec_release(&inc);
	free(with);
	free(without);
}

static void test_memo(void)
{
	struct fixture f;
	struct closure c;
	unsigned long reads;

	fixture_init(&f, "closure/memo");
	check_write_text(f.root, "src/b.cpp", "#include <lib/x.h>\n#include <shadow.h>\n", 0644);
	CHECK_INT(closure_compute(&f.cc, f.root, &f.src, &f.inc, &c), 0);
	closure_release(&c);
	reads = f.cc.reads;
	CHECK_INT(reads, 13);

	/* Another unit over the same headers reads only its own source. */
	strvec_release(&f.src);
	dirs_of(&f.src, "src/b.cpp", NULL, NULL);
	CHECK_INT(closure_compute(&f.cc, f.root, &f.src, &f.inc, &c), 0);
	CHECK_INT(c.nr, 6);	/* b.cpp x.h y.h z.h zz.h shadow.h */
	CHECK_STR(c.files[5].path, "inc2/shadow.h");
	closure_release(&c);
	CHECK_INT(f.cc.reads, reads + 1);

	/* The same unit again reads nothing; two sources share one walk. */
	strvec_release(&f.src);
	dirs_of(&f.src, "src/b.cpp", "src/a.cpp", NULL);
	CHECK_INT(closure_compute(&f.cc, f.root, &f.src, &f.inc, &c), 0);
	CHECK_INT(f.cc.reads, reads + 1);
	CHECK_INT(c.nr, 14);
	CHECK_STR(c.files[0].path, "src/b.cpp");
	CHECK_STR(c.files[6].path, "src/a.cpp");
	closure_release(&c);
	fixture_release(&f);
}

/* A source that is missing or a folder cannot be read: new to the memo, or
 * scanned before as a file and now a folder. Neither counts as a read. */
static void test_unreadable(void)
{
	char *root = check_tmpdir("closure/unreadable");
	char *path = path_join(root, "src/u.cpp");
	struct closure_cache cc;
	struct closure c;
	struct strvec src, inc;
	struct buf why = BUF_INIT;
	char *msg;

	check_write_text(root, "src/u.cpp", "int u;\n", 0644);
	check_write_text(root, "src/d.cpp/keep", "", 0644);
	closure_cache_init(&cc);
	strvec_init(&inc);
	dirs_of(&src, "src/missing.cpp", NULL, NULL);
	check_capture_begin(2);
	CHECK_INT(closure_compute(&cc, root, &src, &inc, &c), -1);
	strvec_release(&src);
	dirs_of(&src, "src/d.cpp", NULL, NULL);
	CHECK_INT(closure_compute(&cc, root, &src, &inc, &c), -1);
	msg = check_capture_end(2);
	CHECK(strstr(msg, "cannot read source 'src/missing.cpp': No such file or directory\n"));
	CHECK(strstr(msg, "cannot read source 'src/d.cpp': Is a directory\n"));
	free(msg);
	CHECK_INT(cc.reads, 0);
	strvec_release(&src);
	dirs_of(&src, "src/u.cpp", NULL, NULL);
	CHECK_INT(closure_compute(&cc, root, &src, &inc, &c), 0);
	CHECK_INT(c.nr, 1);
	closure_release(&c);
	CHECK_INT(cc.reads, 1);
	CHECK_INT(unlink(path), 0);
	CHECK_INT(mkdir(path, 0755), 0);
	check_capture_begin(2);
	CHECK_INT(closure_compute(&cc, root, &src, &inc, &c), -1);
	msg = check_capture_end(2);
	CHECK(strstr(msg, "cannot read source 'src/u.cpp': Is a directory\n"));
	free(msg);
	CHECK_INT(cc.reads, 1);
	/* With cc.why set, the error goes there and nothing is printed. */
	cc.why = &why;
	check_capture_begin(2);
	CHECK_INT(closure_compute(&cc, root, &src, &inc, &c), -1);
	msg = check_capture_end(2);
	CHECK_STR(msg, "");
	CHECK_STR(buf_str(&why), "cannot read source 'src/u.cpp': Is a directory");
	free(msg);
	buf_release(&why);
	strvec_release(&src);
	strvec_release(&inc);
	closure_cache_release(&cc);
	free(path);
	free(root);
}

static void test_roots(void)
{
	char *r1 = check_tmpdir("closure/root1"), *r2 = check_tmpdir("closure/root2/deeper");
	char *outside = check_tmpdir("closure/outside");
	char h1[DIGEST_HEX_SIZE], h2[DIGEST_HEX_SIZE];
	char *want_file, *want_edge;
	struct closure_cache cc;
	struct closure c;
	struct strvec src, inc, dirs;

	/* The same tree at two absolute roots: identical digests. */
	build_tree(r1);
	build_tree(r2);
	dirs_of(&inc, "inc", "inc2", "inc3");
	CHECK_INT(fresh_hex(r1, "src/a.cpp", &inc, h1), 0);
	CHECK_INT(fresh_hex(r2, "src/a.cpp", &inc, h2), 0);
	CHECK_STR(h1, h2);
	strvec_release(&inc);

	/* An absolute -I dir outside root: its files appear by absolute path. */
	check_write_text(outside, "ext.h", "#include \"ext_dep.h\"\n", 0644);
	check_write_text(outside, "ext_dep.h", "int dep;\n", 0644);
	check_write_text(r1, "src/e.c", "#include <ext.h>\n", 0644);
	dirs_of(&inc, "inc", outside, NULL);
	dirs_of(&src, "src/e.c", NULL, NULL);
	closure_cache_init(&cc);
	CHECK_INT(closure_compute(&cc, r1, &src, &inc, &c), 0);
	CHECK_INT(c.nr, 3);
	want_file = xstrfmt("%s/ext.h", outside);
	CHECK_STR(c.nr > 1 ? c.files[1].path : "", want_file);
	free(want_file);
	want_edge = xstrfmt("%s/ext.h\tquote\text_dep.h\t%s/ext_dep.h", outside, outside);
	CHECK(strvec_find(&c.edges, want_edge) >= 0);
	free(want_edge);
	strvec_init(&dirs);
	strvec_pushv(&dirs, closure_searched_dirs(&c));
	CHECK_INT(dirs.nr, 2);
	CHECK_STR(dirs.v[0], outside);
	CHECK_STR(dirs.nr > 1 ? dirs.v[1] : "", "inc");
	strvec_release(&dirs);
	closure_release(&c);
	strvec_release(&inc);

	/* A -I dir that does not exist yet: its nearest existing parent is watched. */
	dirs_of(&inc, "gen/out", NULL, NULL);
	CHECK_INT(closure_compute(&cc, r1, &src, &inc, &c), 0);
	strvec_init(&dirs);
	strvec_pushv(&dirs, closure_searched_dirs(&c));
	CHECK_INT(dirs.nr, 1);
	CHECK_STR(dirs.v[0], ".");
	strvec_release(&dirs);
	closure_release(&c);

	/* A missing source is an error, and leaves an empty closure. */
	strvec_release(&src);
	dirs_of(&src, "src/e.c", "src/nope.c", NULL);
	CHECK_INT(closure_compute(&cc, r1, &src, &inc, &c), -1);
	CHECK_INT(c.nr, 0);
	closure_release(&c);

	strvec_release(&src);
	strvec_release(&inc);
	closure_cache_release(&cc);
	free(r1);
	free(r2);
	free(outside);
}

static void test_large(void)
{
	char *root = check_tmpdir("closure/large");
	char hex[DIGEST_HEX_SIZE];
	struct closure_cache cc;
	struct closure c;
	struct strvec src, inc;
	struct buf big = BUF_INIT;

	/* Larger than any single read: the directive at the end is still found. */
	for (int i = 0; i < 5000; i++)
		buf_addf(&big, "// line %d of a long header, long enough to matter\r\n", i);
	buf_adds(&big, "#include \"end.h\"\r\n");
	check_write_text(root, "big.h", big.s, 0644);
	check_write_text(root, "end.h", "int end;\n", 0644);
	check_write_text(root, "main.c", "#include \"big.h\"\n", 0644);
	closure_cache_init(&cc);
	dirs_of(&src, "main.c", NULL, NULL);
	strvec_init(&inc);
	CHECK_INT(closure_compute(&cc, root, &src, &inc, &c), 0);
	CHECK_INT(c.nr, 3);
	CHECK_STR(c.nr == 3 ? c.files[2].path : "", "end.h");
	digest_bytes_hex(big.s, big.len, hex);
	CHECK_STR(c.nr == 3 ? c.files[1].hex : "", hex);
	CHECK(big.len > 200000);
	closure_release(&c);
	strvec_release(&inc);
	strvec_release(&src);
	closure_cache_release(&cc);
	buf_release(&big);
	free(root);
}

/* A precompiled x.h.gch beside x.h (gcc takes it first) is a closure file;
 * a folder of them makes the closure unkeyed. */
static void test_precompiled(void)
{
	static const char *const files[] = {
		"a.c", "#include \"x.h\"\n#include <y.h>\n", "inc/x.h", "int x;\n",
		"inc/x.h.gch", "binary", "inc/y.h", "int y;\n", NULL
	};
	char *root = check_tmpdir("closure/gch"), *dir;
	struct closure_cache cc;
	struct strvec src, inc;
	struct closure c;

	check_write_tree(root, files);
	closure_cache_init(&cc);
	dirs_of(&src, "a.c", NULL, NULL);
	dirs_of(&inc, "inc", NULL, NULL);
	CHECK_INT(closure_compute(&cc, root, &src, &inc, &c), 0);
	CHECK_INT(c.nr, 4);
	if (c.nr == 4) {
		CHECK_STR(c.files[1].path, "inc/x.h.gch");
		CHECK_STR(c.files[2].path, "inc/x.h");
	}
	CHECK_INT(c.unkeyed, 0);
	closure_release(&c);
	dir = xstrfmt("%s/inc/y.h.gch", root);
	CHECK_INT(mkdir(dir, 0777), 0);
	closure_cache_release(&cc);
	closure_cache_init(&cc);
	CHECK_INT(closure_compute(&cc, root, &src, &inc, &c), 0);
	CHECK_INT(c.unkeyed, CLOSURE_PCH_DIR);
	closure_release(&c);
	closure_cache_release(&cc);
	strvec_release(&src);
	strvec_release(&inc);
	free(dir);
	free(root);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_large(), "large");
	TEST(test_tree(), "tree");
	TEST(test_edits(), "edits");
	TEST(test_snapshot(), "snapshot");
	TEST(test_prefetch(), "prefetch");
	TEST(test_dropped_header(), "dropped_header");
	TEST(test_memo(), "memo");
	TEST(test_roots(), "roots");
	TEST(test_unreadable(), "unreadable");
	TEST(test_precompiled(), "precompiled");
	return check_done();
}

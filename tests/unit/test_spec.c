/* spec: good specs load into the expected tree; bad ones print one exact line. */
#include "check.h"
#include "buf.h"
#include "path.h"
#include "spec/spec.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static char *tmp;

static void mkdir_in_tmp(const char *rel)
{
	char *path = path_join(tmp, rel);

	if (mkdir_p(path))
		die("cannot create '%s': %s", path, strerror(errno));
	free(path);
}

/* spec_load of path with stderr captured into *err (caller frees). */
static int load_captured(struct spec *spec, const char *path, char **err)
{
	int ret;

	check_capture_begin(2);
	ret = spec_load(spec, path);
	*err = check_capture_end(2);
	return ret;
}

/* Write text as tmp/name, expect it to fail with "tmp/name:" + want + "\n". */
static void expect_error(const char *name, const char *text, const char *want)
{
	char *path = path_join(tmp, name), *full = xstrfmt("%s:%s\n", path, want), *err;
	struct spec spec;

	check_write_text(tmp, name, text, 0644);
	CHECK_INT(load_captured(&spec, path, &err), -1);
	CHECK_STR(err, full);
	/* A failed load leaves nothing behind to release. */
	CHECK(spec.classes == NULL && spec.file == NULL && spec.nr_classes == 0);
	free(err);
	free(full);
	free(path);
}

/* Load path, which must succeed silently. */
static int load_path_ok(struct spec *spec, const char *path)
{
	char *err;
	int ret = load_captured(spec, path, &err);

	CHECK_INT(ret, 0);
	CHECK_STR(err, "");
	free(err);
	return ret;
}

static int load_ok(struct spec *spec, const char *name)
{
	char *path = path_join(tmp, name);
	int ret = load_path_ok(spec, path);

	free(path);
	return ret;
}

static const char full_spec[] =
	"version: 1\n"
	"platform: a5sim\n"
	"cache: build/cache/kernels\n"
	"out: ../outside/callables\n"
	"toolchains:\n"
	"  orchestration:\n"
	"    compiler: g++\n"
	"    flags: [-O2, -fPIC, -shared]\n"
	"    include_dirs: [include, not/there, /no/such/abs]\n"
	"    sources: [platform/helper.cpp]\n"
	"    launcher: [distcc]\n"
	"  incore:\n"
	"    aiv:\n"
	"      compiler: g++\n"
	"      flags: [-O2, -D__DAV_VEC__]\n"
	"      include_dirs: [pto/include]\n"
	"    aic:\n"
	"      compiler: cc\n"
	"      flags: [-O2, -c]\n"
	"      link: [ld, -e, kernel_entry]\n"
	"      extract: text\n"
	"classes:\n"
	"  - name: TestQwen3Decode\n"
	"    runtime: tensormap_and_ringbuffer\n"
	"    callable:\n"
	"      orchestration:\n"
	"        source: k/orch/decode.cpp\n"
	"        function_name: aicpu_orchestration_entry\n"
	"        signature: [IN, IN, INOUT, OUT, SCALAR]\n"
	"      incores: &shared\n"
	"        - func_id: 0\n"
	"          source: k/aiv/copy_hidden.cpp\n"
	"          core_type: aiv\n"
	"          signature: [OUT, IN]\n"
	"          extra_include_dirs: [$KWARM_T_VENDOR/include, vendor/none, \"${KWARM_T_EMPTY}vendor/include\"]\n"
	"        - {func_id: -7, name: mm, source: k/aic/matmul.v2.cpp, core_type: aic}\n"
	"  - name: Test.All-Reduce_2\n"
	"    toolchains:\n"
	"      orchestration: {compiler: clang++, include_dirs: [\"$KWARM_T_VENDOR\"]}\n"
	"      incore:\n"
	"        aiv: {compiler: clang}\n"
	"        vec2: {compiler: cc2}\n"
	"    callables:\n"
	"      - name: allreduce\n"
	"        orchestration: {source: k/orch/ar.cpp, function_name: entry, config_name: cfg}\n"
	"        incores: *shared\n"
	"      - name: empty.one\n"
	"        orchestration: {source: k/orch/ar.cpp, function_name: entry}\n"
	"        incores:\n"
	"          - {func_id: 2147483647, source: k/aiv/copy_hidden.cpp, core_type: vec2}\n"
	"          - {func_id: -2147483648, source: k/aiv/copy_hidden.cpp, core_type: aic}\n";

static void make_tree(void)
{
	static const char *const tree[] = {
		"k/orch/decode.cpp", "int a;\n",
		"k/orch/ar.cpp", "int b;\n",
		"k/aiv/copy_hidden.cpp", "int c;\n",
		"k/aic/matmul.v2.cpp", "int d;\n",
		"platform/helper.cpp", "int e;\n",
		NULL
	};

	check_write_tree(tmp, tree);
	mkdir_in_tmp("include");
	mkdir_in_tmp("pto/include");
	mkdir_in_tmp("vendor/include");
	mkdir_in_tmp("ext/include");
}

/* full_spec loaded into spec, with ext (caller frees) its $KWARM_T_VENDOR;
 * -1 (reported) when it does not load. */
static int load_full(struct spec *spec, char **ext)
{
	*ext = path_join(tmp, "ext");
	setenv("KWARM_T_VENDOR", *ext, 1);
	setenv("KWARM_T_EMPTY", "", 1);
	check_write_text(tmp, "full.yaml", full_spec, 0644);
	return load_ok(spec, "full.yaml");
}

/* The top level, and the roles: missing include dirs dropped, the rest as written. */
static void test_full_top(void)
{
	struct spec spec;
	char *ext, *want, *abs;

	if (load_full(&spec, &ext)) {
		free(ext);
		return;
	}
	abs = path_join(tmp, "full.yaml");
	CHECK_STR(spec.file, abs);
	free(abs);
	CHECK_STR(spec.root, tmp);
	CHECK_STR(spec.platform, "a5sim");
	want = path_join(tmp, "build/cache/kernels");
	CHECK_STR(spec.cache, want);
	free(want);
	abs = path_dirname(tmp);
	want = path_join(abs, "outside/callables");
	CHECK_STR(spec.out, want);
	free(want);
	free(abs);

	CHECK_STR(spec.orchestration.role, "orchestration");
	CHECK_STR(spec.orchestration.compiler, "g++");
	CHECK_INT(spec.orchestration.flags.nr, 3);
	CHECK_STR(spec.orchestration.flags.v[2], "-shared");
	CHECK_INT(spec.orchestration.include_dirs.nr, 1);
	CHECK_STR(spec.orchestration.include_dirs.v[0], "include");
	CHECK_INT(spec.orchestration.sources.nr, 1);
	CHECK_STR(spec.orchestration.sources.v[0], "platform/helper.cpp");
	CHECK_INT(spec.orchestration.launcher.nr, 1);
	CHECK_INT(spec.orchestration.link.nr, 0);
	CHECK_INT(spec.orchestration.pos.line, 7);
	CHECK_INT(spec.orchestration.pos.col, 5);
	CHECK_INT(spec.nr_incore, 2);
	CHECK_STR(spec.incore[0].role, "aiv");
	CHECK_STR(spec.incore[0].include_dirs.v[0], "pto/include");
	CHECK_STR(spec.incore[1].role, "aic");
	CHECK_INT(spec.incore[1].link.nr, 3);
	CHECK_STR(spec.incore[1].link.v[0], "ld");
	CHECK_INT(spec.incore[1].extract_text, 1);
	CHECK_INT(spec.incore[0].extract_text, 0);
	CHECK(spec.incore[1].launcher.v != NULL && spec.incore[1].sources.v != NULL);
	spec_release(&spec);
	free(ext);
}

/* A level 2 class; $VAR and ${VAR} expanded, a missing middle entry dropped. */
static void test_full_level2(void)
{
	struct spec spec;
	char *ext, *want;
	const struct spec_class *c;
	const struct spec_callable *k;
	const struct spec_incore *in;

	if (load_full(&spec, &ext)) {
		free(ext);
		return;
	}
	CHECK_INT(spec.nr_classes, 2);
	c = &spec.classes[0];
	CHECK_STR(c->name, "TestQwen3Decode");
	CHECK_STR(c->runtime, "tensormap_and_ringbuffer");
	CHECK_INT(c->level, 2);
	CHECK_INT(c->nr_own_toolchains, 0);
	CHECK_INT(c->pos.line, 23);
	CHECK_INT(c->pos.col, 5);
	CHECK_INT(c->nr_callables, 1);
	k = &c->callables[0];
	CHECK(k->name == NULL);
	CHECK_STR(k->source, "k/orch/decode.cpp");
	CHECK_STR(k->function_name, "aicpu_orchestration_entry");
	CHECK_STR(k->config_name, "");
	CHECK_INT(k->sig_count, 5);
	CHECK_INT(k->sig[0], SIG_IN);
	CHECK_INT(k->sig[2], SIG_INOUT);
	CHECK_INT(k->sig[3], SIG_OUT);
	CHECK_INT(k->sig[4], SIG_SCALAR);
	CHECK(k->toolchain == &spec.orchestration);
	CHECK_INT(k->nr_incores, 2);
	in = &k->incores[0];
	CHECK_INT(in->func_id, 0);
	CHECK_STR(in->name, "copy_hidden");
	CHECK_STR(in->core_type, "aiv");
	CHECK(in->toolchain == &spec.incore[0]);
	CHECK_INT(in->sig_count, 2);
	CHECK_INT(in->sig[0], SIG_OUT);
	CHECK_INT(in->pos.line, 31);
	CHECK_INT(in->pos.col, 11);
	CHECK(in->pos.file == spec.file);
	/* $VAR and ${VAR} expanded; the missing middle entry dropped. */
	CHECK_INT(in->extra_include_dirs.nr, 2);
	want = xstrfmt("%s/include", ext);
	CHECK_STR(in->extra_include_dirs.v[0], want);
	free(want);
	CHECK_STR(in->extra_include_dirs.v[1], "vendor/include");
	in = &k->incores[1];
	CHECK_INT(in->func_id, -7);
	CHECK_STR(in->name, "mm");
	CHECK(in->toolchain == &spec.incore[1]);
	CHECK_INT(in->sig_count, 0);
	CHECK_INT(in->extra_include_dirs.nr, 0);
	CHECK(in->extra_include_dirs.v != NULL);
	spec_release(&spec);
	free(ext);
}

/* A level 3 class with overrides and the aliased incores. */
static void test_full_level3(void)
{
	struct spec spec;
	char *ext;
	const struct spec_class *c;
	const struct spec_callable *k;

	if (load_full(&spec, &ext)) {
		free(ext);
		return;
	}
	c = &spec.classes[1];
	CHECK_STR(c->name, "Test.All-Reduce_2");
	CHECK_STR(c->runtime, "");
	CHECK_INT(c->level, 3);
	CHECK_INT(c->nr_own_toolchains, 3);
	CHECK_INT(c->nr_callables, 2);
	k = &c->callables[0];
	CHECK_STR(k->name, "allreduce");
	CHECK_STR(k->config_name, "cfg");
	CHECK(k->toolchain == &c->own_toolchains[0]);
	CHECK_STR(k->toolchain->compiler, "clang++");
	CHECK_INT(k->toolchain->include_dirs.nr, 1);
	CHECK_STR(k->toolchain->include_dirs.v[0], ext);
	CHECK_INT(k->nr_incores, 2);
	/* The alias gives the same entries, resolved against this class's roles. */
	CHECK_STR(k->incores[0].name, "copy_hidden");
	CHECK_INT(k->incores[0].pos.line, 31);
	CHECK_INT(k->incores[0].extra_include_dirs.nr, 2);
	CHECK(k->incores[0].name != spec.classes[0].callables[0].incores[0].name);
	CHECK_STR(k->incores[0].toolchain->compiler, "clang");
	CHECK(k->incores[0].toolchain >= c->own_toolchains &&
	      k->incores[0].toolchain < c->own_toolchains + c->nr_own_toolchains);
	CHECK(k->incores[1].toolchain == &spec.incore[1]);
	k = &c->callables[1];
	CHECK_STR(k->name, "empty.one");
	CHECK_INT(k->incores[0].func_id, 2147483647);
	CHECK_STR(k->incores[0].toolchain->compiler, "cc2");
	CHECK_STR(k->incores[0].toolchain->role, "vec2");
	CHECK_INT(k->incores[1].func_id, -2147483647 - 1);
	CHECK(k->incores[1].toolchain == &spec.incore[1]);
	spec_release(&spec);
	free(ext);
}

/* Every variable expanded, once each, sorted; release clears. */
static void test_full_env(void)
{
	struct spec spec;
	char *ext, *want;

	if (load_full(&spec, &ext)) {
		free(ext);
		return;
	}
	CHECK_INT(spec.env_used.nr, 2);
	want = xstrfmt("KWARM_T_VENDOR=%s", ext);
	CHECK_STR(spec.env_used.v[0], "KWARM_T_EMPTY=");
	CHECK_STR(spec.env_used.v[1], want);
	free(want);
	spec_release(&spec);
	CHECK(spec.classes == NULL && spec.file == NULL);
	free(ext);
}

/* A relative spec path, a root beside the spec, and defaults. */
static void test_relative_root(void)
{
	struct spec spec;
	char *cwd = getcwd(NULL, 0), *want;

	check_write_text(tmp, "sub/specs/s.yaml",
			 "---\n"
			 "version: 1\n"
			 "platform: p\n"
			 "root: ../tree\n"
			 "toolchains: {orchestration: {compiler: g++}}\n"
			 "classes:\n"
			 "  - {name: A, callable: {orchestration: {source: o.cpp, function_name: f}, incores: []}}\n"
			 "...\n", 0644);
	check_write_text(tmp, "sub/tree/o.cpp", "int o;\n", 0644);
	if (!cwd || chdir(tmp))
		die("cannot enter '%s'", tmp);
	if (!load_path_ok(&spec, "sub/specs/s.yaml")) {
		CHECK_STR(spec.file, "sub/specs/s.yaml");
		want = path_join(tmp, "sub/tree");
		CHECK_STR(spec.root, want);
		free(want);
		CHECK(spec.cache == NULL && spec.out == NULL);
		CHECK_INT(spec.nr_incore, 0);
		CHECK_INT(spec.classes[0].callables[0].nr_incores, 0);
		CHECK_INT(spec.env_used.nr, 0);
		spec_release(&spec);
	}
	if (chdir(cwd))
		die("cannot go back to '%s'", cwd);
	free(cwd);
}

/* Reuse by alias is not a bomb: 40 classes share one list of 1024 incores. */
static void test_many_aliases(void)
{
	struct buf b = BUF_INIT;
	struct spec spec;

	buf_adds(&b, "version: 1\nplatform: p\n"
		     "toolchains: {orchestration: {compiler: g++}, incore: {aiv: {compiler: g++}}}\n"
		     "shared: &all\n");
	for (int i = 0; i < SPEC_CHILDREN_MAX; i++)
		buf_addf(&b, "  - {func_id: %d, source: k/aiv/copy_hidden.cpp, core_type: aiv}\n", i);
	buf_adds(&b, "classes:\n");
	for (int i = 0; i < 40; i++)
		buf_addf(&b, "  - {name: C%d, callable: {orchestration: {source: k/orch/ar.cpp,"
			     " function_name: f}, incores: *all}}\n", i);
	/* "shared" is not a key of the spec, so this must fail on it (the graph
	 * is measured first, and passes). */
	check_write_text(tmp, "many.yaml", b.s, 0644);
	{
		char *path = path_join(tmp, "many.yaml"), *err, *want;

		CHECK_INT(load_captured(&spec, path, &err), -1);
		want = xstrfmt("%s:4:1: unknown key 'shared' at top level\n", path);
		CHECK_STR(err, want);
		free(want);
		free(err);
		free(path);
	}
	/* The same list anchored inside the first class loads. */
	buf_reset(&b);
	buf_adds(&b, "version: 1\nplatform: p\n"
		     "toolchains: {orchestration: {compiler: g++}, incore: {aiv: {compiler: g++}}}\n"
		     "classes:\n"
		     "  - name: C0\n"
		     "    callable:\n"
		     "      orchestration: {source: k/orch/ar.cpp, function_name: f}\n"
		     "      incores: &all\n");
	for (int i = 0; i < SPEC_CHILDREN_MAX; i++)
		buf_addf(&b, "        - {func_id: %d, source: k/aiv/copy_hidden.cpp, core_type: aiv}\n", i);
	for (int i = 1; i < 40; i++)
		buf_addf(&b, "  - {name: C%d, callable: {orchestration: {source: k/orch/ar.cpp,"
			     " function_name: f}, incores: *all}}\n", i);
	check_write_text(tmp, "many.yaml", b.s, 0644);
	if (!load_ok(&spec, "many.yaml")) {
		CHECK_INT(spec.nr_classes, 40);
		CHECK_INT(spec.classes[39].callables[0].nr_incores, SPEC_CHILDREN_MAX);
		CHECK_INT(spec.classes[39].callables[0].incores[1023].func_id, 1023);
		spec_release(&spec);
	}
	buf_release(&b);
}

static const char head[] =
	"version: 1\n"
	"platform: p\n"
	"toolchains:\n"
	"  orchestration: {compiler: g++}\n"
	"  incore: {aiv: {compiler: g++}}\n"
	"classes:\n";

/* A source's kind comes from its folder's listing once a second name of the
 * folder is asked, and from stat where the listing cannot tell: a link to a
 * file is a source, a link to a folder is a folder, a dangling link and a
 * name the folder lacks are missing. Each case's name is the second of its
 * folder (the first, a plain file, is listed before it). */
static void test_source_kinds(void)
{
	static const struct { const char *first, *second, *want; } cases[] = {
		{ "k/links/real.cpp", "k/links/to_file.cpp", NULL },
		{ "k/links/real.cpp", "k/links/to_folder.cpp", "source 'k/links/to_folder.cpp' is a folder" },
		{ "k/links/real.cpp", "k/links/dangling.cpp", "source 'k/links/dangling.cpp' does not exist" },
		{ "k/links/real.cpp", "k/links/absent.cpp", "source 'k/links/absent.cpp' does not exist" },
		{ "k/top.cpp", "k/orch", "source 'k/orch' is a folder" },
	};
	struct buf b = BUF_INIT;
	struct spec spec;
	char *path;

	mkdir_in_tmp("k/links");
	check_write_text(tmp, "k/links/real.cpp", "int r;\n", 0644);
	check_write_text(tmp, "k/top.cpp", "int t;\n", 0644);
	path = path_join(tmp, "k/links/to_file.cpp");
	CHECK_INT(symlink("../orch/decode.cpp", path), 0);
	free(path);
	path = path_join(tmp, "k/links/to_folder.cpp");
	CHECK_INT(symlink("../orch", path), 0);
	free(path);
	path = path_join(tmp, "k/links/dangling.cpp");
	CHECK_INT(symlink("../orch/gone.cpp", path), 0);
	free(path);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *want;

		buf_reset(&b);
		buf_addf(&b, "%s  - name: A\n    callable:\n"
			 "      orchestration: {source: k/orch/ar.cpp, function_name: f}\n"
			 "      incores:\n"
			 "        - {func_id: 0, source: %s, core_type: aiv}\n"
			 "        - {func_id: 1, source: %s, core_type: aiv}\n",
			 head, cases[i].first, cases[i].second);
		if (!cases[i].want) {
			check_write_text(tmp, "kinds_ok.yaml", b.s, 0644);
			path = path_join(tmp, "kinds_ok.yaml");
			if (!load_path_ok(&spec, path))
				spec_release(&spec);
			free(path);
			continue;
		}
		want = xstrfmt("12:32: %s", cases[i].want);
		expect_error("kinds_bad.yaml", b.s, want);
		free(want);
	}
	buf_release(&b);
}

static void test_errors(void)
{
	struct buf b = BUF_INIT;
	char *msg;

	expect_error("e1.yaml", "", "1:1: spec is empty");
	expect_error("e2.yaml", "version: 1\nversion: 1\n", "2:1: duplicate key 'version'");
	expect_error("e3.yaml", "version: 1\nplatform: p\n", "1:1: missing required key 'toolchains' at top level");
	expect_error("e4.yaml", "[1, 2]\n", "1:1: spec must be a mapping");
	expect_error("e5.yaml", "version: 1\n  platform: p\n", "2:11: yaml: mapping values are not allowed in this context");

	buf_addf(&b, "%s  - name: A\n    callable:\n      orchestration: {source: k/orch/ar.cpp, function_name: f}\n"
		     "      incores: [{func_id: 1, source: k/aiv/copy_hidden.cpp, core_type: aic}]\n", head);
	expect_error("e6.yaml", b.s, "10:72: unknown core type 'aic' (known: aiv)");

	/* The variable's name is in the message; a set one that points nowhere is
	 * listed expanded. */
	buf_reset(&b);
	buf_addf(&b, "%s  - name: A\n    callables:\n      - name: x\n"
		     "        orchestration: {source: k/orch/ar.cpp, function_name: f}\n"
		     "        incores:\n"
		     "          - func_id: 1\n"
		     "            source: k/aiv/copy_hidden.cpp\n"
		     "            core_type: aiv\n"
		     "            extra_include_dirs: [$KWARM_T_GONE/a, b]\n", head);
	unsetenv("KWARM_T_GONE");
	expect_error("e7.yaml", b.s,
		     "15:34: unset variable 'KWARM_T_GONE' in extra_include_dirs of incore 'copy_hidden' (class A, callable x)");
	setenv("KWARM_T_GONE", "/nonexistent-kwarm", 1);
	expect_error("e8.yaml", b.s,
		     "15:33: none of the extra_include_dirs of incore 'copy_hidden' (class A, callable x) exists (tried: /nonexistent-kwarm/a, b)");

	/* The billion laughs, at the node whose expansion passes the bound. */
	buf_reset(&b);
	buf_adds(&b, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
	for (int i = 1; i < 9; i++) {
		buf_addf(&b, "a%d: &a%d [", i, i);
		for (int j = 0; j < 10; j++)
			buf_addf(&b, "%s*a%d", j ? ", " : "", i - 1);
		buf_adds(&b, "]\n");
	}
	expect_error("e9.yaml", b.s, "7:5: spec expands to too many nodes (alias bomb?)");

	msg = xstrfmt("13:26: 'function_name' is 64 bytes long (at most %d)", SPEC_NAME_MAX);
	buf_reset(&b);
	buf_addf(&b, "%s  - name: A\n    callables:\n      - name: x\n        incores: []\n"
		     "        orchestration:\n"
		     "          source: k/orch/ar.cpp\n"
		     "          function_name: %064d\n", head, 0);
	expect_error("e10.yaml", b.s, msg);
	free(msg);
	buf_release(&b);
}

int main(int argc, char **argv)
{
	char *dir = check_tmpdir("test_spec");

	check_init(argc, argv);
	/* The spec's folder is taken real, so compare with the real tmp. */
	tmp = realpath(dir, NULL);
	if (!tmp)
		die("cannot resolve '%s': %s", dir, strerror(errno));
	free(dir);
	make_tree();

	TEST(test_full_top(), "full_top");
	TEST(test_full_level2(), "full_level2");
	TEST(test_full_level3(), "full_level3");
	TEST(test_full_env(), "full_env");
	TEST(test_relative_root(), "relative_root");
	TEST(test_many_aliases(), "many_aliases");
	TEST(test_errors(), "errors");
	TEST(test_source_kinds(), "source_kinds");
	free(tmp);
	return check_done();
}

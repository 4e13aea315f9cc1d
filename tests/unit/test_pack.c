#include "buf.h"
#include "cache/cache.h"
#include "check.h"
#include "key/digest.h"
#include "pack/pack.h"
#include "report/runid.h"
#include "plan/packdesc.h"
#include "path.h"
#include "util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* Store a unit entry under the key of its bytes (any 64-hex name will do). */
static void store_unit(const struct cache *c, const void *data, size_t len,
		       char key[DIGEST_HEX_SIZE])
{
	char *tmp;

	digest_bytes_hex(data, len, key);
	tmp = xstrfmt("%s/tmp/unit.%.16s", c->dir, key);
	check_write_file(tmp, data, len, 0644);
	if (cache_unit_store(c, key, tmp, "test unit", NULL, NULL))
		die("cannot store a unit");
	unlink(tmp);
	free(tmp);
}

/* The callables' sections of the plan, as 'kwarm gen' writes them:
 * descriptions one after the other (here with filler between, so that
 * offsets matter). */
static char *descs_path;
static struct buf descs = BUF_INIT;
static struct desc_at { char ckey[DIGEST_HEX_SIZE]; struct planfile_ref ref; } saved[16];
static size_t nr_saved;

/* Append text to the callables' sections, found under name. */
static void save_desc_as(const char *text, const char name[DIGEST_HEX_SIZE])
{
	struct desc_at *d = &saved[nr_saved++];

	buf_adds(&descs, "filler\n");
	memcpy(d->ckey, name, DIGEST_HEX_SIZE);
	d->ref.file = descs_path;
	d->ref.offset = descs.len;
	d->ref.len = strlen(text);
	buf_adds(&descs, text);
	check_write_file(descs_path, descs.s, descs.len, 0644);
}

/* Save a description under its own SHA-256; ckey receives it. */
static void save_desc(const struct cache *c, const char *text, char ckey[DIGEST_HEX_SIZE])
{
	(void)c;
	digest_bytes_hex(text, strlen(text), ckey);
	save_desc_as(text, ckey);
}

/* Where the description saved under ckey lies (the last one saved). */
static const struct planfile_ref *ref(const char *ckey)
{
	static struct planfile_ref missing;

	for (size_t i = nr_saved; i-- > 0;)
		if (!strcmp(saved[i].ckey, ckey))
			return &saved[i].ref;
	missing.file = "/nonexistent/descs";
	missing.offset = 0;
	missing.len = 10;
	return &missing;
}

/* A stand-in for the compile pack_run asks for: stores the test's unit. */
static struct fake_recompile {
	struct pack_recompile rc;
	const struct cache *c;
	int calls, fail, checks, check_fails, bad_shas;
	char key[DIGEST_HEX_SIZE];
} recompiled;

/* A stand-in for the check of an entry made during the run (outside make,
 * every entry is). */
static int fake_check(struct pack_recompile *rc, const char *key, const char *sha)
{
	struct fake_recompile *f = (struct fake_recompile *)rc;
	char want[DIGEST_HEX_SIZE];
	struct buf bin = BUF_INIT;
	const char *why;

	/* The digest it is given is of the entry's artifact. */
	CHECK_INT(cache_unit_get(f->c, key, &bin, &why, NULL), 1);
	digest_bytes_hex(bin.s, bin.len, want);
	f->bad_shas += !!strcmp(sha, want);
	buf_release(&bin);
	f->checks++;
	return f->check_fails ? error("the fake check fails") : 0;
}

static int fake_compile(struct pack_recompile *rc, const char *key)
{
	static const unsigned char bin[] = "will be corrupted";
	struct fake_recompile *f = (struct fake_recompile *)rc;
	char stored[DIGEST_HEX_SIZE];

	f->calls++;
	memcpy(f->key, key, DIGEST_HEX_SIZE);
	if (f->fail)
		return error("the fake compile fails");
	store_unit(f->c, bin, sizeof(bin), stored);
	return strcmp(stored, key) ? error("not the unit asked for") : 0;
}

static void le32(unsigned char *img, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		img[off + (size_t)i] = (unsigned char)(v >> (8 * i));
}

struct want_child {
	int32_t func_id;
	int sig[4];
	int sig_count;
	const unsigned char *bin;
	uint32_t size;
};

/* The image as CALLABLE_LAYOUT.md says, built here independently of layout.c.
 * Returns a malloc'd image of *size bytes. */
static unsigned char *expected_image(const int *sig, int sig_count, const char *func_name,
				     const char *config_name, const unsigned char *orch,
				     uint32_t orch_size, const struct want_child *ch, int n,
				     size_t *size)
{
	size_t offs[8], end = orch_size, total;
	unsigned char *img;

	for (int i = 0; i < n; i++) {
		offs[i] = (end + 63) / 64 * 64;
		end = offs[i] + 192 + ch[i].size;
	}
	total = 9376 + end;
	img = xcalloc(1, total);
	for (int i = 0; i < sig_count; i++)
		le32(img, 4 * (size_t)i, (uint32_t)sig[i]);
	le32(img, 1024, (uint32_t)sig_count);
	le32(img, 1028, orch_size);
	memcpy(img + 1032, func_name, strlen(func_name));
	le32(img, 1096, (uint32_t)strlen(func_name));
	for (int i = 0; i < n; i++) {
		le32(img, 1100 + 4 * (size_t)i, (uint32_t)ch[i].func_id);
		le32(img, 5196 + 4 * (size_t)i, (uint32_t)offs[i]);
	}
	le32(img, 9292, (uint32_t)n);
	memcpy(img + 9296, config_name, strlen(config_name));
	le32(img, 9360, (uint32_t)strlen(config_name));
	memcpy(img + 9376, orch, orch_size);
	for (int i = 0; i < n; i++) {
		unsigned char *c = img + 9376 + offs[i];

		for (int k = 0; k < ch[i].sig_count; k++)
			le32(c, 4 * (size_t)k, (uint32_t)ch[i].sig[k]);
		le32(c, 128, (uint32_t)ch[i].sig_count);
		le32(c, 132, ch[i].size);
		memcpy(c + 192, ch[i].bin, ch[i].size);
	}
	*size = total;
	return img;
}

static char *desc_text(const char *config_name, const char *orch, const char *a,
		       const char *b)
{
	return xstrfmt("kwarm-pack 1\nlayout 1\nwhat class TestX, callable y\nruntime rt\n"
		       "func_name entry\nconfig_name %s\nsig 1,2\norch %s kernels/orch.cpp\n"
		       "child 7 %s 1 copy hidden\nchild 3 %s - second\n",
		       config_name, orch, a, b);
}

static int same_file(const char *path, const unsigned char *want, size_t len)
{
	char *data;
	size_t got;
	int same;

	if (read_file_all(path, &data, &got))
		return 0;
	same = got == len && !memcmp(data, want, len);
	if (got != len)
		fprintf(stderr, "'%s' has %zu bytes, want %zu\n", path, got, len);
	free(data);
	return same;
}

/* What every case packs from: three units in the cache (an orchestration and
 * two incores), the folder the outputs go to, and the expected image of the
 * worked example for a config name. */
static struct cache c;
static char *abs_dir;
static unsigned char orch[100], bin_a[10], bin_b[1] = { 0xab };
static char korch[DIGEST_HEX_SIZE], ka[DIGEST_HEX_SIZE], kb[DIGEST_HEX_SIZE];

static unsigned char *worked_image(const char *config_name, size_t *len)
{
	static const int sig[] = { 1, 2 };
	const struct want_child ch[2] = {
		{ 7, { 1 }, 1, bin_a, sizeof(bin_a) },
		{ 3, { 0 }, 0, bin_b, sizeof(bin_b) },
	};

	return expected_image(sig, 2, "entry", config_name, orch, sizeof(orch), ch, 2, len);
}

/* The description of the worked example for a config name, saved; ckey gets its key. */
static void worked_desc(const char *config_name, const char *b, char ckey[DIGEST_HEX_SIZE])
{
	char *text = desc_text(config_name, korch, ka, b);

	save_desc(&c, text, ckey);
	free(text);
}

/* OUT/name.callable and, for ckey, its stamp (caller frees both). */
static void out_paths(const char *name, const char *ckey, char **out, char **stamp)
{
	*out = xstrfmt("%s/out/%s.callable", abs_dir, name);
	*stamp = xstrfmt("%s/out/.kwarm/stamps/%s.callable/%s", abs_dir, name, ckey);
}

/* pack_run with stdout captured (and stderr when err is not NULL: *err gets it). */
static int pack_quiet(const char *ckey, const char *out, const char *stamp,
		      struct pack_recompile *rc, char **err)
{
	int ret;

	check_capture_begin(1);
	if (err)
		check_capture_begin(2);
	ret = pack_run(&c, NULL, ckey, ref(ckey), out, stamp, rc);
	if (err)
		*err = check_capture_end(2);
	free(check_capture_end(1));
	return ret;
}

/* A unit whose entry has a byte of its artifact flipped; kbad gets its key. */
static void store_corrupt_unit(char kbad[DIGEST_HEX_SIZE])
{
	static const unsigned char bad_bin[] = "will be corrupted";
	char *mpath, *bytes;
	size_t len;

	store_unit(&c, bad_bin, sizeof(bad_bin), kbad);
	mpath = cache_unit_path(&c, kbad, ".m");
	if (read_file_all(mpath, &bytes, &len) || len <= sizeof(bad_bin))
		die("cannot read '%s'", mpath);
	bytes[sizeof(bad_bin) - 2] ^= 0x20;	/* the final 'd' */
	check_write_file(mpath, bytes, len, 0644);
	free(bytes);
	free(mpath);
}

/* The worked example of CALLABLE_LAYOUT.md, end to end; packing the same key
 * again gives the same bytes and stamp; another output's stamp is never touched. */
static void test_worked_example(void)
{
	char ckey[DIGEST_HEX_SIZE];
	char *out, *stamp, *stamp_other, *msg, *want_msg;
	unsigned char *want;
	size_t want_len;
	char tag[RUNID_TAG_SIZE + 1], *got_stamp;

	worked_desc("cfg", kb, ckey);
	out_paths("y", ckey, &out, &stamp);
	stamp_other = xstrfmt("%s/out/.kwarm/stamps/z.callable/%s", abs_dir, ckey);
	check_write_file(stamp_other, "", 0, 0644);
	want = worked_image("cfg", &want_len);
	CHECK_INT(want_len, 9953);
	check_capture_begin(1);
	CHECK_INT(pack_run(&c, NULL, ckey, ref(ckey), out, stamp, NULL), 0);
	msg = check_capture_end(1);
	want_msg = xstrfmt("kwarm: packed class TestX, callable y: %s (2 incores, 9953 bytes)\n", out);
	CHECK_STR(msg, want_msg);
	free(msg);
	free(want_msg);
	CHECK(same_file(out, want, want_len));
	/* The stamp holds the tag of the make run that packed (KW_PACKED_HERE). */
	runid_tag(tag, sizeof(tag) - 1);
	strcat(tag, "\n");
	got_stamp = check_must_read(stamp);
	CHECK_STR(got_stamp, tag);
	free(got_stamp);
	/* Spot checks straight from the worked example. */
	CHECK_INT(want[5196], 128);
	CHECK_INT(want[5200], 384 & 0xff);
	CHECK_INT(want[5201], 384 >> 8);

	CHECK_INT(pack_quiet(ckey, out, stamp, NULL, NULL), 0);
	CHECK(same_file(out, want, want_len));
	CHECK(exists(stamp));
	CHECK(exists(stamp_other));
	free(want);
	free(out);
	free(stamp);
	free(stamp_other);
}

/* Another key for the same output: the first stamp goes, other outputs' stay. */
static void test_new_key(void)
{
	char ckey[DIGEST_HEX_SIZE], ckey2[DIGEST_HEX_SIZE];
	char *out, *stamp, *stamp2, *stamp_other;
	unsigned char *want2;
	size_t want2_len;

	worked_desc("cfg", kb, ckey);
	worked_desc("", kb, ckey2);
	out_paths("new", ckey, &out, &stamp);
	free(out);
	out_paths("new", ckey2, &out, &stamp2);
	stamp_other = xstrfmt("%s/out/.kwarm/stamps/z.callable/%s", abs_dir, ckey);
	check_write_file(stamp_other, "", 0, 0644);
	CHECK_INT(pack_quiet(ckey, out, stamp, NULL, NULL), 0);
	CHECK(exists(stamp));
	CHECK_INT(pack_quiet(ckey2, out, stamp2, NULL, NULL), 0);
	CHECK(!exists(stamp));
	CHECK(exists(stamp2));
	CHECK(exists(stamp_other));
	want2 = worked_image("", &want2_len);
	CHECK(same_file(out, want2, want2_len));
	free(want2);
	free(out);
	free(stamp);
	free(stamp2);
	free(stamp_other);
}

/* A corrupt unit (a byte of its artifact flipped in its entry file): pack
 * fails, names the incore, and publishes nothing, nor over an existing
 * output: its bytes and stamp stay. */
static void test_corrupt_unit(void)
{
	char ckey[DIGEST_HEX_SIZE], kbad[DIGEST_HEX_SIZE], cbad[DIGEST_HEX_SIZE];
	char *out, *stamp, *bad_out, *bad_stamp, *msg;
	unsigned char *want;
	size_t want_len;

	store_corrupt_unit(kbad);
	worked_desc("cfg", kbad, cbad);
	out_paths("bad", cbad, &bad_out, &bad_stamp);
	CHECK_INT(pack_quiet(cbad, bad_out, bad_stamp, NULL, &msg), -1);
	CHECK_HAS(msg, "is corrupt");
	CHECK(strstr(msg, "kwarm: error: cannot pack class TestX, callable y: incore 'second' ")
	      != NULL);
	free(msg);
	CHECK(!exists(bad_out));
	CHECK(!exists(bad_stamp));
	free(bad_out);
	free(bad_stamp);

	worked_desc("cfg", kb, ckey);
	out_paths("kept", ckey, &out, &stamp);
	CHECK_INT(pack_quiet(ckey, out, stamp, NULL, NULL), 0);
	store_corrupt_unit(kbad);
	free(out);
	out_paths("kept", cbad, &out, &bad_stamp);
	CHECK_INT(pack_quiet(cbad, out, bad_stamp, NULL, &msg), -1);
	free(msg);
	want = worked_image("cfg", &want_len);
	CHECK(same_file(out, want, want_len));
	CHECK(exists(stamp));
	CHECK(!exists(bad_stamp));
	free(want);
	free(out);
	free(stamp);
	free(bad_stamp);
}

/* With a recompiler, a corrupt or missing unit is compiled again, now, and
 * the pack goes on; once whole, nothing is compiled again. */
static void test_recompile(void)
{
	char kbad[DIGEST_HEX_SIZE], cbad[DIGEST_HEX_SIZE];
	char *out, *stamp, *msg;

	store_corrupt_unit(kbad);
	worked_desc("cfg", kbad, cbad);
	out_paths("rec", cbad, &out, &stamp);
	recompiled.rc.compile = fake_compile;
	recompiled.rc.check = fake_check;
	recompiled.c = &c;
	recompiled.calls = 0;
	recompiled.fail = 1;
	CHECK_INT(pack_quiet(cbad, out, stamp, &recompiled.rc, &msg), -1);
	CHECK(strstr(msg, "cannot pack class TestX, callable y: incore 'second' did not compile")
	      != NULL);
	free(msg);
	CHECK_INT(recompiled.calls, 1);
	CHECK(!exists(stamp));
	recompiled.fail = 0;
	CHECK_INT(pack_quiet(cbad, out, stamp, &recompiled.rc, NULL), 0);
	CHECK_INT(recompiled.calls, 2);
	CHECK_STR(recompiled.key, kbad);
	CHECK(exists(stamp));
	CHECK_INT(pack_quiet(cbad, out, stamp, &recompiled.rc, NULL), 0);
	CHECK_INT(recompiled.calls, 2);
	CHECK(exists(out));
	/* An entry made since the run began is checked; one that fails it is
	 * not packed. */
	CHECK(recompiled.checks > 0);
	CHECK_INT(recompiled.bad_shas, 0);
	recompiled.check_fails = 1;
	CHECK_INT(pack_quiet(cbad, out, stamp, &recompiled.rc, &msg), -1);
	CHECK(strstr(msg, "is not what this run would compile") != NULL);
	free(msg);
	recompiled.check_fails = 0;
	free(out);
	free(stamp);
}

/* A missing orchestration is named as such. */
static void test_missing_orchestration(void)
{
	char kgone[DIGEST_HEX_SIZE], ckey[DIGEST_HEX_SIZE];
	char *text, *out, *stamp, *msg;

	digest_bytes_hex("never stored", 12, kgone);
	text = desc_text("cfg", kgone, ka, kb);
	save_desc(&c, text, ckey);
	free(text);
	out_paths("gone", ckey, &out, &stamp);
	CHECK_INT(pack_quiet(ckey, out, stamp, NULL, &msg), -1);
	CHECK_HAS(msg, "orchestration 'kernels/orch.cpp' is no longer in the cache");
	free(msg);
	CHECK(!exists(out));
	free(out);
	free(stamp);
}

/* pack_run_gently with stdout and stderr captured; *out_text gets stdout. */
static int pack_gently(const char *ckey, const char *out, const char *stamp, char **out_text,
		       char **err)
{
	int ret;

	check_capture_begin(1);
	check_capture_begin(2);
	ret = pack_run_gently(&c, NULL, ckey, ref(ckey), out, stamp, NULL);
	*err = check_capture_end(2);
	*out_text = check_capture_end(1);
	return ret;
}

/* Gently, a missing or corrupt unit or a bad description is a quiet -1 that
 * removes nothing; a good callable packs and says so; pack_current then
 * holds until an entry is newer than the stamp or the output is gone. */
static void test_gently(void)
{
	char kgone[DIGEST_HEX_SIZE], kbad[DIGEST_HEX_SIZE], ckey[DIGEST_HEX_SIZE];
	char *text, *out, *stamp, *said, *err, *mpath;
	struct packdesc d;
	struct timespec later[2];

	digest_bytes_hex("never stored either", 19, kgone);
	store_corrupt_unit(kbad);
	for (int i = 0; i < 3; i++) {
		const char *first = i == 0 ? kgone : kbad;

		text = i < 2 ? desc_text("cfg", first, ka, kb) : xstrdup("kwarm-pack 1\nbogus\n");
		save_desc(&c, text, ckey);
		free(text);
		out_paths("gentle", ckey, &out, &stamp);
		CHECK_INT(pack_gently(ckey, out, stamp, &said, &err), -1);
		CHECK_STR(err, "");
		CHECK_STR(said, "");
		CHECK(!exists(out) && !exists(stamp));
		free(err);
		free(said);
		free(out);
		free(stamp);
	}
	CHECK_INT(cache_unit_check(&c, kbad, 0), -1);	/* left for the pack step */

	text = desc_text("cfg", korch, ka, kb);
	save_desc(&c, text, ckey);
	out_paths("gentle", ckey, &out, &stamp);
	CHECK_INT(pack_gently(ckey, out, stamp, &said, &err), 0);
	CHECK_STR(err, "");
	CHECK_HAS(said, "kwarm: packed class TestX");
	free(err);
	free(said);
	if (CHECK_INT(packdesc_parse(text, &d), 0)) {
		CHECK(pack_units_there(c.dir, NULL, NULL, &d, NULL));
		CHECK(pack_current(c.dir, NULL, &d, out, stamp));
		mpath = cache_unit_path(&c, ka, ".m");
		clock_gettime(CLOCK_REALTIME, &later[0]);
		later[0].tv_sec += 60;
		later[1] = later[0];
		CHECK_INT(utimensat(AT_FDCWD, mpath, later, 0), 0);
		CHECK(!pack_current(c.dir, NULL, &d, out, stamp));
		CHECK_INT(utimensat(AT_FDCWD, stamp, later, 0), 0);
		CHECK(pack_current(c.dir, NULL, &d, out, stamp));
		unlink(out);
		CHECK(!pack_current(c.dir, NULL, &d, out, stamp));
		free(mpath);
	}
	packdesc_release(&d);
	free(text);
	free(out);
	free(stamp);
}

/* A description whose content does not match its name is refused, and so is
 * a well-named one that does not parse, and a missing one; nothing is published. */
static void test_bad_description(void)
{
	char cwrong[DIGEST_HEX_SIZE];
	char *text, *out, *stamp, *msg;

	text = desc_text("cfg", korch, ka, kb);
	digest_bytes_hex("something else", 14, cwrong);
	save_desc_as(text, cwrong);
	free(text);
	out_paths("wrong", cwrong, &out, &stamp);
	CHECK_INT(pack_quiet(cwrong, out, stamp, NULL, &msg), -1);
	CHECK_HAS(msg, "does not match it; run make again");
	free(msg);

	save_desc(&c, "kwarm-pack 1\nlayout 1\nwhat class T\nbogus line\n", cwrong);
	CHECK_INT(pack_quiet(cwrong, out, stamp, NULL, &msg), -1);
	CHECK_HAS(msg, "does not match it");
	free(msg);

	digest_bytes_hex("no description", 14, cwrong);
	CHECK_INT(pack_quiet(cwrong, out, stamp, NULL, &msg), -1);
	CHECK_HAS(msg, "cannot read callable description");
	free(msg);
	CHECK(!exists(out));
	free(out);
	free(stamp);
}

int main(int argc, char **argv)
{
	char *tmp = check_tmpdir("pack"), *cache_dir;

	check_init(argc, argv);
	abs_dir = realpath(tmp, NULL);
	if (!abs_dir)
		die("cannot resolve '%s'", tmp);
	cache_dir = path_join(abs_dir, "cache");
	descs_path = path_join(abs_dir, "warmup.mk.plan");
	if (cache_init(&c, cache_dir))
		die("cannot set up the cache");
	for (size_t i = 0; i < sizeof(orch); i++)
		orch[i] = (unsigned char)(i * 3 + 1);
	for (size_t i = 0; i < sizeof(bin_a); i++)
		bin_a[i] = (unsigned char)(0xf0 + i);
	store_unit(&c, orch, sizeof(orch), korch);
	store_unit(&c, bin_a, sizeof(bin_a), ka);
	store_unit(&c, bin_b, sizeof(bin_b), kb);

	TEST(test_worked_example(), "worked_example");
	TEST(test_new_key(), "new_key");
	TEST(test_corrupt_unit(), "corrupt_unit");
	TEST(test_recompile(), "recompile");
	TEST(test_missing_orchestration(), "missing_orchestration");
	TEST(test_bad_description(), "bad_description");
	TEST(test_gently(), "gently");

	cache_release(&c);
	buf_release(&descs);
	free(descs_path);
	free(cache_dir);
	free(abs_dir);
	free(tmp);
	return check_done();
}

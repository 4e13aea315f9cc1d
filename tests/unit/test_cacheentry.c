/* Unit tests of cacheentry: each name it writes parses back to its pid or key,
 * and names that only look alike (another mark, a pid that is not all digits,
 * hex of another length, an entry with another suffix) do not; a temp is an
 * orphan when its process is gone or it is over CACHE_TEMP_MAX_AGE old. */
#include "cache/cacheentry.h"
#include "cache/cache.h"
#include "check.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define KEY "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* The file name part of path. */
static const char *base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void test_entry_path(void)
{
	struct cache c = { (char *)"/c" };
	char key[DIGEST_HEX_SIZE], *path = cache_unit_path(&c, KEY, ".m");

	struct buf name = BUF_INIT;

	CHECK_STR(path, "/c/units/0/" KEY ".m");
	/* The Makefile's bulk form spells the same path. */
	buf_addf(&name, "/c/" CACHE_UNITS_DIR "/");
	cache_add_unit_name(&name, KEY);
	buf_adds(&name, CACHE_ENTRY_SUFFIX);
	CHECK_STR(name.s, path);
	buf_release(&name);
	CHECK(cache_entry_name_key(base(path), key));
	CHECK_STR(key, KEY);
	CHECK(!cache_entry_name_key(KEY ".old", key));
	CHECK(!cache_entry_name_key(KEY ".m.x", key));
	CHECK(!cache_entry_name_key("0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef.m",
				    key));
	CHECK(!cache_entry_name_key(KEY + 1, key));
	free(path);
}

static void test_temp_names(void)
{
	static const char *const not_temps[] = {
		KEY ".m", KEY ".tmp.12.0000a00", KEY ".tmp.12.00000a000",
		KEY ".tmp.1x2.00000a00", KEY ".tmp..00000a00", KEY ".tmq.12.00000a00",
		KEY ".tmp.12.00000A00", "tmp.12.00000a00", ".tmp.-1.00000a00",
	};
	struct buf b = BUF_INIT;

	cache_add_temp_name(&b, "/c/units/0/" KEY ".m", 4321, 0xdeadbeef);
	CHECK_STR(b.s, "/c/units/0/" KEY ".m.tmp.4321.deadbeef");
	CHECK_INT(cache_temp_name_pid(base(b.s)), 4321);
	buf_reset(&b);
	cache_add_temp_name(&b, KEY, 7, 0xa00);
	CHECK_INT(cache_temp_name_pid(b.s), 7);
	for (size_t i = 0; i < ARRAY_SIZE(not_temps); i++)
		if (!CHECK_INT(cache_temp_name_pid(not_temps[i]), -1))
			fprintf(stderr, "  name: %s\n", not_temps[i]);
	buf_release(&b);
}

/* A compile attempt's temps: a file at one of them (left by a killed attempt
 * whose pid this one reuses) is never taken, so a step that exits 0 without
 * writing cannot have it published; every name still parses to the pid and
 * ends in its number. */
static void test_fresh_temp_names(void)
{
	char *dir = check_tmpdir("fresh"), *stem = xstrfmt("%s/" KEY, dir);
	char *left[4], *names[4];

	for (size_t i = 0; i < 4; i++) {
		left[i] = cache_fresh_temp_name(stem, 77, (unsigned)i);
		check_write_file(left[i], "stale", 5, 0644);
		CHECK_INT(cache_temp_name_pid(base(left[i])), 77);
		CHECK_INT(strtol(left[i] + strlen(left[i]) - 1, NULL, 16), (long)i);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(left[i], left[j]));
	}
	for (size_t i = 0; i < 4; i++) {
		names[i] = cache_fresh_temp_name(stem, 77, (unsigned)i);
		CHECK(access(names[i], F_OK) && errno == ENOENT);
		CHECK_INT(cache_temp_name_pid(base(names[i])), 77);
		for (size_t j = 0; j < 4; j++)
			if (!CHECK(strcmp(names[i], left[j])))
				fprintf(stderr, "  reused: %s\n", names[i]);
	}
	for (size_t i = 0; i < 4; i++) {
		unlink(left[i]);
		free(left[i]);
		free(names[i]);
	}
	free(stem);
	free(dir);
}

static void test_probe_names(void)
{
	char *path = cache_probe_path("/c", 99);

	CHECK_STR(path, "/c/tmp/probe.99");
	CHECK_INT(cache_probe_name_pid(base(path)), 99);
	CHECK_INT(cache_probe_name_pid("probe."), -1);
	CHECK_INT(cache_probe_name_pid("probe.9x"), -1);
	CHECK_INT(cache_probe_name_pid("probes.9"), -1);
	free(path);
}

static void test_orphaned(void)
{
	double now = now_wall();
	long me = (long)getpid();

	CHECK(!cache_temp_orphaned(me, now - 60, now));
	CHECK(cache_temp_orphaned(me, now - CACHE_TEMP_MAX_AGE - 60, now));
	CHECK(cache_temp_orphaned(check_dead_pid(), now, now));
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_entry_path(), "entry_path");
	TEST(test_temp_names(), "temp_names");
	TEST(test_fresh_temp_names(), "fresh_temp_names");
	TEST(test_probe_names(), "probe_names");
	TEST(test_orphaned(), "orphaned");
	return check_done();
}

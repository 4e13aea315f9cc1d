/* Unit tests of unitlist: the text unitlist_format writes for a plan, read
 * back by unitlist_load (classes, callables, units with owners and labels with
 * spaces), ownership, and the errors on a missing file or a foreign line. */
#include "check.h"
#include "path.h"
#include "plan.h"
#include "unitlist.h"
#include "util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static char *tmpdir;

static void fill_key(char key[DIGEST_HEX_SIZE], char c)
{
	memset(key, c, 64);
	key[64] = '\0';
}

static int load_quiet(struct unitlist *ul, const char *path, char **msg)
{
	int ret;

	check_capture_begin(2);
	ret = unitlist_load(ul, path);
	*msg = check_capture_end(2);
	return ret;
}

static void test_round_trip(void)
{
	struct spec spec;
	struct spec_class classes[3];
	struct plan plan;
	struct plan_callable callables[3];
	struct plan_unit units[3], *unit_ptrs[3];
	struct buf text = BUF_INIT;
	struct unitlist ul;
	char *path = path_join(tmpdir, "warmup.mk.units"), *msg, want[4096];

	/* A plan as plan_build leaves it, as far as the list looks. */
	memset(&spec, 0, sizeof(spec));
	memset(classes, 0, sizeof(classes));
	classes[0].name = "TestA";
	classes[1].name = "TestB";
	classes[2].name = "TestC";
	spec.classes = classes;
	spec.nr_classes = 3;
	memset(&plan, 0, sizeof(plan));
	memset(callables, 0, sizeof(callables));
	plan.spec = &spec;
	plan.callables = callables;
	plan.nr_callables = 3;
	for (int i = 0; i < 3; i++) {
		fill_key(callables[i].ckey, (char)('a' + i));
		callables[i].cls = &classes[i == 2 ? 1 : i];
	}
	callables[0].stamp_path = "/out/.kwarm/TestA.callable.x";
	callables[1].stamp_path = "/out dir/.kwarm/TestB/one.callable.y";
	callables[2].stamp_path = "/out dir/.kwarm/TestB/two.callable.z";
	memset(units, 0, sizeof(units));
	for (int i = 0; i < 3; i++) {
		fill_key(units[i].key, (char)('0' + i));
		strvec_init(&units[i].owners);
		unit_ptrs[i] = &units[i];
	}
	strvec_push(&units[0].owners, "TestA");
	strvec_push(&units[0].owners, "TestB");
	units[0].label = "orchestration 'k/o.cpp'";
	strvec_push(&units[1].owners, "TestB");
	units[1].label = "incore 'rms norm' (aiv)";
	strvec_push(&units[2].owners, "TestA");
	units[2].label = "incore 'odd\nname' (aic)";
	plan.units = unit_ptrs;
	plan.nr_units = 3;

	unitlist_format(&plan, &text);
	snprintf(want, sizeof(want),
		 "kwarm-units 1\n"
		 "class TestA\nclass TestB\nclass TestC\n"
		 "callable %s TestA /out/.kwarm/TestA.callable.x\n"
		 "callable %s TestB /out dir/.kwarm/TestB/one.callable.y\n"
		 "callable %s TestB /out dir/.kwarm/TestB/two.callable.z\n"
		 "unit %s TestA,TestB orchestration 'k/o.cpp'\n"
		 "unit %s TestB incore 'rms norm' (aiv)\n"
		 "unit %s TestA incore 'odd?name' (aic)\n",
		 callables[0].ckey, callables[1].ckey, callables[2].ckey,
		 units[0].key, units[1].key, units[2].key);
	CHECK_STR(text.s, want);

	check_write_file(path, text.s, text.len, 0644);
	CHECK_INT(load_quiet(&ul, path, &msg), 0);
	CHECK_STR(msg, "");
	free(msg);
	CHECK_INT(ul.classes.nr, 3);
	if (ul.classes.nr == 3) {
		CHECK_STR(ul.classes.v[0], "TestA");
		CHECK_STR(ul.classes.v[2], "TestC");
	}
	CHECK_INT(ul.nr_callables, 3);
	if (ul.nr_callables == 3) {
		CHECK_STR(ul.callables[0].ckey, callables[0].ckey);
		CHECK_STR(ul.callables[0].cls, "TestA");
		CHECK_STR(ul.callables[0].stamp, "/out/.kwarm/TestA.callable.x");
		CHECK_STR(ul.callables[2].cls, "TestB");
		CHECK_STR(ul.callables[2].stamp, "/out dir/.kwarm/TestB/two.callable.z");
	}
	CHECK_INT(ul.nr_units, 3);
	if (ul.nr_units == 3) {
		CHECK_STR(ul.units[0].key, units[0].key);
		CHECK_INT(ul.units[0].owners.nr, 2);
		CHECK_STR(ul.units[0].label, "orchestration 'k/o.cpp'");
		CHECK(unitlist_unit_owned_by(&ul.units[0], "TestA"));
		CHECK(unitlist_unit_owned_by(&ul.units[0], "TestB"));
		CHECK(!unitlist_unit_owned_by(&ul.units[0], "TestC"));
		CHECK(!unitlist_unit_owned_by(&ul.units[0], "Test"));
		CHECK_STR(ul.units[1].label, "incore 'rms norm' (aiv)");
		CHECK(!unitlist_unit_owned_by(&ul.units[1], "TestA"));
		CHECK_STR(ul.units[2].label, "incore 'odd?name' (aic)");
	}
	unitlist_release(&ul);
	CHECK(ul.units == NULL && ul.nr_units == 0 && ul.classes.nr == 0);

	for (int i = 0; i < 3; i++)
		strvec_release(&units[i].owners);
	buf_release(&text);
	free(path);
}

/* Loading text must fail naming line lineno. */
static void check_bad(const char *text, size_t lineno)
{
	char *path = path_join(tmpdir, "bad.units"), *msg, *want;
	struct unitlist ul;

	check_write_file(path, text, strlen(text), 0644);
	/* Gently: the same answer, no message. */
	check_capture_begin(2);
	if (!CHECK_INT(unitlist_load_gently(&ul, path), -1))
		unitlist_release(&ul);
	msg = check_capture_end(2);
	CHECK_STR(msg, "");
	free(msg);
	if (!CHECK_INT(load_quiet(&ul, path, &msg), -1))
		unitlist_release(&ul);
	want = xstrfmt("kwarm: error: '%s' line %zu is not a unit list line; run 'kwarm gen' again\n",
		       path, lineno);
	CHECK_STR(msg, want);
	/* Released: nothing left to free. */
	CHECK(ul.units == NULL && ul.callables == NULL && ul.classes.nr == 0);
	free(want);
	free(msg);
	free(path);
}

static void test_errors(void)
{
	char *path = path_join(tmpdir, "missing.units"), *msg;
	char key[DIGEST_HEX_SIZE], line[256];
	struct unitlist ul;

	CHECK_INT(load_quiet(&ul, path, &msg), -1);
	CHECK(starts_with(msg, "kwarm: error: cannot read '"));
	CHECK(strstr(msg, "missing.units': No such file or directory") != NULL);
	/* BUG: unitlist_load (src/unitlist.c) calls unitlist_init, which
	 * allocates the classes vector, then returns -1 on a read error without
	 * unitlist_release: the vector leaks (every runstate_total and summary
	 * call without a unit list leaks it; LeakSanitizer reports it). On -1 the
	 * list must be released, as after a bad line. */
	CHECK(ul.classes.v == NULL);
	free(msg);
	free(path);

	fill_key(key, 'f');
	check_bad("kwarm-units 2\n", 1);
	/* BUG: unitlist_load reads an empty file, or one whose only line lacks
	 * its LF ("garbage"), as a valid empty list: the header is only checked
	 * on a complete first line. Want "line 1 is not a unit list line". */
	check_bad("", 1);
	check_bad("garbage", 1);
	check_bad("kwarm-units 1\nclass \n", 2);
	check_bad("kwarm-units 1\nclass A\nwhat is this\n", 3);
	snprintf(line, sizeof(line), "kwarm-units 1\nunit %.63s A label\n", key);
	check_bad(line, 2);
	snprintf(line, sizeof(line), "kwarm-units 1\nunit %sX A label\n", key);
	check_bad(line, 2);
	snprintf(line, sizeof(line), "kwarm-units 1\nunit %s A\n", key);
	check_bad(line, 2);
	snprintf(line, sizeof(line), "kwarm-units 1\ncallable %s A\n", key);
	check_bad(line, 2);
	/* Upper-case hex is not a key kwarm writes. */
	snprintf(line, sizeof(line), "kwarm-units 1\ncallable %.63sF A /s\n", key);
	check_bad(line, 2);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	tmpdir = check_tmpdir("unitlist");
	TEST(test_round_trip(), "round_trip");
	TEST(test_errors(), "errors");
	free(tmpdir);
	return check_done();
}

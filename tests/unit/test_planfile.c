/* Unit tests of planfile: the side file its writer lays out reads back whole
 * (the unit list, each unit by key, each callable's section and records);
 * damaged or missing files are refused with one message. */
#include "check.h"
#include "path.h"
#include "plan/planfile.h"
#include "util.h"

#include <stdlib.h>
#include <unistd.h>

static char *tmpdir;

static void fill_key(char key[DIGEST_HEX_SIZE], int c)
{
	memset(key, c, 64);
	key[64] = '\0';
}

/* The key of unit i of many: 64 hex digits, not in i's order. */
static void many_key(char key[DIGEST_HEX_SIZE], unsigned i)
{
	snprintf(key, DIGEST_HEX_SIZE, "%08x%056x", i * 2654435761u, i);
}

static void add_unit(struct planfile_writer *w, const char *key, const char *owners,
		     const char *id, const char *label, const size_t *packs, size_t nr_packs)
{
	struct strvec sv;

	strvec_init(&sv);
	strvec_split_at(&sv, owners, ',');
	planfile_add_unit(w, key, &sv, id, label, packs, nr_packs);
	strvec_release(&sv);
}

static void add_record(struct planfile_writer *w, const char *key, const char *word)
{
	struct strvec words;

	strvec_init(&words);
	strvec_push(&words, "--key");
	strvec_push(&words, key);
	strvec_push(&words, "--");
	strvec_push(&words, word);
	planfile_add_record(w, key, (const char *const *)words.v, words.nr);
	strvec_release(&words);
}

static char ck[2][DIGEST_HEX_SIZE], uk[3][DIGEST_HEX_SIZE];
static const char *const common[] = { "--cache", "/c\nx", "--root", "/r" };
static struct planfile_ref refs[2];

/* A plan of three classes, two callables and three units, at path. */
static void write_sample(const char *path)
{
	static const size_t both[] = { 0, 1 };
	struct planfile_writer w;
	struct sink out;

	for (int i = 0; i < 2; i++)
		fill_key(ck[i], 'a' + i);
	for (int i = 0; i < 3; i++)
		fill_key(uk[i], '7' - i);
	sink_init(&out);
	planfile_writer_init(&w, &out);
	planfile_begin_pack(&w, "kwarm-pack 1\nwhat class TestA\n", &refs[0]);
	add_record(&w, uk[0], "cc -c o.cpp");
	add_record(&w, uk[2], "cc\nodd");
	planfile_end_pack(&w, &refs[0]);
	planfile_begin_pack(&w, "kwarm-pack 1\nwhat class TestB\n", &refs[1]);
	planfile_end_pack(&w, &refs[1]);
	planfile_add_common(&w, common, ARRAY_SIZE(common));
	planfile_add_class(&w, "TestA");
	planfile_add_class(&w, "TestB");
	planfile_add_class(&w, "TestC");
	planfile_add_callable(&w, ck[0], "TestA", "/out/.kwarm/TestA.callable.x", &refs[0]);
	planfile_add_callable(&w, ck[1], "TestB", "/out dir/.kwarm/TestB/one.callable.y", &refs[1]);
	add_unit(&w, uk[0], "TestA,TestB", "TestA/orchestration 'k/o.cpp'", "orchestration 'k/o.cpp'",
		 both, 2);
	add_unit(&w, uk[1], "TestB", "TestB/incore 'rms norm' (aiv)", "incore 'rms norm' (aiv)",
		 both + 1, 1);
	add_unit(&w, uk[2], "TestA", "TestA/x", "incore 'odd\nname\t' (aic)", both, 1);
	planfile_finish(&w);
	check_write_file(path, out.b.s, out.b.len, 0644);
	planfile_writer_release(&w);
	sink_release(&out);
}

static void test_list(const char *path)
{
	struct unitlist ul;

	CHECK_INT(unitlist_load_gently(&ul, path), 0);
	if (!CHECK_INT(ul.classes.nr, 3) || !CHECK_INT(ul.nr_callables, 2) ||
	    !CHECK_INT(ul.nr_units, 3)) {
		unitlist_release(&ul);
		return;
	}
	CHECK_STR(ul.classes.v[2], "TestC");
	CHECK_STR(ul.callables[0].ckey, ck[0]);
	CHECK_STR(ul.callables[1].cls, "TestB");
	CHECK_STR(ul.callables[1].stamp, "/out dir/.kwarm/TestB/one.callable.y");
	/* Plan order, not the index's. */
	CHECK_STR(ul.units[0].key, uk[0]);
	CHECK_INT(ul.units[0].owners.nr, 2);
	CHECK(unitlist_unit_owned_by(&ul.units[0], "TestA"));
	CHECK(unitlist_unit_owned_by(&ul.units[0], "TestB"));
	CHECK(!unitlist_unit_owned_by(&ul.units[0], "Test"));
	CHECK_STR(ul.units[0].id, "TestA/orchestration 'k/o.cpp'");
	CHECK_STR(ul.units[1].label, "incore 'rms norm' (aiv)");
	CHECK_STR(ul.units[2].label, "incore 'odd?name?' (aic)");
	CHECK_INT(ul.callables[1].at, refs[1].offset);
	CHECK_INT(ul.callables[0].len, refs[0].len);
	CHECK_INT(ul.callables[0].cmds, refs[0].cmds_len);
	CHECK_INT(ul.units[0].nr_packs, 2);
	CHECK_INT(ul.units[1].nr_packs, 1);
	unitlist_release(&ul);
	CHECK(ul.units == NULL && ul.nr_units == 0 && ul.classes.nr == 0);
}

static void test_lookup(const char *path)
{
	struct unitlist_unit u;
	char missing[DIGEST_HEX_SIZE];

	for (int i = 0; i < 3; i++) {
		if (!CHECK_INT(planfile_lookup(path, uk[i], &u), 1))
			continue;
		CHECK_STR(u.key, uk[i]);
		unitlist_unit_release(&u);
	}
	CHECK_INT(planfile_lookup(path, uk[1], &u), 1);
	CHECK_INT(u.owners.nr, 1);
	CHECK_STR(u.owners.v[0], "TestB");
	CHECK_STR(u.id, "TestB/incore 'rms norm' (aiv)");
	CHECK_STR(u.label, "incore 'rms norm' (aiv)");
	unitlist_unit_release(&u);
	/* A unit's callables, from the offsets on its line alone. */
	if (CHECK_INT(planfile_lookup(path, uk[0], &u), 1) && CHECK_INT(u.nr_packs, 2)) {
		struct unitlist_callable cs[2];

		if (CHECK_INT(planfile_read_callables(path, u.packs, 2, cs), 0)) {
			CHECK_STR(cs[0].ckey, ck[0]);
			CHECK_STR(cs[0].cls, "TestA");
			CHECK_STR(cs[1].stamp, "/out dir/.kwarm/TestB/one.callable.y");
			CHECK_INT(cs[1].at, refs[1].offset);
			CHECK_INT(cs[0].cmds, refs[0].cmds_len);
			unitlist_callable_release(&cs[0]);
			unitlist_callable_release(&cs[1]);
		}
		u.packs[1]++;	/* not where a line begins */
		CHECK_INT(planfile_read_callables(path, u.packs, 2, cs), -1);
		unitlist_unit_release(&u);
	}
	for (int c = '0'; c <= 'f'; c = c == '9' ? 'a' : c + 1) {
		fill_key(missing, c);
		if (c < '5' || c > '7')
			CHECK_INT(planfile_lookup(path, missing, &u), 0);
	}
}

static void test_sections(const char *path)
{
	struct strvec words;
	char *text;

	CHECK_INT(planfile_read(path, refs[0].offset, refs[0].len, "descriptions", &text, NULL), 0);
	CHECK_STR(text, "kwarm-pack 1\nwhat class TestA\n");
	free(text);
	CHECK_INT(refs[1].offset, refs[0].offset + refs[0].len + refs[0].cmds_len);
	CHECK_INT(refs[1].cmds_len, 0);
	CHECK_INT(planfile_read(path, refs[0].offset + refs[0].len, refs[0].cmds_len, "records",
				&text, NULL), 0);
	strvec_init(&words);
	CHECK_INT(planfile_find_record(text, uk[2], &words), 0);
	CHECK_INT(words.nr, 4);
	if (words.nr == 4) {
		CHECK_STR(words.v[1], uk[2]);
		CHECK_STR(words.v[3], "cc?odd");
	}
	free(text);
	strvec_release(&words);
	strvec_init(&words);
	CHECK_INT(planfile_read(path, refs[0].offset + refs[0].len, refs[0].cmds_len, "records",
				&text, NULL), 0);
	CHECK_INT(planfile_find_record(text, uk[1], &words), -1);
	CHECK_INT(words.nr, 0);
	free(text);
	strvec_release(&words);
	/* A unit's whole recipe: the common words, its line's, its record's. */
	strvec_init(&words);
	CHECK_INT(planfile_read(path, refs[0].offset + refs[0].len, refs[0].cmds_len, "records",
				&text, NULL), 0);
	CHECK_INT(planfile_compile_words(path, text, uk[0], &words), 0);
	if (CHECK_INT(words.nr, 16)) {
		CHECK_STR(words.v[1], "/c?x");
		CHECK_STR(words.v[3], "/r");
		CHECK_STR(words.v[5], uk[0]);
		CHECK_STR(words.v[7], "orchestration 'k/o.cpp'");
		CHECK_STR(words.v[9], "TestA/orchestration 'k/o.cpp'");
		CHECK_STR(words.v[11], "TestA,TestB");
		CHECK_STR(words.v[15], "cc -c o.cpp");
	}
	free(text);
	strvec_release(&words);
	/* Past the end: refused. */
	check_capture_begin(2);
	CHECK_INT(planfile_read(path, refs[0].offset, 1 << 20, "descriptions", &text, NULL), -1);
	free(check_capture_end(2));
	CHECK(text == NULL);
}

/* Many units: each found by its key, a few preads each. */
static void test_many(void)
{
	char *path = path_join(tmpdir, "many.plan"), key[DIGEST_HEX_SIZE];
	struct planfile_writer w;
	struct sink out;
	struct unitlist_unit u;
	int all = 1;

	sink_init(&out);
	planfile_writer_init(&w, &out);
	planfile_add_class(&w, "T");
	for (unsigned i = 0; i < 2000; i++) {
		many_key(key, i);
		add_unit(&w, key, "T", "id", "label", NULL, 0);
	}
	planfile_finish(&w);
	check_write_file(path, out.b.s, out.b.len, 0644);
	for (unsigned i = 0; i < 2000; i++) {
		many_key(key, i);
		all &= planfile_lookup(path, key, &u) == 1 && !strcmp(u.key, key);
		unitlist_unit_release(&u);
	}
	CHECK(all);
	planfile_writer_release(&w);
	sink_release(&out);
	free(path);
}

/* A unit line longer than a lookup's first read (a unit of many classes),
 * between two short ones: read whole. */
static void test_long_line(void)
{
	char *path = path_join(tmpdir, "long.plan"), key[DIGEST_HEX_SIZE];
	struct planfile_writer w;
	struct buf owners = BUF_INIT;
	struct sink out;
	struct unitlist_unit u;

	for (int i = 0; i < 1000; i++)
		buf_addf(&owners, "%sTestClass%04d", i ? "," : "", i);	/* 14 KB */
	sink_init(&out);
	planfile_writer_init(&w, &out);
	planfile_add_class(&w, "T");
	for (unsigned i = 0; i < 3; i++) {
		many_key(key, i);
		add_unit(&w, key, i == 1 ? owners.s : "T", "id", "label", NULL, 0);
	}
	planfile_finish(&w);
	check_write_file(path, out.b.s, out.b.len, 0644);
	many_key(key, 1);
	if (CHECK_INT(planfile_lookup(path, key, &u), 1)) {
		CHECK_INT(u.owners.nr, 1000);
		CHECK_STR(u.label, "label");
		unitlist_unit_release(&u);
	}
	planfile_writer_release(&w);
	sink_release(&out);
	buf_release(&owners);
	free(path);
}

/* path with its bytes from..from+len replaced by with (same length). */
static char *damaged(const char *path, const char *name, const char *from, const char *with)
{
	char *text = check_must_read(path), *at = strstr(text, from);
	char *copy = path_join(tmpdir, name);

	if (!CHECK(at != NULL && strlen(from) == strlen(with)))
		die("no '%s' in the sample", from);
	memcpy(at, with, strlen(with));
	check_write_file(copy, text, strlen(text), 0644);
	free(text);
	return copy;
}

/* Each reader refuses path: the unit list's silently (the run's reports go
 * on without it), the lookup with one message that names it. */
static void check_refused(const char *path, int list, int lookup)
{
	struct unitlist ul;
	struct unitlist_unit u;
	char *msg;
	int lines = 0;

	check_capture_begin(2);
	if (list)
		CHECK_INT(unitlist_load_gently(&ul, path), -1);
	if (lookup)
		CHECK_INT(planfile_lookup(path, uk[0], &u), -1);
	msg = check_capture_end(2);
	if (lookup) {
		CHECK(starts_with(msg, "kwarm: error: "));
		CHECK_HAS(msg, path);
	}
	for (const char *p = msg; (p = strchr(p, '\n')); p++)
		lines++;
	CHECK_INT(lines, lookup);
	if (list)
		CHECK(ul.units == NULL && ul.classes.v == NULL);
	free(msg);
}

static void test_damage(const char *path)
{
	char *missing = path_join(tmpdir, "missing.plan"), *bad, *cut, *text;
	size_t len;

	check_refused(missing, 1, 1);
	bad = damaged(path, "magic.plan", "kwarm-plan 3", "kwarm-plan 2");
	check_refused(bad, 1, 1);
	free(bad);
	bad = damaged(path, "list.plan", "\nclass TestB\n", "\nklass TestB\n");
	check_refused(bad, 1, 0);
	free(bad);
	/* The unit's line no longer carries the key the index says. */
	bad = damaged(path, "line.plan", "7 TestA,TestB ", "6 TestA,TestB ");
	check_refused(bad, 0, 1);
	free(bad);
	/* Cut short: the index is gone (the list is whole), then the list's end too. */
	text = check_must_read(path);
	len = strlen(text);
	cut = path_join(tmpdir, "cut.plan");
	check_write_file(cut, text, len - 200, 0644);
	check_refused(cut, 0, 1);
	check_write_file(cut, text, len - 3 * 76 - 10, 0644);
	check_refused(cut, 1, 1);
	check_write_file(cut, text, 30, 0644);
	check_refused(cut, 1, 1);
	free(text);
	free(cut);
	free(missing);
}

int main(int argc, char **argv)
{
	char *path;

	check_init(argc, argv);
	tmpdir = check_tmpdir("planfile");
	path = path_join(tmpdir, "warmup.mk.plan");
	write_sample(path);
	TEST(test_list(path), "list");
	TEST(test_lookup(path), "lookup");
	TEST(test_sections(path), "sections");
	TEST(test_many(), "many");
	TEST(test_long_line(), "long_line");
	TEST(test_damage(path), "damage");
	free(path);
	free(tmpdir);
	return check_done();
}

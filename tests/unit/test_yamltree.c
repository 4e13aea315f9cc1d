/* Unit tests of yamltree: load errors with their positions (parser, reader,
 * tab indentation, empty, two documents, alias bombs, alias cycles, depth),
 * the typed accessors, control characters refused with the value escaped in
 * the message, unique keys, and the fields table (unknown, duplicate, missing). */
#include "buf.h"
#include "check.h"
#include "path.h"
#include "util.h"
#include "spec/yamltree.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char *tmpdir;

/* Write text as tmpdir/name; the path (caller frees). */
static char *write_yaml(const char *name, const char *text)
{
	char *path = path_join(tmpdir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);

	if (fd < 0 || write_all(fd, text, strlen(text)) || close(fd))
		die("cannot write '%s'", path);
	return path;
}

/* Load text (as tmpdir/name) into t; the result, and stderr in *msg. */
static int load(struct yamltree *t, const char *path, struct yamlnode **root, char **msg)
{
	int ret;

	check_capture_begin(2);
	ret = yamltree_load(t, path, root);
	*msg = check_capture_end(2);
	return ret;
}

/* Loading text must fail with exactly "PATH:" + want + "\n". */
static void check_load_error(const char *name, const char *text, const char *want)
{
	char *path = write_yaml(name, text), *msg, *full = xstrfmt("%s:%s\n", path, want);
	struct yamltree t;
	struct yamlnode *root = NULL;

	CHECK_INT(load(&t, path, &root, &msg), -1);
	if (!CHECK_STR(msg, full))
		fprintf(stderr, "  for %s\n", name);
	yamltree_release(&t);
	free(full);
	free(msg);
	free(path);
}

/* The value node of key in mapping map, or NULL. */
static struct yamlnode *lookup(struct yamltree *t, struct yamlnode *map, const char *key)
{
	size_t nr;
	const yaml_node_pair_t *pairs = yamltree_pairs(map, &nr);

	for (const yaml_node_pair_t *p = pairs; p < pairs + nr; p++)
		if (!strcmp(yamltree_text(yamltree_node(t, p->key)), key))
			return yamltree_node(t, p->value);
	return NULL;
}

/* The first key node of map whose text is key. */
static struct yamlnode *key_node(struct yamltree *t, struct yamlnode *map, const char *key)
{
	size_t nr;
	const yaml_node_pair_t *pairs = yamltree_pairs(map, &nr);

	for (const yaml_node_pair_t *p = pairs; p < pairs + nr; p++)
		if (!strcmp(yamltree_text(yamltree_node(t, p->key)), key))
			return yamltree_node(t, p->key);
	return NULL;
}

static void test_load_errors(void)
{
	check_load_error("flow.yaml", "a: [1, 2\nb: 3\n",
			 "2:2: yaml: did not find expected ',' or ']'");
	check_load_error("tab.yaml", "a:\n  b: 1\n\tc: 2\n",
			 "3:1: yaml: found a tab character used as indentation");
	/* A reader error counts columns in characters: "é" is one. */
	check_load_error("utf8.yaml", "a: b\nc\xc3\xa9: \xff\n",
			 "2:5: yaml: invalid leading UTF-8 octet");
	check_load_error("empty.yaml", "", "1:1: spec is empty");
	check_load_error("comment.yaml", "# nothing\n", "1:1: spec is empty");
	check_load_error("two.yaml", "a: 1\n---\nb: 2\n", "3:1: spec holds more than one document");
	check_load_error("two-bad.yaml", "a: 1\n---\nb: [\n", "4:1: yaml: did not find expected node content");
	check_load_error("cycle.yaml", "a: &x [1, *x]\n", "1:4: alias refers to a node that contains it");
	check_load_error("undefined.yaml", "a: *nope\n", "1:4: yaml: found undefined alias");

	/* A missing file is an error() naming it. */
	{
		char *path = path_join(tmpdir, "no-such.yaml"), *msg;
		struct yamltree t;
		struct yamlnode *root;

		CHECK_INT(load(&t, path, &root, &msg), -1);
		CHECK(starts_with(msg, "kwarm: error: cannot read '"));
		CHECK_HAS(msg, "no-such.yaml': No such file or directory");
		yamltree_release(&t);
		free(msg);
		free(path);
	}
}

static void test_depth(void)
{
	struct buf deep = BUF_INIT, ok = BUF_INIT;
	struct yamltree t;
	struct yamlnode *root;
	char *path, *msg;

	/* 300 nested flow sequences: refused at the 258th. */
	for (int i = 0; i < 300; i++)
		buf_addch(&deep, '[');
	for (int i = 0; i < 300; i++)
		buf_addch(&deep, ']');
	buf_addch(&deep, '\n');
	check_load_error("deep.yaml", deep.s, "1:258: spec nests deeper than 256 levels");

	/* 200 levels are fine. */
	for (int i = 0; i < 200; i++)
		buf_addch(&ok, '[');
	for (int i = 0; i < 200; i++)
		buf_addch(&ok, ']');
	buf_addch(&ok, '\n');
	path = write_yaml("deep-ok.yaml", ok.s);
	CHECK_INT(load(&t, path, &root, &msg), 0);
	CHECK_STR(msg, "");
	yamltree_release(&t);
	free(msg);
	free(path);
	buf_release(&deep);
	buf_release(&ok);
}

static void test_aliases(void)
{
	struct buf bomb = BUF_INIT;
	struct yamltree t;
	struct yamlnode *root, *b;
	char *path, *msg;
	double start;

	/* Billion laughs: 10 levels of 10 references each, 10^10 nodes expanded. */
	buf_adds(&bomb, "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
	for (int i = 1; i <= 9; i++) {
		buf_addf(&bomb, "l%d: &l%d [", i, i);
		for (int j = 0; j < 10; j++)
			buf_addf(&bomb, "%s*l%d", j ? ", " : "", i - 1);
		buf_adds(&bomb, "]\n");
	}
	path = write_yaml("bomb.yaml", bomb.s);
	start = now_monotonic();
	CHECK_INT(load(&t, path, &root, &msg), -1);
	CHECK(now_monotonic() - start < 1.0);	/* measured, not walked: instant */
	CHECK_HAS(msg, ": spec expands to too many nodes (alias bomb?)\n");
	/* Found at l6's list (line 7): l0 is 11 nodes, l1 111, ..., l6 11111111,
	 * the first past 10^7. */
	{
		char *want = xstrfmt("%s:7:5: spec expands", path);

		CHECK(starts_with(msg, want));
		free(want);
	}
	yamltree_release(&t);
	free(msg);
	free(path);
	buf_release(&bomb);

	/* A few aliases are fine, and the accessors follow them. */
	path = write_yaml("alias.yaml", "base: &flags [-O2, -g]\nuse: *flags\nname: &n hello\ncopy: *n\n");
	CHECK_INT(load(&t, path, &root, &msg), 0);
	CHECK_STR(msg, "");
	b = lookup(&t, root, "use");
	CHECK(b && b->type == YAML_SEQUENCE_NODE);
	CHECK_INT(b ? yamltree_len(b) : 0, 2);
	if (b && yamltree_len(b) == 2)
		CHECK_STR(yamltree_text(yamltree_node(&t, yamltree_item(b, 1))), "-g");
	b = lookup(&t, root, "copy");
	CHECK_STR(b ? yamltree_text(b) : NULL, "hello");
	yamltree_release(&t);
	free(msg);
	free(path);
}

/* Run an accessor-style call with stderr captured into *msg. */
#define CAPTURED(msg, call) \
	(check_capture_begin(2), ret_ = (call), *(msg) = check_capture_end(2), ret_)
static int ret_;

/* msg (freed) is exactly "PATH:REST\n", one error at path's LINE:COL; a
 * failure names the caller's line. */
#define CHECK_SAID(msg, path, rest) check_said((msg), (path), (rest), __LINE__)
static void check_said(char *msg, const char *path, const char *rest, int line)
{
	char *want = xstrfmt("%s:%s\n", path, rest);

	check_str_at(msg, want, __FILE__, line, "msg");
	free(want);
	free(msg);
}

/* The document of the scalar cases: one key per kind of value. */
static const char scalars_yaml[] =
	"s: hello\n"
	"empty: ''\n"
	"nul: ~\n"
	"nul2: null\n"
	"quoted_null: 'null'\n"
	"n: 42\n"
	"neg: -7\n"
	"plus: +5\n"
	"big: 99999999999999999999\n"
	"small: -99999999999999999999\n"
	"qint: '42'\n"
	"tint: !!int '43'\n"
	"frac: 1.5\n"
	"hex: 0x10\n"
	"list: [a, '', b]\n"
	"elist: []\n"
	"badlist: [a, [b]]\n"
	"nulllist: [a, ~]\n"
	"map: {k: v}\n"
	"tab: \"a\\tb\"\n"
	"nl: \"line1\\nline2\\r\\x01\\x7f\"\n"
	"ctl_list: [ok, \"x\\ty\"]\n"
	"\"bad\\nkey\": 1\n"
	"nulbyte: \"a\\0b\"\n";

/* scalars_yaml written to a file (*path, caller frees) and loaded into t. */
static struct yamlnode *load_scalars(struct yamltree *t, char **path)
{
	struct yamlnode *root = NULL;
	char *msg;

	*path = write_yaml("scalars.yaml", scalars_yaml);
	CHECK_INT(load(t, *path, &root, &msg), 0);
	CHECK_STR(msg, "");
	free(msg);
	CHECK(root && root->type == YAML_MAPPING_NODE);
	return root;
}

/* Strings: empty is fine unless nonempty; null is not a string, a quoted 'null' is. */
static void test_strings(void)
{
	struct yamltree t;
	char *path;
	struct yamlnode *root = load_scalars(&t, &path);
	const char *s;
	char *dup = NULL;
	char *msg;

	CHECK_INT(CAPTURED(&msg, yamltree_string(&t, lookup(&t, root, "s"), "s", 1, &s)), 0);
	CHECK_STR(s, "hello");
	CHECK_STR(msg, "");
	free(msg);
	CHECK_INT(CAPTURED(&msg, yamltree_strdup(&t, lookup(&t, root, "s"), "s", 1, &dup)), 0);
	CHECK_STR(dup, "hello");
	free(dup);
	free(msg);
	/* Empty: fine unless nonempty. */
	CHECK_INT(CAPTURED(&msg, yamltree_string(&t, lookup(&t, root, "empty"), "empty", 0, &s)), 0);
	CHECK_STR(s, "");
	free(msg);
	CHECK_INT(CAPTURED(&msg, yamltree_string(&t, lookup(&t, root, "empty"), "empty", 1, &s)), -1);
	CHECK_SAID(msg, path, "2:8: 'empty' must be a non-empty string");
	/* Null is not a string; a quoted 'null' is. */
	CHECK_INT(CAPTURED(&msg, yamltree_string(&t, lookup(&t, root, "nul"), "nul", 0, &s)), -1);
	CHECK_SAID(msg, path, "3:6: 'nul' must be a string");
	CHECK(!yamltree_is_string(lookup(&t, root, "nul2")));
	CHECK(yamltree_is_string(lookup(&t, root, "quoted_null")));
	CHECK(!yamltree_is_string(lookup(&t, root, "map")));
	/* A NUL byte inside is no C string. */
	CHECK(!yamltree_is_string(lookup(&t, root, "nulbyte")));

	yamltree_release(&t);
	free(path);
}

/* Integers: clamped at the limits; a quoted one is a string. */
static void test_integers(void)
{
	struct yamltree t;
	char *path;
	struct yamlnode *root = load_scalars(&t, &path);
	long long n;
	char *msg;

	CHECK_INT(CAPTURED(&msg, yamltree_integer(&t, lookup(&t, root, "n"), "n", &n)), 0);
	CHECK_INT(n, 42);
	free(msg);
	CHECK_INT(CAPTURED(&msg, yamltree_integer(&t, lookup(&t, root, "neg"), "neg", &n)), 0);
	CHECK_INT(n, -7);
	free(msg);
	CHECK_INT(CAPTURED(&msg, yamltree_integer(&t, lookup(&t, root, "plus"), "plus", &n)), 0);
	CHECK_INT(n, 5);
	free(msg);
	CHECK_INT(CAPTURED(&msg, yamltree_integer(&t, lookup(&t, root, "big"), "big", &n)), 0);
	CHECK(n == LLONG_MAX);
	free(msg);
	CHECK_INT(CAPTURED(&msg, yamltree_integer(&t, lookup(&t, root, "small"), "small", &n)), 0);
	CHECK(n == LLONG_MIN);
	free(msg);
	CHECK_INT(CAPTURED(&msg, yamltree_integer(&t, lookup(&t, root, "tint"), "tint", &n)), 0);
	CHECK_INT(n, 43);
	free(msg);
	CHECK_INT(CAPTURED(&msg, yamltree_integer(&t, lookup(&t, root, "qint"), "qint", &n)), -1);
	CHECK_SAID(msg, path, "11:7: 'qint' must be an integer");
	for (size_t i = 0; i < 3; i++) {
		const char *k = (const char *[]){ "frac", "hex", "list" }[i];

		CHECK_INT(CAPTURED(&msg, yamltree_integer(&t, lookup(&t, root, k), k, &n)), -1);
		CHECK_HAS(msg, "must be an integer\n");
		free(msg);
	}

	yamltree_release(&t);
	free(path);
}

/* Lists of strings; the bad item is pointed at. */
static void test_string_lists(void)
{
	struct yamltree t;
	char *path;
	struct yamlnode *root = load_scalars(&t, &path);
	struct strvec sv;
	char *msg;

	strvec_init(&sv);
	CHECK_INT(CAPTURED(&msg, yamltree_strings(&t, lookup(&t, root, "list"), "list", 1, &sv)), 0);
	CHECK_INT(sv.nr, 3);
	if (sv.nr == 3) {
		CHECK_STR(sv.v[0], "a");
		CHECK_STR(sv.v[1], "");
		CHECK_STR(sv.v[2], "b");
	}
	free(msg);
	CHECK_INT(CAPTURED(&msg, yamltree_strings(&t, lookup(&t, root, "elist"), "elist", 0, &sv)), 0);
	CHECK_INT(sv.nr, 3);
	free(msg);
	CHECK_INT(CAPTURED(&msg, yamltree_strings(&t, lookup(&t, root, "elist"), "elist", 1, &sv)), -1);
	CHECK_SAID(msg, path, "16:8: 'elist' must be a non-empty list of strings");
	/* The bad item is pointed at. */
	CHECK_INT(CAPTURED(&msg, yamltree_strings(&t, lookup(&t, root, "badlist"), "badlist", 0, &sv)), -1);
	CHECK_SAID(msg, path, "17:14: 'badlist' must be a list of strings");
	CHECK_INT(CAPTURED(&msg, yamltree_strings(&t, lookup(&t, root, "nulllist"), "nulllist", 0, &sv)), -1);
	free(msg);
	CHECK_INT(CAPTURED(&msg, yamltree_strings(&t, lookup(&t, root, "s"), "s", 0, &sv)), -1);
	CHECK_SAID(msg, path, "1:4: 's' must be a list of strings");
	strvec_release(&sv);

	yamltree_release(&t);
	free(path);
}

/* Control characters: refused, the value shown escaped on one line; in keys too. */
static void test_control_chars(void)
{
	struct yamltree t;
	char *path;
	struct yamlnode *root = load_scalars(&t, &path);
	struct yamlnode *v;
	const char *s;
	char *dup = NULL;
	struct strvec sv;
	char *msg;

	CHECK_INT(CAPTURED(&msg, yamltree_string(&t, lookup(&t, root, "tab"), "tab", 0, &s)), -1);
	CHECK_SAID(msg, path, "20:6: 'tab' must not contain control characters: \"a\\tb\"");
	CHECK_INT(CAPTURED(&msg, yamltree_strdup(&t, lookup(&t, root, "nl"), "nl", 0, &dup)), -1);
	CHECK_SAID(msg, path, "21:5: 'nl' must not contain control characters: "
		   "\"line1\\nline2\\r\\x01\\x7f\"");
	strvec_init(&sv);
	CHECK_INT(CAPTURED(&msg, yamltree_strings(&t, lookup(&t, root, "ctl_list"), "ctl_list", 0, &sv)), -1);
	CHECK_SAID(msg, path, "22:16: 'ctl_list' must not contain control characters: \"x\\ty\"");
	strvec_release(&sv);
	/* Keys too. */
	v = key_node(&t, root, "bad\nkey");
	CHECK(v != NULL);
	if (v) {
		CHECK_INT(CAPTURED(&msg, yamltree_key_text(&t, v, &s)), -1);
		CHECK_SAID(msg, path, "23:1: keys must not contain control characters: \"bad\\nkey\"");
	}
	CHECK_INT(CAPTURED(&msg, yamltree_key_text(&t, key_node(&t, root, "s"), &s)), 0);
	CHECK_STR(s, "s");
	CHECK_STR(msg, "");
	free(msg);

	yamltree_release(&t);
	free(path);
}

/* yamltree_error itself: position of the node, the formatted text. */
static void test_error(void)
{
	struct yamltree t;
	char *path;
	struct yamlnode *root = load_scalars(&t, &path);
	char *msg;

	CHECK_INT(CAPTURED(&msg, yamltree_error(&t, lookup(&t, root, "n"), "odd %d", 7)), -1);
	CHECK_SAID(msg, path, "6:4: odd 7");

	yamltree_release(&t);
	free(path);
}

static void test_mappings(void)
{
	char *path = write_yaml("maps.yaml",
				"good: {name: a, size: 1}\n"
				"dup:\n"
				"  name: a\n"
				"  size: 1\n"
				"  name: b\n"
				"unknown: {name: a, colour: red}\n"
				"missing:\n"
				"  size: 1\n"
				"nonstr: {~: 1}\n"
				"complex:\n"
				"  ? [a]\n"
				"  : 1\n"
				"ctlkey: {name: a, \"x\\ny\": 1}\n");
	struct yamltree t;
	struct yamlnode *root;
	char *msg, *want;
	struct yamltree_field f[] = {
		YAMLTREE_FIELD("name", 1),
		YAMLTREE_FIELD("size", 0),
		YAMLTREE_FIELD("extra", 0),
	};

	CHECK_INT(load(&t, path, &root, &msg), 0);
	free(msg);
	CHECK_INT(CAPTURED(&msg, yamltree_unique_keys(&t, root)), 0);
	free(msg);

	CHECK_INT(CAPTURED(&msg, yamltree_fields(&t, lookup(&t, root, "good"), "in thing", f, 3)), 0);
	CHECK_STR(msg, "");
	free(msg);
	CHECK_STR(f[0].value ? yamltree_text(f[0].value) : NULL, "a");
	CHECK_STR(f[0].key_node ? yamltree_text(f[0].key_node) : NULL, "name");
	CHECK_STR(f[1].value ? yamltree_text(f[1].value) : NULL, "1");
	CHECK(f[2].value == NULL && f[2].key_node == NULL);

	/* Duplicates: both checks point at the second one. */
	CHECK_INT(CAPTURED(&msg, yamltree_unique_keys(&t, lookup(&t, root, "dup"))), -1);
	want = xstrfmt("%s:5:3: duplicate key 'name'\n", path);
	CHECK_STR(msg, want);
	free(msg);
	CHECK_INT(CAPTURED(&msg, yamltree_fields(&t, lookup(&t, root, "dup"), "in thing", f, 3)), -1);
	CHECK_STR(msg, want);
	free(want);
	free(msg);

	CHECK_INT(CAPTURED(&msg, yamltree_fields(&t, lookup(&t, root, "unknown"), "in thing", f, 3)), -1);
	CHECK_SAID(msg, path, "6:20: unknown key 'colour' in thing");

	/* Missing: at the mapping; values from an earlier call do not linger. */
	CHECK_INT(CAPTURED(&msg, yamltree_fields(&t, lookup(&t, root, "missing"), "in thing", f, 3)), -1);
	CHECK_SAID(msg, path, "8:3: missing required key 'name' in thing");
	CHECK(f[0].value == NULL);
	/* Not required: the same mapping is fine. */
	CHECK_INT(CAPTURED(&msg, yamltree_fields(&t, lookup(&t, root, "missing"), "in thing", f + 1, 2)), 0);
	free(msg);

	for (size_t i = 0; i < 2; i++) {
		const char *k = i ? "complex" : "nonstr";

		CHECK_INT(CAPTURED(&msg, yamltree_unique_keys(&t, lookup(&t, root, k))), -1);
		CHECK_HAS(msg, ": mapping keys must be strings\n");
		free(msg);
		CHECK_INT(CAPTURED(&msg, yamltree_fields(&t, lookup(&t, root, k), "in thing", f, 3)), -1);
		CHECK_HAS(msg, ": mapping keys must be strings\n");
		free(msg);
	}

	/* An unknown key with a control character: still one line, escaped. */
	CHECK_INT(CAPTURED(&msg, yamltree_fields(&t, lookup(&t, root, "ctlkey"), "in thing", f, 3)), -1);
	/* BUG: yamltree_fields prints an unknown key raw ("unknown key 'x
	 * y' in thing"): the message spans two lines. */
	CHECK_SAID(msg, path, "13:19: unknown key 'x\\ny' in thing");

	yamltree_release(&t);
	free(path);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	tmpdir = check_tmpdir("yamltree");
	TEST(test_load_errors(), "load_errors");
	TEST(test_depth(), "depth");
	TEST(test_aliases(), "aliases");
	TEST(test_strings(), "strings");
	TEST(test_integers(), "integers");
	TEST(test_string_lists(), "string_lists");
	TEST(test_control_chars(), "control_chars");
	TEST(test_error(), "error");
	TEST(test_mappings(), "mappings");
	free(tmpdir);
	return check_done();
}

/* The bad-spec corpus: every tests/specs/bad/NAME.yaml must fail to load with
 * exactly the one line of NAME.expected on stderr, and nothing else. */
#include "check.h"
#include "spec/spec.h"
#include "strvec.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

/* Load path with stderr captured; its text is returned (caller frees). */
static char *load_captured(const char *path, int *ret, double *seconds)
{
	struct spec spec;
	char *text;
	double start;

	check_capture_begin(2);
	start = now_monotonic();
	*ret = spec_load(&spec, path);
	*seconds = now_monotonic() - start;
	text = check_capture_end(2);
	if (!*ret)
		spec_release(&spec);
	return text;
}

/* The spec stem.yaml fails to load with exactly the line of stem.expected. */
static void test_bad_spec(const char *stem)
{
	char *expected_path = xstrfmt("%s.expected", stem), *yaml_path = xstrfmt("%s.yaml", stem);
	char *expected, *got;
	size_t len;
	double seconds;
	int ret;

	if (read_file_all(expected_path, &expected, &len)) {
		check_at(0, __FILE__, __LINE__, yaml_path);
		fprintf(stderr, "'%s' has no '%s'\n", yaml_path, expected_path);
		goto out;
	}
	/* One line, newline-terminated, naming this very file. */
	CHECK(len > 0 && expected[len - 1] == '\n' && strchr(expected, '\n') == expected + len - 1);
	CHECK(starts_with(expected, yaml_path) && expected[strlen(yaml_path)] == ':');
	got = load_captured(yaml_path, &ret, &seconds);
	CHECK_INT(ret, -1);
	CHECK_STR(got, expected);
	if (!strcmp(stem, "alias_bomb") &&
	    !check_at(seconds < 1.0, __FILE__, __LINE__, "alias bomb rejected within 1 s"))
		fprintf(stderr, "  alias bomb took %.3f s\n", seconds);
	free(expected);
	free(got);
out:
	free(expected_path);
	free(yaml_path);
}

/* The corpus stays broad, every case of the brief is there, and no
 * expectation is left without its spec. */
static void test_corpus(const struct strvec *names)
{
	size_t specs = 0;
	struct stat st;

	for (size_t i = 0; i < names->nr; i++) {
		const char *name = names->v[i];
		char *yaml_path;

		if (has_suffix(name, ".yaml")) {
			specs++;
			continue;
		}
		yaml_path = xstrfmt("%.*s.yaml", (int)(strlen(name) - strlen(".expected")), name);
		if (!check_at(!stat(yaml_path, &st), __FILE__, __LINE__, name))
			fprintf(stderr, "'%s' has no '%s'\n", name, yaml_path);
		free(yaml_path);
	}
	CHECK(specs >= 30);
	CHECK(strvec_find(names, "alias_bomb.yaml") >= 0);
	CHECK(strvec_find(names, "incores_1025.yaml") >= 0);
	CHECK(strvec_find(names, "unset_variable.yaml") >= 0);
}

/* One case per spec of the corpus, named by its stem, and the corpus case. */
int main(int argc, char **argv)
{
	const char *src = getenv("KWARM_TEST_SRC");
	char *tmp = check_tmpdir("test_spec_bad");
	char *dir = xstrfmt("%s/tests/specs/bad", src ? src : ".");
	struct strvec names;
	struct dirent *de;
	DIR *d;

	check_init(argc, argv);
	/* The corpus's unset-variable cases rely on this one being unset. */
	unsetenv("KWARM_SURELY_UNSET_VAR");
	if (chdir(dir))
		die("cannot enter '%s': %s", dir, strerror(errno));
	d = opendir(".");
	if (!d)
		die("cannot list '%s': %s", dir, strerror(errno));
	strvec_init(&names);
	while ((de = readdir(d)))
		if (has_suffix(de->d_name, ".yaml") || has_suffix(de->d_name, ".expected"))
			strvec_push(&names, de->d_name);
	closedir(d);
	qsort(names.v, names.nr, sizeof(*names.v), strvec_cmp);

	TEST(test_corpus(&names), "corpus");
	for (size_t i = 0; i < names.nr; i++) {
		char *stem;

		if (!has_suffix(names.v[i], ".yaml"))
			continue;
		stem = xstrndup(names.v[i], strlen(names.v[i]) - strlen(".yaml"));
		TEST(test_bad_spec(stem), stem);
		free(stem);
	}
	strvec_release(&names);
	free(dir);
	free(tmp);
	return check_done();
}

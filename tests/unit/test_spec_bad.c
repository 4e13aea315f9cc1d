/* The bad-spec corpus: every tests/specs/bad/NAME.yaml must fail to load with
 * exactly the one line of NAME.expected on stderr, and nothing else. */
#include "check.h"
#include "spec.h"
#include "strvec.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

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

int main(void)
{
	const char *src = getenv("KWARM_TEST_SRC");
	char *tmp = check_tmpdir("test_spec_bad");
	char *dir = xstrfmt("%s/tests/specs/bad", src ? src : ".");
	struct strvec names;
	struct dirent *de;
	DIR *d;

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
	qsort(names.v, names.nr, sizeof(*names.v), cmp_str);

	size_t cases = 0;
	for (size_t i = 0; i < names.nr; i++) {
		const char *name = names.v[i];
		char *stem = xstrndup(name, (size_t)(strrchr(name, '.') - name));
		char *expected_path = xstrfmt("%s.expected", stem);
		char *yaml_path = xstrfmt("%s.yaml", stem);
		struct stat st;

		if (has_suffix(name, ".expected")) {
			/* An expectation whose spec is gone is a stale case. */
			if (!check_at(!stat(yaml_path, &st), __FILE__, __LINE__, name))
				fprintf(stderr, "'%s' has no '%s'\n", name, yaml_path);
		} else if (stat(expected_path, &st)) {
			check_at(0, __FILE__, __LINE__, name);
			fprintf(stderr, "'%s' has no '%s'\n", name, expected_path);
		} else {
			char *expected, *got;
			size_t len;
			double seconds;
			int ret;

			if (read_file_all(expected_path, &expected, &len))
				die("cannot read '%s': %s", expected_path, strerror(errno));
			/* One line, newline-terminated, naming this very file. */
			CHECK(len > 0 && expected[len - 1] == '\n' && strchr(expected, '\n') == expected + len - 1);
			CHECK(starts_with(expected, yaml_path) && expected[strlen(yaml_path)] == ':');
			got = load_captured(name, &ret, &seconds);
			if (!check_int_at(ret, -1, __FILE__, __LINE__, name) ||
			    !check_str_at(got, expected, __FILE__, __LINE__, name))
				fprintf(stderr, "  (case '%s')\n", name);
			if (!strcmp(stem, "alias_bomb") &&
			    !check_at(seconds < 1.0, __FILE__, __LINE__, "alias bomb rejected within 1 s"))
				fprintf(stderr, "  alias bomb took %.3f s\n", seconds);
			cases++;
			free(expected);
			free(got);
		}
		free(stem);
		free(expected_path);
		free(yaml_path);
	}
	/* The corpus must stay broad, and every case of the brief must be there. */
	CHECK(cases >= 30);
	CHECK(strvec_find(&names, "alias_bomb.yaml") >= 0);
	CHECK(strvec_find(&names, "incores_1025.yaml") >= 0);
	CHECK(strvec_find(&names, "unset_variable.yaml") >= 0);
	printf("%zu bad specs\n", cases);

	strvec_release(&names);
	free(dir);
	free(tmp);
	return check_done();
}

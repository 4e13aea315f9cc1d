#include "buf.h"
#include "check.h"
#include "makefile.h"
#include "path.h"
#include "run.h"
#include "util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static const char *const plain_words[] = {
	"plain", "a/b-c_d.e+f=g,h:i@j%k", "/abs/path/x.cpp", "-O2", "-DX=1", "-leading",
	"ALLCAPS09", NULL
};

static const char *const quoted_words[] = {
	"", "with space", "two  spaces", "it's", "'", "''", "dq\"x\"", "$HOME", "$$", "$(CC)",
	"${X}", "x$", "`echo hi`", "$(echo hi)", "- leading dash and space", "-$x", "tab\there",
	"back\\slash", "semi;colon", "a*b?[c]", "~user", "#hash", "!bang", "x'y'z$",
	"&|<>(){}", "a\\", "'$'\\''", "percent %s %%", NULL
};

static char *quote(const char *word)
{
	struct buf b = BUF_INIT;

	add_shell_word(&b, word, 1);
	return buf_detach(&b);
}

/* Undo make's "$$" -> "$" (the only escape make applies in a recipe). */
static char *unmake(const char *text)
{
	struct buf b = BUF_INIT;

	for (const char *p = text; *p; p++) {
		if (p[0] == '$' && p[1] == '$')
			p++;
		else if (p[0] == '$')
			CHECK(!"a single '$' would be expanded by make");
		buf_addch(&b, *p);
	}
	return buf_detach(&b);
}

/* What sh prints for printf %s WORD. */
static char *through_sh(const char *shell_word)
{
	struct buf script = BUF_INIT, out = BUF_INIT;
	struct run_result res;
	const char *argv[] = { "sh", "-c", NULL, NULL };

	buf_addf(&script, "printf %%s %s", shell_word);
	argv[2] = script.s;
	if (run_capture(argv, NULL, &out, &res, NULL) || !res.exited || res.status)
		CHECK(!"sh -c printf failed");
	buf_release(&script);
	return buf_detach(&out);
}

static void round_trip(const char *word)
{
	char *q = quote(word), *sh_word = unmake(q), *got = through_sh(sh_word);

	if (!check_str_at(got, word, __FILE__, __LINE__, "sh round trip"))
		fprintf(stderr, "  quoted as: %s\n", q);
	free(q);
	free(sh_word);
	free(got);
}

static void test_plain(void)
{
	for (size_t i = 0; plain_words[i]; i++) {
		char *q = quote(plain_words[i]);

		CHECK_STR(q, plain_words[i]);
		free(q);
		round_trip(plain_words[i]);
	}
}

static void test_quoted(void)
{
	static const char *const exact[][2] = {
		{ "", "''" }, { "a b", "'a b'" }, { "it's", "'it'\\''s'" }, { "$x", "'$$x'" },
	};
	char *q;

	for (size_t i = 0; quoted_words[i]; i++) {
		q = quote(quoted_words[i]);
		if (!CHECK(q[0] == '\''))
			fprintf(stderr, "  '%s' quoted as: %s\n", quoted_words[i], q);
		free(q);
		round_trip(quoted_words[i]);
	}
	/* The exact forms of a few. */
	for (size_t i = 0; i < ARRAY_SIZE(exact); i++) {
		q = quote(exact[i][0]);
		CHECK_STR(q, exact[i][1]);
		free(q);
	}
	/* Appended after what the buf holds. */
	{
		struct buf b = BUF_INIT;

		buf_adds(&b, "cc ");
		add_shell_word(&b, "-o", 1);
		buf_addch(&b, ' ');
		add_shell_word(&b, "my file.o", 1);
		CHECK_STR(b.s, "cc -o 'my file.o'");
		buf_release(&b);
	}
}

/* The real thing: GNU make runs each quoted word in a recipe. */
static void test_through_make(const char *tmp)
{
	struct buf mk = BUF_INIT, out = BUF_INIT;
	struct run_result res;
	char *make = path_which("make"), *mk_path = path_join(tmp, "Makefile");
	const char *argv[] = { "make", "-s", "-f", "Makefile", "all", NULL };
	const char *const *const lists[] = { plain_words, quoted_words };
	size_t n = 0;
	int fd;

	if (!CHECK(make != NULL))
		return;
	free(make);
	buf_adds(&mk, "all:\n");
	for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
		for (size_t i = 0; lists[l][i]; i++, n++) {
			buf_adds(&mk, "\tprintf %s ");
			add_shell_word(&mk, lists[l][i], 1);
			buf_addf(&mk, " > out.%zu\n", n);
		}
	fd = open(mk_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0 || write_all(fd, mk.s, mk.len) || close(fd))
		die("cannot write '%s'", mk_path);
	CHECK_INT(run_capture(argv, tmp, &out, &res, NULL), 0);
	CHECK(res.exited && res.status == 0);
	if (!(res.exited && res.status == 0))
		fprintf(stderr, "make said: %s\n", out.s);
	n = 0;
	for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
		for (size_t i = 0; lists[l][i]; i++, n++) {
			char *path = xstrfmt("%s/out.%zu", tmp, n), *data = NULL;
			size_t len;

			if (CHECK(!read_file_all(path, &data, &len)))
				check_str_at(data, lists[l][i], __FILE__, __LINE__, "make round trip");
			free(data);
			free(path);
		}
	buf_release(&mk);
	buf_release(&out);
	free(mk_path);
}

int main(int argc, char **argv)
{
	char *tmp = check_tmpdir("makefile"), *abs = realpath(tmp, NULL);

	check_init(argc, argv);
	if (!abs)
		die("cannot resolve '%s'", tmp);
	TEST(test_plain(), "plain");
	TEST(test_quoted(), "quoted");
	TEST(test_through_make(abs), "through_make");
	free(abs);
	free(tmp);
	return check_done();
}

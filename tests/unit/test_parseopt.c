#include "check.h"
#include "report/annotate.h"
#include "parseopt.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>

struct opts {
	const char *name, *format;
	int flag;
	uint64_t n;
	struct strvec list;
};

/* Parse the words of line (split at spaces, changed in place) into o; the
 * operands left are joined by spaces into *left. */
static int parse(char *line, struct opts *o, unsigned flags, char **bad, char **left)
{
	struct option table[] = {
		OPT_STRING("--name", &o->name),
		OPT_STRING("-o", &o->name),
		OPT_FLAG("--flag", &o->flag),
		OPT_U64("--n", &o->n),
		OPT_LIST("--list", &o->list),
		OPT_FORMAT(&o->format),
		OPT_END(),
	};
	char *argv[16];
	int argc = 0, nr;
	struct buf b = BUF_INIT;

	for (char *w = line; *w;) {
		argv[argc++] = w;
		w += strcspn(w, " ");
		if (*w)
			*w++ = '\0';
	}
	argv[argc] = NULL;
	nr = parse_options(argc, argv, table, flags, bad);
	for (int i = 0; i < nr; i++)
		buf_addf(&b, "%s%s", i ? " " : "", argv[i]);
	CHECK(nr < 0 || argv[nr] == NULL);
	*left = buf_detach(&b);
	return nr;
}

/* Parse line; the error message, or the operands left after "=> " and what
 * the options set. Caller frees. */
static char *outcome(const char *line, unsigned flags)
{
	struct opts o = { .name = NULL };
	char *copy = xstrdup(line), *bad, *left, *out;
	int nr;

	strvec_init(&o.list);
	nr = parse(copy, &o, flags, &bad, &left);
	if (nr == PARSE_HELP)
		out = xstrdup("help");
	else if (nr < 0)
		out = bad;
	else
		out = xstrfmt("%s=> name=%s flag=%d n=%llu list=%zu format=%s", left,
			      o.name ? o.name : "-", o.flag, (unsigned long long)o.n, o.list.nr,
			      o.format ? o.format : "-");
	if (nr >= 0 || nr == PARSE_HELP)
		CHECK(bad == NULL);
	free(left);
	free(copy);
	strvec_release(&o.list);
	return out;
}

static void check_outcome(const char *line, unsigned flags, const char *want)
{
	char *got = outcome(line, flags);

	if (!CHECK_STR(got, want))
		fprintf(stderr, "  for '%s'\n", line);
	free(got);
}

static void test_options(void)
{
	check_outcome("--name x a --flag b --n 12 --list p --list q --format github", 0,
		      "a b=> name=x flag=1 n=12 list=2 format=github");
	/* A value is the next word, whatever it starts with; the last one wins. */
	check_outcome("-o -h --name --flag", 0, "=> name=--flag flag=0 n=0 list=0 format=-");
	check_outcome("- a", 0, "- a=> name=- flag=0 n=0 list=0 format=-");
}

static void test_errors(void)
{
	check_outcome("a --nope", 0, "unknown option '--nope'");
	check_outcome("--name=x", 0, "unknown option '--name=x'");
	check_outcome("a --", 0, "unknown option '--'");
	check_outcome("--name", 0, "option '--name' needs a value");
	check_outcome("--n 12x", 0, "bad number '12x'");
	check_outcome("--n", 0, "option '--n' needs a value");
	check_outcome("--format xml", 0, "unknown format 'xml' (text or github)");
	check_outcome("a -h", 0, "help");
	check_outcome("--help --nope", 0, "help");
}

static void test_stop(void)
{
	/* The first operand ends the options; "--" does and stays. */
	check_outcome("--flag cc -h --name x", PARSE_STOP,
		      "cc -h --name x=> name=- flag=1 n=0 list=0 format=-");
	check_outcome("--name x -- cc --flag", PARSE_STOP,
		      "-- cc --flag=> name=x flag=0 n=0 list=0 format=-");
	check_outcome("--name -- --flag", PARSE_STOP, "=> name=-- flag=1 n=0 list=0 format=-");
	check_outcome("-h cc", PARSE_STOP, "help");
	check_outcome("--nope cc", PARSE_STOP, "unknown option '--nope'");
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_options(), "options");
	TEST(test_errors(), "errors");
	TEST(test_stop(), "stop");
	return check_done();
}

#include "parseopt.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const struct option *find_option(const struct option *opts, const char *word)
{
	for (; opts->type != PARSEOPT_END; opts++)
		if (!strcmp(opts->name, word))
			return opts;
	return NULL;
}

/* Store the value arg of option o; 0, or -1 with *bad set. */
static int take_value(const struct option *o, const char *arg, char **bad)
{
	char *end;
	unsigned long long n;

	switch (o->type) {
	case PARSEOPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case PARSEOPT_LIST:
		strvec_push(o->value, arg);
		return 0;
	case PARSEOPT_U64:
		n = strtoull(arg, &end, 10);
		if (*end || !*arg) {
			*bad = xstrfmt("bad number '%s'", arg);
			return -1;
		}
		*(uint64_t *)o->value = n;
		return 0;
	case PARSEOPT_CALLBACK:
		return o->fn(o, arg, bad);
	default:
		BUG("option '%s' takes no value", o->name);
	}
}

int parse_options(int argc, char **argv, const struct option *opts, unsigned flags,
		  char **bad)
{
	int i, nr = 0;

	*bad = NULL;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		const struct option *o;

		if (a[0] != '-' || !a[1] || ((flags & PARSE_STOP) && !strcmp(a, "--"))) {
			if (flags & PARSE_STOP)
				break;
			argv[nr++] = argv[i];
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return PARSE_HELP;
		o = find_option(opts, a);
		if (!o) {
			*bad = xstrfmt("unknown option '%s'", a);
			return -1;
		}
		if (o->type == PARSEOPT_FLAG) {
			*(int *)o->value = 1;
			continue;
		}
		if (i + 1 >= argc) {
			*bad = xstrfmt("option '%s' needs a value", a);
			return -1;
		}
		if (take_value(o, argv[++i], bad))
			return -1;
	}
	while (i < argc)
		argv[nr++] = argv[i++];
	argv[nr] = NULL;
	return nr;
}

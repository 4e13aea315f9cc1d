/* kwarm explain: why a unit of a generated Makefile would compile. */
#include "commands.h"
#include "key/explain.h"
#include "makefile.h"
#include "parseopt.h"
#include "plan/plan.h"
#include "spec/spec.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char usage_explain[] =
	"usage: kwarm explain [--cache DIR] MAKEFILE UNIT\n"
	"\n"
	"Say why UNIT would compile: the file (path, old and new digest), flag,\n"
	"compiler, environment variable or spec key that changed since the cache\n"
	"last held it, or that it was never built, or that it is cached. UNIT is a\n"
	"label as the progress lines print it (\"incore 'q_proj' (aic)\"), a unit id\n"
	"(\"CLASS/LABEL\") or a prefix of its key (at least 6 hex digits).\n"
	"  --cache DIR     the cache to look in (default: the Makefile's)\n";

static int unit_matches(const struct plan_unit *u, const char *what)
{
	size_t n = strlen(what);

	if (!strcmp(u->label, what) || !strcmp(u->id, what))
		return 1;
	return n >= 6 && n <= 64 && strspn(what, "0123456789abcdef") == n &&
	       !strncmp(u->key, what, n);
}

/* The spec and plan of a Makefile kwarm gen wrote, with the cache cache_dir
 * (NULL: the Makefile's): 0 (caller releases both), or after reporting 2
 * when it is not one or its spec fails, 1 when its plan fails. */
static int load_plan(const char *makefile, const char *cache_dir, struct spec *spec,
		     struct plan *plan)
{
	char *text = NULL, *spec_path = NULL, *its_cache = NULL, *out_dir = NULL;
	size_t len;
	int ret = 2;

	if (read_file_all(makefile, &text, &len)) {
		error_errno("cannot read '%s'", makefile);
		goto out;
	}
	if (makefile_read_header(text, &spec_path, &its_cache, &out_dir)) {
		error("'%s' is not a Makefile kwarm gen wrote", makefile);
		goto out;
	}
	if (spec_load(spec, spec_path))
		goto out;
	ret = plan_build(plan, spec, cache_dir ? cache_dir : its_cache, out_dir, NULL) ? 1 : 0;
	if (ret)
		spec_release(spec);
out:
	free(text);
	free(spec_path);
	free(its_cache);
	free(out_dir);
	return ret;
}

int cmd_explain(int argc, char **argv)
{
	const char *cache_opt = NULL, *makefile, *unit;
	struct closure_cache cc;
	struct cache cache = { NULL };
	struct spec spec;
	struct plan plan;
	struct buf out = BUF_INIT;
	size_t found = 0;
	int ret = 2;
	struct option opts[] = {
		OPT_STRING("--cache", &cache_opt),
		OPT_END(),
	};

	argc = parse_command(argc, argv, opts, 0, usage_explain, &ret);
	if (argc < 0)
		return ret;
	if (argc != 2)
		return usage_error(usage_explain, "%s", argc > 2 ? "too many arguments"
							   : "MAKEFILE and UNIT are needed");
	makefile = argv[0];
	unit = argv[1];
	ret = load_plan(makefile, cache_opt, &spec, &plan);
	if (ret)
		return ret;
	ret = 1;
	if (cache_init(&cache, plan.cache_dir))
		goto out;
	closure_cache_init(&cc);
	ret = 0;
	for (size_t i = 0; i < plan.nr_units; i++) {
		if (!unit_matches(plan.units[i], unit))
			continue;
		found++;
		if (explain_unit(&cc, &cache, plan.units[i], &out))
			ret = 1;
	}
	closure_cache_release(&cc);
	if (!found) {
		error("no unit '%s' in '%s' (a label as progress prints it, CLASS/LABEL, or a "
		      "key prefix)", unit, makefile);
		ret = 2;
	}
	fputs(buf_str(&out), stdout);
out:
	plan_release(&plan);
	spec_release(&spec);
	cache_release(&cache);
	buf_release(&out);
	return ret;
}

#include "unitlist.h"
#include "plan.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void unitlist_format(const struct plan *plan, struct buf *out)
{
	const struct spec *spec = plan->spec;

	buf_adds(out, "kwarm-units 1\n");
	for (size_t i = 0; i < spec->nr_classes; i++)
		buf_addf(out, "class %s\n", spec->classes[i].name);
	for (size_t i = 0; i < plan->nr_callables; i++)
		buf_addf(out, "callable %s %s %s\n", plan->callables[i].ckey,
			 plan->callables[i].cls->name, plan->callables[i].stamp_path);
	for (size_t i = 0; i < plan->nr_units; i++) {
		const struct plan_unit *u = plan->units[i];

		buf_addf(out, "unit %s ", u->key);
		for (size_t j = 0; j < u->owners.nr; j++)
			buf_addf(out, "%s%s", j ? "," : "", u->owners.v[j]);
		buf_addch(out, ' ');
		/* A label is one line: labels come from spec names and paths. */
		for (const char *p = u->label; *p; p++)
			buf_addch(out, *p == '\n' ? '?' : *p);
		buf_addch(out, '\n');
	}
}

void unitlist_init(struct unitlist *ul)
{
	memset(ul, 0, sizeof(*ul));
	strvec_init(&ul->classes);
}

void unitlist_release(struct unitlist *ul)
{
	for (size_t i = 0; i < ul->nr_units; i++) {
		strvec_release(&ul->units[i].owners);
		free(ul->units[i].label);
	}
	for (size_t i = 0; i < ul->nr_callables; i++) {
		free(ul->callables[i].cls);
		free(ul->callables[i].stamp);
	}
	free(ul->units);
	free(ul->callables);
	strvec_release(&ul->classes);
	/* Not unitlist_init: a released list holds nothing, not even an empty vector. */
	memset(ul, 0, sizeof(*ul));
}

/* Copy a 64-hex key followed by a space from p; 0 or -1. */
static int take_key(char *dst, const char *p)
{
	if (strspn(p, "0123456789abcdef") != 64 || p[64] != ' ')
		return -1;
	memcpy(dst, p, 64);
	dst[64] = '\0';
	return 0;
}

static int parse_line(struct unitlist *ul, char *line)
{
	char *sp;

	if (starts_with(line, "class ") && line[6]) {
		strvec_push(&ul->classes, line + 6);
	} else if (starts_with(line, "callable ")) {
		struct unitlist_callable *c;

		ALLOC_GROW(ul->callables, ul->nr_callables + 1, ul->alloc_callables);
		c = &ul->callables[ul->nr_callables];
		if (take_key(c->ckey, line + 9) || !(sp = strchr(line + 74, ' ')))
			return -1;
		c->cls = xstrndup(line + 74, (size_t)(sp - (line + 74)));
		c->stamp = xstrdup(sp + 1);
		ul->nr_callables++;
	} else if (starts_with(line, "unit ")) {
		struct unitlist_unit *u;
		char *owners, *comma;

		ALLOC_GROW(ul->units, ul->nr_units + 1, ul->alloc_units);
		u = &ul->units[ul->nr_units];
		if (take_key(u->key, line + 5) || !(sp = strchr(line + 70, ' ')))
			return -1;
		*sp = '\0';
		strvec_init(&u->owners);
		for (owners = line + 70; (comma = strchr(owners, ',')); owners = comma + 1)
			strvec_push_nodup(&u->owners, xstrndup(owners, (size_t)(comma - owners)));
		strvec_push(&u->owners, owners);
		u->label = xstrdup(sp + 1);
		ul->nr_units++;
	} else {
		return -1;
	}
	return 0;
}

static int load(struct unitlist *ul, const char *path, int gently)
{
	char *text, *line, *nl;
	size_t len, n = 0;
	int ret = 0;

	unitlist_init(ul);
	if (read_file_all(path, &text, &len)) {
		ret = gently ? -1 : error_errno("cannot read '%s'", path);
		unitlist_release(ul);
		return ret;
	}
	for (line = text; !ret; line = nl + 1, n++) {
		nl = strchr(line, '\n');
		/* The header line must be there and whole; a torn last line is not. */
		if (!nl && (n == 0 || *line)) {
			ret = gently ? -1 : error("'%s' line %zu is not a unit list line; run 'kwarm gen' again",
				    path, n + 1);
			break;
		}
		if (!nl)
			break;
		*nl = '\0';
		if (n == 0 ? strcmp(line, "kwarm-units 1") : parse_line(ul, line))
			ret = gently ? -1 : error("'%s' line %zu is not a unit list line; run 'kwarm gen' again",
				    path, n + 1);
	}
	free(text);
	if (ret)
		unitlist_release(ul);
	return ret;
}

int unitlist_load(struct unitlist *ul, const char *path)
{
	return load(ul, path, 0);
}

int unitlist_load_gently(struct unitlist *ul, const char *path)
{
	return load(ul, path, 1);
}

int unitlist_unit_owned_by(const struct unitlist_unit *u, const char *cls)
{
	return strvec_find(&u->owners, cls) >= 0;
}

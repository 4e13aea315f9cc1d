#include "key/explain.h"
#include "cache/cachemaint.h"
#include "key/reads.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The manifest lines of entry key that start with prefix (without it). */
static int manifest_lines(const struct cache *c, const char *key, const char *prefix,
			  struct strvec *out)
{
	struct buf text = BUF_INIT;
	size_t n = strlen(prefix);
	int got = cache_unit_manifest(c->dir, key, &text);

	for (const char *p = got == 1 ? text.s : ""; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len > n && !strncmp(p, prefix, n))
			strvec_push_nodup(out, xstrndup(p + n, len - n));
		p += len + (nl != NULL);
	}
	buf_release(&text);
	return got;
}

/* The newest entry whose manifest names unit id; 0 with its key, or -1. */
static int newest_of_unit(const struct cache *c, const char *id, char key[DIGEST_HEX_SIZE])
{
	struct cache_scan s;
	double best = -1;

	cache_scan_init(&s);
	if (!cache_scan_run(&s, c))
		for (size_t i = 0; i < s.nr_units; i++) {
			struct strvec ids;

			strvec_init(&ids);
			manifest_lines(c, s.units[i].key, "id ", &ids);
			if (ids.nr && !strcmp(ids.v[0], id) && s.units[i].last_use > best) {
				best = s.units[i].last_use;
				memcpy(key, s.units[i].key, DIGEST_HEX_SIZE);
			}
			strvec_release(&ids);
		}
	cache_scan_release(&s);
	return best < 0 ? -1 : 0;
}

/* The rest of line after "KIND ", or NULL. */
static const char *after(const char *line, const char *kind)
{
	size_t n = strlen(kind);

	return !strncmp(line, kind, n) && line[n] == ' ' ? line + n + 1 : NULL;
}

/* The "HEX PATH" of the line "KIND HEX PATH" of path, or NULL. */
static const char *hex_of(const struct strvec *lines, const char *kind, const char *path)
{
	for (size_t i = 0; i < lines->nr; i++) {
		const char *v = after(lines->v[i], kind);

		if (v && strlen(v) > 65 && !strcmp(v + 65, path))
			return v;
	}
	return NULL;
}

/* Words of the lines of kind ("arg", "linkarg"), joined by blanks. */
static char *words_of(const struct strvec *lines, const char *kind)
{
	struct buf b = BUF_INIT;
	const char *v;

	for (size_t i = 0; i < lines->nr; i++)
		if ((v = after(lines->v[i], kind)))
			buf_addf(&b, "%s%s", b.len ? " " : "", v);
	return b.s ? buf_detach(&b) : xstrdup("");
}

static void compare_files(const struct strvec *was, const struct strvec *now, const char *kind,
			  struct buf *out, int *said)
{
	for (size_t i = 0; i < now->nr; i++) {
		const char *v = after(now->v[i], kind), *old;

		if (!v || strlen(v) <= 65)
			continue;
		old = hex_of(was, kind, v + 65);
		if (!old)
			buf_addf(out, "  file '%s' is new to it (%.12s)\n", v + 65, v);
		else if (strncmp(old, v, 64))
			buf_addf(out, "  file '%s' changed: %.12s -> %.12s\n", v + 65, old, v);
		else
			continue;
		(*said)++;
	}
	for (size_t i = 0; i < was->nr; i++) {
		const char *v = after(was->v[i], kind);

		if (!v || strlen(v) <= 65 || hex_of(now, kind, v + 65))
			continue;
		buf_addf(out, "  file '%s' is no longer read\n", v + 65);
		(*said)++;
	}
}

/* One-valued lines ("compiler HEX", "env NAME=..."): say each that differs. */
static void compare_values(const struct strvec *was, const struct strvec *now, const char *kind,
			   const char *what, struct buf *out, int *said)
{
	size_t n = strlen(kind);

	for (size_t i = 0; i < now->nr; i++) {
		const char *l = now->v[i], *name_end;
		int found = 0;

		if (strncmp(l, kind, n) || l[n] != ' ')
			continue;
		/* env lines are matched by the variable's name; others by kind. */
		name_end = !strcmp(kind, "env") ? l + n + 1 + strcspn(l + n + 1, "= ") : l + n;
		for (size_t j = 0; j < was->nr; j++) {
			const char *o = was->v[j];

			if (strncmp(o, l, (size_t)(name_end - l)) ||
			    (o[name_end - l] != '=' && o[name_end - l] != ' '))
				continue;
			found = 1;
			if (strcmp(o, l)) {
				buf_addf(out, "  %s changed: '%s' -> '%s'\n", what, o + n + 1, l + n + 1);
				(*said)++;
			}
			break;
		}
		if (!found && was->nr) {
			buf_addf(out, "  %s is new: '%s'\n", what, l + n + 1);
			(*said)++;
		}
	}
}

static void compare(const struct strvec *was, const struct strvec *now, struct buf *out,
		    int *said)
{
	static const char *const lists[] = { "arg", "linkarg" };

	compare_values(was, now, "platform", "the platform", out, said);
	compare_values(was, now, "compiler", "the compiler's identity", out, said);
	compare_values(was, now, "linker", "the linker's identity", out, said);
	compare_values(was, now, "extract", "the extract step", out, said);
	compare_values(was, now, "folder", "the folder (debug information names it)", out, said);
	compare_values(was, now, "env", "the environment", out, said);
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
		char *a = words_of(was, lists[i]), *b = words_of(now, lists[i]);

		if (strcmp(a, b)) {
			buf_addf(out, "  the %s command changed:\n    was: %s\n    now: %s\n",
				 i ? "link" : "compile", a, b);
			(*said)++;
		}
		free(a);
		free(b);
	}
	compare_files(was, now, "file", out, said);
	compare_files(was, now, "named", out, said);
}

int explain_unit(struct closure_cache *cc, const struct cache *cache,
		 const struct plan_unit *u, struct buf *out)
{
	char key[DIGEST_HEX_SIZE], base[DIGEST_HEX_SIZE], last[DIGEST_HEX_SIZE];
	struct strvec now, was, reads;
	struct unitkey_out kout = { .base = base, .why = &now };
	int state, said = 0, ret = 0;

	strvec_init(&now);
	strvec_init(&was);
	strvec_init(&reads);
	if (unitkey_compute(cc, &u->cmd, key, &kout)) {
		ret = -1;
		goto out;
	}
	buf_addf(out, "%s (classes:", u->label);
	for (size_t i = 0; i < u->owners.nr; i++)
		buf_addf(out, " %s", u->owners.v[i]);
	state = cache_unit_check(cache, key, 0);
	if (state == 1) {
		buf_addf(out, "): cached, nothing to compile (key %.16s)\n", key);
		goto out;
	}
	buf_addf(out, "): would compile (key %.16s)\n", key);
	if (state < 0) {
		buf_adds(out, "  its cache entry is corrupt: a miss, compiled again\n");
		goto out;
	}
	/* The entry the cache last held for this unit. */
	if (manifest_lines(cache, base, "read ", &reads) == 1)
		memcpy(last, base, DIGEST_HEX_SIZE);
	else if (newest_of_unit(cache, u->id, last)) {
		buf_adds(out, "  never built: the cache holds no entry of this unit\n");
		goto out;
	}
	strvec_clear(&reads);
	if (manifest_lines(cache, last, "covers ", &was) != 1 || !was.nr) {
		buf_addf(out, "  the cache's last entry of it (%.16s) is unreadable or does not "
			 "say what it covered\n", last);
		goto out;
	}
	manifest_lines(cache, last, "read ", &reads);
	compare(&was, &now, out, &said);
	if (!said) {
		struct buf why = BUF_INIT;

		/* Same base: one of the files the compiler read beyond the scanner's
		 * closure changed (a system header, a macro-named include, ...). */
		if (!reads_match(cc, u->cmd.root, &reads, &why)) {
			buf_addf(out, "  %s (the compiler read it; the scanner does not see it)\n",
				 why.s);
			said++;
		}
		buf_release(&why);
	}
	if (!said)
		buf_adds(out, "  how an include resolves changed (a header appeared, moved or "
			 "was removed in a searched folder)\n");
out:
	strvec_release(&now);
	strvec_release(&was);
	strvec_release(&reads);
	return ret;
}

#include "plan/packdesc.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PACK_MAGIC "kwarm-pack 1"
#define PACK_LAYOUT "layout 1"

static void add_sig(struct buf *b, const int *sig, int n)
{
	if (!n)
		buf_addch(b, '-');
	for (int i = 0; i < n; i++)
		buf_addf(b, "%s%d", i ? "," : "", sig[i]);
}

void packdesc_add_head(struct buf *b, const char *what, const char *runtime,
		       const char *func_name, const char *config_name, const int *sig, int n)
{
	buf_addf(b, "%s\n%s\nwhat %s\nruntime %s\nfunc_name %s\nconfig_name %s\nsig ",
		 PACK_MAGIC, PACK_LAYOUT, what, runtime, func_name, config_name);
	add_sig(b, sig, n);
	buf_addch(b, '\n');
}

void packdesc_add_orch(struct buf *b, const char *key, const char *label)
{
	buf_addf(b, "orch %s %s\n", key, label);
}

void packdesc_add_child(struct buf *b, int func_id, const char *key, const int *sig, int n,
			const char *label)
{
	/* Formatting only the number: a callable has up to 1024 children. */
	buf_addf(b, "child %d ", func_id);
	buf_adds(b, key);
	buf_addch(b, ' ');
	add_sig(b, sig, n);
	buf_addch(b, ' ');
	buf_adds(b, label);
	buf_addch(b, '\n');
}

void packdesc_release(struct packdesc *d)
{
	free(d->what);
	free(d->func_name);
	free(d->config_name);
	free(d->orch.label);
	for (size_t i = 0; i < d->nr_children; i++)
		free(d->children[i].label);
	free(d->children);
	memset(d, 0, sizeof(*d));
}

/* "1,2,3" or "-" into sig; 0 or -1. */
static int parse_sig(const char *s, size_t len, int *sig, int *count, int max)
{
	*count = 0;
	if (len == 1 && s[0] == '-')
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == ',')
			continue;
		if (s[i] < '0' || s[i] > '3' || *count >= max)
			return -1;
		sig[(*count)++] = s[i] - '0';
	}
	return 0;
}

/* "<key> [<sig> ]<label>" into item (with_sig: the sig is there; the label
 * is the rest of the line). */
static int parse_item(const char *s, struct packdesc_item *it, int with_sig)
{
	const char *sp;

	if (strlen(s) < 66 || s[64] != ' ')
		return -1;
	memcpy(it->key, s, 64);
	it->key[64] = '\0';
	s += 65;
	if (with_sig) {
		sp = strchr(s, ' ');
		if (!sp || parse_sig(s, (size_t)(sp - s), it->sig, &it->sig_count, SPEC_CORE_SIG_MAX))
			return -1;
		s = sp + 1;
	}
	it->label = xstrdup(s);
	return 0;
}

/* "<func_id> <key> <sig> <label>" into a new child of d. */
static int parse_child(const char *s, struct packdesc *d)
{
	struct packdesc_item *it;
	char *end;
	long id;

	ALLOC_GROW(d->children, d->nr_children + 1, d->alloc_children);
	it = &d->children[d->nr_children++];
	memset(it, 0, sizeof(*it));
	errno = 0;
	id = strtol(s, &end, 10);
	if (errno || *end != ' ' || id < INT32_MIN || id > INT32_MAX)
		return -1;
	it->func_id = (int32_t)id;
	return parse_item(end + 1, it, 1);
}

static int parse_line(char *line, struct packdesc *d)
{
	if (starts_with(line, "what "))
		d->what = xstrdup(line + 5);
	else if (starts_with(line, "runtime "))
		;	/* part of the key only */
	else if (starts_with(line, "func_name "))
		d->func_name = xstrdup(line + 10);
	else if (starts_with(line, "config_name "))
		d->config_name = xstrdup(line + 12);
	else if (starts_with(line, "sig "))
		return parse_sig(line + 4, strlen(line + 4), d->sig, &d->sig_count,
				 SPEC_CHIP_SIG_MAX);
	else if (starts_with(line, "orch "))
		return parse_item(line + 5, &d->orch, 0);
	else if (starts_with(line, "child "))
		return parse_child(line + 6, d);
	else
		return -1;
	return 0;
}

const char *packdesc_line_key(const char *line)
{
	if (starts_with(line, "orch "))
		line += 5;
	else if (starts_with(line, "child ") && (line = strchr(line + 6, ' ')))
		line++;
	else
		return NULL;
	return strspn(line, "0123456789abcdef") == 64 && line[64] == ' ' ? line : NULL;
}

int packdesc_parse(char *text, struct packdesc *d)
{
	char *line = text, *next;
	int lineno = 0;

	memset(d, 0, sizeof(*d));
	for (; *line; line = next) {
		next = strchr(line, '\n');
		if (!next)
			return -1;
		*next++ = '\0';
		lineno++;
		if (lineno == 1 && strcmp(line, PACK_MAGIC))
			return -1;
		if (lineno == 2 && strcmp(line, PACK_LAYOUT))
			return -1;
		if (lineno > 2 && parse_line(line, d))
			return -1;
	}
	return d->what && d->func_name && d->config_name && d->orch.label ? 0 : -1;
}

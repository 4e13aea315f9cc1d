#include "report/annotate.h"
#include "path.h"
#include "util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int annotate_pick_format(const char *opt)
{
	const char *gha = getenv("GITHUB_ACTIONS");

	if (!opt || !*opt)
		return gha && !strcmp(gha, "true");
	return !strcmp(opt, "github");
}

int annotate_format_option(const struct option *opt, const char *arg, char **bad)
{
	if (strcmp(arg, "text") && strcmp(arg, "github")) {
		*bad = xstrfmt("unknown format '%s' (text or github)", arg);
		return -1;
	}
	*(const char **)opt->value = arg;
	return 0;
}

/* The workflow command escapes: data escapes %, CR, LF; properties also : and ,. */
static void add_escaped(struct buf *b, const char *s, size_t len, int property)
{
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '%' || c == '\r' || c == '\n' || (property && (c == ':' || c == ',')))
			buf_addf(b, "%%%02X", (unsigned char)c);
		else
			buf_addch(b, c);
	}
}

/* file as the workflow wants it: relative to the workspace when inside it. */
static void add_file(struct buf *b, const char *file, size_t len, const char *root)
{
	const char *ws = getenv("GITHUB_WORKSPACE");
	char *f = xstrndup(file, len), *abs = f[0] == '/' ? xstrdup(f) : path_join(root, f);
	char *norm = path_normalize(abs);
	size_t wl = ws ? strlen(ws) : 0;

	const char *rel = norm;

	while (wl > 1 && ws[wl - 1] == '/')
		wl--;
	if (wl && !strncmp(norm, ws, wl) && norm[wl] == '/')
		rel = norm + wl + 1;
	add_escaped(b, rel, strlen(rel), 1);
	free(norm);
	free(abs);
	free(f);
}

/* The start of the ":DIGITS" ending just before end, or NULL. */
static const char *colon_number(const char *line, const char *end)
{
	const char *d = end;

	while (d > line && isdigit((unsigned char)d[-1]))
		d--;
	return d < end && d > line && d[-1] == ':' ? d - 1 : NULL;
}

/* Parse "FILE:LINE[:COL]: [fatal ]error: MSG"; 0 with the parts, or -1. */
static int parse_error_line(const char *line, size_t len, size_t *file_len, long *lineno,
			    long *col, const char **msg)
{
	static const char *const marks[] = { ": error: ", ": fatal error: " };

	for (size_t m = 0; m < ARRAY_SIZE(marks); m++) {
		const char *mark = memmem(line, len, marks[m], strlen(marks[m]));
		const char *n1, *n2;

		if (!mark || !(n1 = colon_number(line, mark)))
			continue;
		n2 = colon_number(line, n1);
		*msg = mark + strlen(marks[m]);
		if (n2 && n2 > line) {
			*lineno = strtol(n2 + 1, NULL, 10);
			*col = strtol(n1 + 1, NULL, 10);
			*file_len = (size_t)(n2 - line);
		} else {
			*lineno = strtol(n1 + 1, NULL, 10);
			*col = 0;
			*file_len = (size_t)(n1 - line);
		}
		return *file_len ? 0 : -1;
	}
	return -1;
}

/* "::error file=FILE[,line=L[,col=C]]::MSG" (line -1: none; col 0: none). */
static void add_error(struct buf *out, const char *file, size_t flen, const char *root,
		      long lineno, long col, const char *msg, size_t len)
{
	buf_adds(out, "::error file=");
	add_file(out, file, flen, root);
	if (lineno >= 0)
		buf_addf(out, ",line=%ld", lineno);
	if (col)
		buf_addf(out, ",col=%ld", col);
	buf_adds(out, "::");
	add_escaped(out, msg, len, 0);
	buf_addch(out, '\n');
}

int annotate_compiler_output(struct buf *out, const char *output, const char *root,
			     const char *source, const char *fallback)
{
	int n = 0;

	for (const char *line = output; line && *line && n < ANNOTATE_MAX;) {
		const char *nl = strchr(line, '\n'), *msg;
		size_t len = nl ? (size_t)(nl - line) : strlen(line), flen;
		long lineno = 0, col = 0;

		if (!parse_error_line(line, len, &flen, &lineno, &col, &msg)) {
			add_error(out, line, flen, root, lineno, col, msg, len - (size_t)(msg - line));
			n++;
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!n)
		add_error(out, source, strlen(source), root, -1, 0, fallback, strlen(fallback));
	return n ? n : 1;
}

void annotate_error(struct buf *out, const char *title, const char *msg)
{
	buf_adds(out, "::error");
	if (title) {
		buf_adds(out, " title=");
		add_escaped(out, title, strlen(title), 1);
	}
	buf_adds(out, "::");
	add_escaped(out, msg, strlen(msg), 0);
	buf_addch(out, '\n');
}

#include "key/deps.h"
#include "buf.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *const family_names[] = { "none", "gcc", "clang" };

int deps_family_parse(const char *word)
{
	for (size_t i = 0; i < ARRAY_SIZE(family_names); i++)
		if (!strcmp(word, family_names[i]))
			return (int)i;
	return -1;
}

const char *deps_family_name(enum deps_family f)
{
	return family_names[f];
}

/* "g++-12" -> "g++", "x86_64-linux-gnu-gcc-12" -> "gcc": the driver's name
 * without a version suffix or a target prefix. */
static int name_is(const char *base, const char *name)
{
	size_t n = strlen(name), len = strlen(base);
	const char *end = base + len;

	/* Drop "-12" or "-14.0" at the end. */
	while (end > base && ((end[-1] >= '0' && end[-1] <= '9') || end[-1] == '.'))
		end--;
	if (end > base && end[-1] == '-' && end < base + len)
		end--;
	else
		end = base + len;
	len = (size_t)(end - base);
	if (len < n || memcmp(end - n, name, n))
		return 0;
	return len == n || end[-(long)n - 1] == '-';
}

enum deps_family deps_family_named(const char *real)
{
	const char *slash = strrchr(real, '/'), *base = slash ? slash + 1 : real;

	if (name_is(base, "clang") || name_is(base, "clang++"))
		return DEPS_CLANG;
	if (name_is(base, "gcc") || name_is(base, "g++") || name_is(base, "cc") ||
	    name_is(base, "c++") || name_is(base, "cpp"))
		return DEPS_GCC;
	return DEPS_NONE;
}

enum deps_family deps_family_detect(const char *path)
{
	char *real = realpath(path, NULL);
	enum deps_family f = deps_family_named(real ? real : path);

	free(real);
	return f;
}

int deps_request(enum deps_family f, size_t nsources, const char *dfile,
		 struct strvec *argv_extra, struct strvec *env_extra)
{
	if (f == DEPS_NONE || !nsources)
		return -1;
	if (nsources == 1) {
		strvec_push(argv_extra, "-MD");
		strvec_push(argv_extra, "-MF");
		strvec_push(argv_extra, dfile);
		return 0;
	}
	if (f != DEPS_GCC)
		return -1;
	/* "FILE TARGET": gcc appends one rule per source, system headers included. */
	strvec_pushf(env_extra, "SUNPRO_DEPENDENCIES=%s kwarm-deps", dfile);
	return 0;
}

size_t deps_user_option(const struct strvec *argv, size_t i)
{
	const char *w = argv->v[i], *file;

	if (!strcmp(w, "-MD") || !strcmp(w, "-MMD"))
		return 1;
	/* Not the "-o {out}" after it: that compile fails as the words say. */
	if (!strcmp(w, "-MF"))
		return i + 1 < argv->nr && strcmp(argv->v[i + 1], "-o") ? 2 : 1;
	if (starts_with(w, "-MF"))
		return 1;
	/* -Wp,-MD,FILE and -Wp,-MMD,FILE alone: other words in the list stay. */
	if (starts_with(w, "-Wp,-MD,") || starts_with(w, "-Wp,-MMD,")) {
		file = strchr(w + 4, ',') + 1;
		return *file && !strchr(file, ',');
	}
	return 0;
}

/* End the word in w: a prerequisite once the rule's ':' was seen. */
static void end_word(struct buf *w, int in_prereqs, struct strvec *out)
{
	if (w->len && in_prereqs && strvec_find(out, w->s) < 0)
		strvec_push(out, w->s);
	buf_reset(w);
}

void deps_parse(const char *text, size_t len, struct strvec *out)
{
	const char *p = text, *end = text + len;
	struct buf w = BUF_INIT;
	int in_prereqs = 0;

	while (p < end) {
		char c = *p;

		if (c == '\\' && p + 1 < end && p[1] == '\n') {
			end_word(&w, in_prereqs, out);	/* a continued line */
			p += 2;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			end_word(&w, in_prereqs, out);
			if (c == '\n')
				in_prereqs = 0;
			p++;
		} else if (!in_prereqs && c == ':' &&
			   (p + 1 == end || strchr(" \t\r\n", p[1]))) {
			buf_reset(&w);	/* the target itself is no input */
			in_prereqs = 1;
			p++;
		} else {
			if (c == '\\' && p + 1 < end && (p[1] == ' ' || p[1] == '#'))
				c = *++p;
			else if (c == '$' && p + 1 < end && p[1] == '$')
				p++;
			buf_addch(&w, c);
			p++;
		}
	}
	end_word(&w, in_prereqs, out);
	buf_release(&w);
}

int deps_parse_file(const char *path, struct strvec *out)
{
	char *text;
	size_t len;

	if (read_file_all(path, &text, &len))
		return -1;
	deps_parse(text, len, out);
	free(text);
	return 0;
}

/* yamltree: see yamltree.h.
 *
 * measure() computes the size of every node with its aliases expanded, memoized
 * so that it runs in time linear in the document, and stops at the first node
 * whose expanded size passes the bound: a billion-laughs file is rejected after
 * a few hundred steps, and every later walk of the tree is bounded too. */
#include "spec/yamltree.h"
#include "buf.h"
#include "hashmap.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void report(struct yamltree *t, size_t line, size_t col, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s:%zu:%zu: ", t->file, line, col);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int yamltree_error(struct yamltree *t, const yaml_node_t *node, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(t, node->start_mark.line + 1, node->start_mark.column + 1, fmt, ap);
	va_end(ap);
	return -1;
}

__attribute__((format(printf, 4, 5)))
static int fail_at(struct yamltree *t, size_t line, size_t col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(t, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

/* Where byte offset off of the text is, counting columns in characters. */
static void offset_position(struct yamltree *t, size_t off, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < t->len; i++) {
		unsigned char c = (unsigned char)t->text[i];

		if (c == '\n') {
			(*line)++;
			*col = 1;
		} else if ((c & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

/* True when the character at 0-based (line, col) is a tab inside the line's
 * leading blanks, the usual cause of "cannot start any token". */
static int tab_indent_at(struct yamltree *t, size_t line, size_t col)
{
	size_t i = 0;

	while (line && i < t->len)
		if (t->text[i++] == '\n')
			line--;
	for (size_t c = 0; c < col; c++, i++)
		if (i >= t->len || (t->text[i] != ' ' && t->text[i] != '\t'))
			return 0;
	return i < t->len && t->text[i] == '\t';
}

static int fail_parser(struct yamltree *t, yaml_parser_t *parser)
{
	size_t line, col;
	const char *problem = parser->problem ? parser->problem : "cannot parse";

	switch (parser->error) {
	case YAML_MEMORY_ERROR:
		return fail_at(t, 1, 1, "yaml: out of memory");
	case YAML_READER_ERROR:
		/* Reader errors carry a byte offset, not a mark. */
		offset_position(t, parser->problem_offset, &line, &col);
		return fail_at(t, line, col, "yaml: %s", problem);
	default:
		line = parser->problem_mark.line;
		col = parser->problem_mark.column;
		if (tab_indent_at(t, line, col))
			problem = "found a tab character used as indentation";
		return fail_at(t, line + 1, col + 1, "yaml: %s", problem);
	}
}

yaml_node_t *yamltree_node(struct yamltree *t, int id)
{
	yaml_node_t *node = yaml_document_get_node(&t->doc, id);

	if (!node)
		BUG("yaml node %d missing", id);
	return node;
}

struct measure {
	uint64_t *size;
	unsigned char *state;	/* 0 unseen, 1 on the walk's path, 2 measured */
};

/* Size of node id with aliases expanded, into m->size[id]. */
static int measure(struct yamltree *t, struct measure *m, int id, int depth)
{
	yaml_node_t *node = yamltree_node(t, id);
	uint64_t total = 1;

	if (m->state[id] == 2)
		return 0;
	if (m->state[id] == 1)
		return yamltree_error(t, node, "alias refers to a node that contains it");
	if (depth > YAMLTREE_DEPTH_MAX)
		return yamltree_error(t, node, "spec nests deeper than %d levels", YAMLTREE_DEPTH_MAX);
	m->state[id] = 1;
	if (node->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = node->data.sequence.items.start;
		     it < node->data.sequence.items.top; it++) {
			if (measure(t, m, *it, depth + 1))
				return -1;
			total += m->size[*it];
			if (total > YAMLTREE_EXPANDED_MAX)
				goto bomb;
		}
	} else if (node->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
		     p < node->data.mapping.pairs.top; p++) {
			if (measure(t, m, p->key, depth + 1) ||
			    measure(t, m, p->value, depth + 1))
				return -1;
			total += m->size[p->key] + m->size[p->value];
			if (total > YAMLTREE_EXPANDED_MAX)
				goto bomb;
		}
	}
	m->size[id] = total;
	m->state[id] = 2;
	return 0;
bomb:
	return yamltree_error(t, node, "spec expands to too many nodes (alias bomb?)");
}

int yamltree_load(struct yamltree *t, const char *file, yaml_node_t **root)
{
	yaml_parser_t parser;
	yaml_document_t extra;
	struct measure m;
	size_t nr;
	int ret;

	memset(t, 0, sizeof(*t));
	t->file = file;
	if (read_file_all(t->file, &t->text, &t->len))
		return error_errno("cannot read '%s'", t->file);
	if (!yaml_parser_initialize(&parser))
		return fail_at(t, 1, 1, "yaml: out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)t->text, t->len);
	if (!yaml_parser_load(&parser, &t->doc)) {
		ret = fail_parser(t, &parser);
		yaml_parser_delete(&parser);
		return ret;
	}
	t->have_doc = 1;
	*root = yaml_document_get_root_node(&t->doc);
	if (!*root) {
		yaml_parser_delete(&parser);
		return fail_at(t, 1, 1, "spec is empty");
	}
	/* A second document would be silently ignored otherwise. */
	if (!yaml_parser_load(&parser, &extra)) {
		ret = fail_parser(t, &parser);
		yaml_parser_delete(&parser);
		return ret;
	}
	ret = 0;
	if (yaml_document_get_root_node(&extra))
		ret = yamltree_error(t, yaml_document_get_root_node(&extra),
			   "spec holds more than one document");
	yaml_document_delete(&extra);
	yaml_parser_delete(&parser);
	if (ret)
		return ret;

	nr = (size_t)(t->doc.nodes.top - t->doc.nodes.start);
	m.size = xcalloc(nr + 1, sizeof(*m.size));
	m.state = xcalloc(nr + 1, 1);
	ret = measure(t, &m, 1, 0);
	free(m.size);
	free(m.state);
	return ret;
}

void yamltree_release(struct yamltree *t)
{
	if (t->have_doc)
		yaml_document_delete(&t->doc);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

size_t yamltree_len(const yaml_node_t *node)
{
	if (node->type != YAML_SEQUENCE_NODE)
		return 0;
	return (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
}

int yamltree_item(const yaml_node_t *node, size_t i)
{
	if (node->type != YAML_SEQUENCE_NODE || i >= yamltree_len(node))
		BUG("no item %zu", i);
	return node->data.sequence.items.start[i];
}

/* Scalars */

const char *yamltree_text(const yaml_node_t *node)
{
	return (const char *)node->data.scalar.value;
}

static int is_null(const yaml_node_t *node)
{
	const char *s = yamltree_text(node);

	if (node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") ||
	       !strcmp(s, "Null") || !strcmp(s, "NULL");
}

int yamltree_is_string(const yaml_node_t *node)
{
	return node->type == YAML_SCALAR_NODE && !is_null(node) &&
	       strlen(yamltree_text(node)) == node->data.scalar.length;
}

/* The text of a string node (not copied), or an error naming key. */
/* The first control character of s (newline, tab, ...), or 0. Strings reach
 * Makefiles, shell commands and line-based files: none may hold one. */
static int control_char(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return *p;
	return 0;
}

/* s with control characters shown as \n, \t, \r or \xNN; caller frees. */
static char *escaped(const char *s)
{
	struct buf shown = BUF_INIT;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\n')
			buf_adds(&shown, "\\n");
		else if (*p == '\t')
			buf_adds(&shown, "\\t");
		else if (*p == '\r')
			buf_adds(&shown, "\\r");
		else if (*p < 0x20 || *p == 0x7f)
			buf_addf(&shown, "\\x%02x", *p);
		else
			buf_addch(&shown, (char)*p);
	}
	return buf_detach(&shown);
}

/* Report the control character in the string node, showing the value escaped. */
static int control_error(struct yamltree *t, yaml_node_t *node, const char *what)
{
	char *shown = escaped(yamltree_text(node));
	int ret = yamltree_error(t, node, "%s must not contain control characters: \"%s\"",
				 what, shown);

	free(shown);
	return ret;
}

/* A key error, the key shown escaped (it may hold a newline). */
static int key_error(struct yamltree *t, yaml_node_t *key, const char *what, const char *where)
{
	char *shown = escaped(yamltree_text(key));
	int ret = yamltree_error(t, key, "%s '%s'%s%s", what, shown, where ? " " : "",
				 where ? where : "");

	free(shown);
	return ret;
}

int yamltree_string(struct yamltree *t, yaml_node_t *node, const char *key,
		      int nonempty, const char **out)
{
	int c;

	if (!yamltree_is_string(node) || (nonempty && !*yamltree_text(node)))
		return yamltree_error(t, node, "'%s' must be a %sstring", key, nonempty ? "non-empty " : "");
	c = control_char(yamltree_text(node));
	if (c) {
		char *what = xstrfmt("'%s'", key);

		c = control_error(t, node, what);
		free(what);
		return c;
	}
	*out = yamltree_text(node);
	return 0;
}

int yamltree_key_text(struct yamltree *t, yaml_node_t *key, const char **out)
{
	if (control_char(yamltree_text(key)))
		return control_error(t, key, "keys");
	*out = yamltree_text(key);
	return 0;
}

int yamltree_strdup(struct yamltree *t, yaml_node_t *node, const char *key,
		      int nonempty, char **out)
{
	const char *s = NULL;

	if (yamltree_string(t, node, key, nonempty, &s))
		return -1;
	*out = xstrdup(s);
	return 0;
}

/* A plain decimal integer (or one tagged !!int). */
int yamltree_integer(struct yamltree *t, yaml_node_t *node, const char *key, long long *out)
{
	const char *s, *p;

	if (node->type != YAML_SCALAR_NODE)
		goto bad;
	s = yamltree_text(node);
	if (node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE &&
	    strcmp((const char *)node->tag, YAML_INT_TAG))
		goto bad;
	p = s + (*s == '-' || *s == '+');
	if (!*p || strspn(p, "0123456789") != strlen(p))
		goto bad;
	errno = 0;
	*out = strtoll(s, NULL, 10);
	if (errno == ERANGE)
		*out = *s == '-' ? LLONG_MIN : LLONG_MAX;
	return 0;
bad:
	return yamltree_error(t, node, "'%s' must be an integer", key);
}

/* Each item of a list of strings, into out (items may be empty unless nonempty). */
int yamltree_strings(struct yamltree *t, yaml_node_t *node, const char *key,
		       int nonempty_list, struct strvec *out)
{
	const char *what = nonempty_list ? "a non-empty list" : "a list";

	if (node->type != YAML_SEQUENCE_NODE ||
	    (nonempty_list && node->data.sequence.items.start == node->data.sequence.items.top))
		return yamltree_error(t, node, "'%s' must be %s of strings", key, what);
	for (yaml_node_item_t *it = node->data.sequence.items.start;
	     it < node->data.sequence.items.top; it++) {
		yaml_node_t *item = yamltree_node(t, *it);

		if (!yamltree_is_string(item))
			return yamltree_error(t, item, "'%s' must be %s of strings", key, what);
		if (control_char(yamltree_text(item))) {
			char *name = xstrfmt("'%s'", key);
			int ret = control_error(t, item, name);

			free(name);
			return ret;
		}
		strvec_push(out, yamltree_text(item));
	}
	return 0;
}

/* Mappings */

/* Every key of map is a string and appears once. */
int yamltree_unique_keys(struct yamltree *t, yaml_node_t *map)
{
	struct hashmap seen;
	int ret = 0;

	hashmap_init(&seen);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *key = yamltree_node(t, p->key);

		if (!yamltree_is_string(key)) {
			ret = yamltree_error(t, key, "mapping keys must be strings");
			break;
		}
		if (hashmap_put(&seen, yamltree_text(key), key)) {
			ret = key_error(t, key, "duplicate key", NULL);
			break;
		}
	}
	hashmap_release(&seen);
	return ret;
}

/* Fill fields from map, which is described by where ("in class"...). */
int yamltree_fields(struct yamltree *t, yaml_node_t *map, const char *where,
		       struct yamltree_field *fields, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		fields[i].key_node = fields[i].value = NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *key = yamltree_node(t, p->key);
		size_t i;

		if (!yamltree_is_string(key))
			return yamltree_error(t, key, "mapping keys must be strings");
		for (i = 0; i < nr; i++)
			if (!strcmp(fields[i].key, yamltree_text(key)))
				break;
		if (i == nr)
			return key_error(t, key, "unknown key", where);
		if (fields[i].value)
			return key_error(t, key, "duplicate key", NULL);
		fields[i].key_node = key;
		fields[i].value = yamltree_node(t, p->value);
	}
	for (size_t i = 0; i < nr; i++)
		if (fields[i].required && !fields[i].value)
			return yamltree_error(t, map, "missing required key '%s' %s", fields[i].key, where);
	return 0;
}


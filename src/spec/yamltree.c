/* yamltree: see yamltree.h.
 *
 * measure() computes the size of every node with its aliases expanded, memoized
 * so that it runs in time linear in the document, and stops at the first node
 * whose expanded size passes the bound: a billion-laughs file is rejected after
 * a few hundred steps, and every later walk of the tree is bounded too. A
 * document without aliases is its own expansion: its node count and depth,
 * known as it is built, are checked instead. */
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

int yamltree_error(struct yamltree *t, const struct yamlnode *node, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(t, (size_t)node->line + 1, (size_t)node->col + 1, fmt, ap);
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

struct yamlnode *yamltree_node(struct yamltree *t, int id)
{
	if (id < 1 || (size_t)id > t->nr_nodes)
		BUG("yaml node %d missing", id);
	return &t->nodes[id - 1];
}

_Static_assert(sizeof(struct yamlnode) <= 32, "a node grew past the 32 bytes yamltree.h says");

/* Size of node id with aliases expanded, into size[id]: 0 while unseen,
 * MEASURING while on the walk's path. */
#define MEASURING UINT64_MAX
static int measure(struct yamltree *t, uint64_t *size, int id, int depth)
{
	struct yamlnode *node = yamltree_node(t, id);
	uint64_t total = 1;

	if (size[id] == MEASURING)
		return yamltree_error(t, node, "alias refers to a node that contains it");
	if (size[id])
		return 0;
	if (depth > YAMLTREE_DEPTH_MAX)
		return yamltree_error(t, node, "spec nests deeper than %d levels", YAMLTREE_DEPTH_MAX);
	size[id] = MEASURING;
	if (node->type == YAML_SEQUENCE_NODE) {
		for (const yaml_node_item_t *it = node->u.items; it < node->u.items + node->len; it++) {
			if (measure(t, size, *it, depth + 1))
				return -1;
			total += size[*it];
			if (total > YAMLTREE_EXPANDED_MAX)
				goto bomb;
		}
	} else if (node->type == YAML_MAPPING_NODE) {
		for (const yaml_node_pair_t *p = node->u.pairs; p < node->u.pairs + node->len; p++) {
			if (measure(t, size, p->key, depth + 1) ||
			    measure(t, size, p->value, depth + 1))
				return -1;
			total += size[p->key] + size[p->value];
			if (total > YAMLTREE_EXPANDED_MAX)
				goto bomb;
		}
	}
	size[id] = total;
	return 0;
bomb:
	return yamltree_error(t, node, "spec expands to too many nodes (alias bomb?)");
}

/* The tree's strings and lists, cut from chunks freed together: a large
 * spec has millions of scalars, and libyaml's loader allocates each, its
 * tag and every list on its own. */
struct yamltree_mem {
	struct yamltree_mem *next;
	size_t used, size;
	char data[];
};

#define MEM_CHUNK 65536

static void *mem_alloc(struct yamltree *t, size_t n)
{
	struct yamltree_mem *m = t->mem;

	n = (n + 7) & ~(size_t)7;
	if (!m || m->size - m->used < n) {
		/* Each chunk twice the last: a large spec makes few of them (each
		 * heap request this size first consolidates glibc's free lists). */
		size_t size = m ? 2 * m->size : MEM_CHUNK;

		if (size < n)
			size = n;

		m = xmalloc(sizeof(*m) + size);
		m->next = t->mem;
		m->used = 0;
		m->size = size;
		t->mem = m;
	}
	m->used += n;
	return m->data + m->used - n;
}

static yaml_char_t *mem_strdup(struct yamltree *t, const yaml_char_t *s, size_t len)
{
	yaml_char_t *copy = mem_alloc(t, len + 1);

	memcpy(copy, s, len);
	copy[len] = '\0';
	return copy;
}

/* What building the first document from the parser's events needs. */
struct builder {
	struct yamltree *t;
	size_t nr_nodes, alloc_nodes;
	int *kids;			/* the items of the open collections */
	size_t nr_kids, alloc_kids;
	size_t *open;			/* each open collection's first item in kids */
	size_t nr_open, alloc_open;
	struct hashmap anchors;		/* anchor -> node id */
	size_t aliases;			/* alias events seen */
	size_t depth;			/* the deepest node's nesting level (the root's: 0) */
};

/* A composer error, reported as the loader's would be (at an anchor or an
 * alias, never a tab). */
static int fail_composer(struct builder *b, const char *problem, yaml_mark_t mark)
{
	return fail_at(b->t, mark.line + 1, mark.column + 1, "yaml: %s", problem);
}

/* The tag the loader gives a node: the event's, or the default of its kind. */
static const char *node_tag(struct builder *b, const yaml_char_t *tag, const char *def)
{
	if (!tag || !strcmp((const char *)tag, "!"))
		return def;
	return (const char *)mem_strdup(b->t, tag, strlen((const char *)tag));
}

/* A node's count of bytes or kids, which it holds in 32 bits. */
static int node_len(struct builder *b, struct yamlnode *node, size_t n)
{
	if (n > UINT32_MAX)
		return fail_at(b->t, (size_t)node->line + 1, (size_t)node->col + 1,
			       "yaml: %s too large (%zu)",
			       node->type == YAML_SCALAR_NODE ? "scalar" : "collection", n);
	node->len = (uint32_t)n;
	return 0;
}

/* A position for a node's 32 bits: past them only a message is less exact. */
static uint32_t saturated(size_t n)
{
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* A new node of type, its id; a child of the innermost open collection. */
static int add_node(struct builder *b, yaml_node_type_t type, const char *tag,
		    const yaml_event_t *ev)
{
	struct yamlnode *node;

	if (b->nr_open > b->depth)
		b->depth = b->nr_open;
	ALLOC_GROW(b->t->nodes, b->nr_nodes + 1, b->alloc_nodes);
	node = &b->t->nodes[b->nr_nodes++];
	memset(node, 0, sizeof(*node));
	node->type = (unsigned char)type;
	node->tag = tag;
	node->line = saturated(ev->start_mark.line);
	node->col = saturated(ev->start_mark.column);
	return (int)b->nr_nodes;
}

static void add_kid(struct builder *b, int id)
{
	if (!b->nr_open)
		return;	/* the root */
	ALLOC_GROW(b->kids, b->nr_kids + 1, b->alloc_kids);
	b->kids[b->nr_kids++] = id;
}

/* As the loader: an anchor names the node from its start, so that an alias
 * inside it refers to it (measure() then finds the cycle). */
static int add_anchor(struct builder *b, const yaml_char_t *anchor, int id, yaml_mark_t mark)
{
	if (!anchor)
		return 0;
	if (hashmap_put(&b->anchors, (const char *)anchor, (void *)(uintptr_t)id))
		return fail_composer(b, "second occurrence", mark);
	return 0;
}

static int add_scalar(struct builder *b, const yaml_event_t *ev)
{
	int id = add_node(b, YAML_SCALAR_NODE,
			  node_tag(b, ev->data.scalar.tag, YAML_DEFAULT_SCALAR_TAG), ev);
	struct yamlnode *node = &b->t->nodes[id - 1];

	if (node_len(b, node, ev->data.scalar.length))
		return -1;
	node->u.text = (const char *)mem_strdup(b->t, ev->data.scalar.value, ev->data.scalar.length);
	node->style = (unsigned char)ev->data.scalar.style;
	add_kid(b, id);
	return add_anchor(b, ev->data.scalar.anchor, id, ev->start_mark);
}

static int add_alias(struct builder *b, const yaml_event_t *ev)
{
	uintptr_t id = (uintptr_t)hashmap_get(&b->anchors, (const char *)ev->data.alias.anchor);

	if (!id)
		return fail_composer(b, "found undefined alias", ev->start_mark);
	b->aliases++;
	add_kid(b, (int)id);
	return 0;
}

static int open_collection(struct builder *b, const yaml_event_t *ev)
{
	int seq = ev->type == YAML_SEQUENCE_START_EVENT;
	const yaml_char_t *tag = seq ? ev->data.sequence_start.tag : ev->data.mapping_start.tag;
	const yaml_char_t *anchor = seq ? ev->data.sequence_start.anchor
					: ev->data.mapping_start.anchor;
	int id = add_node(b, seq ? YAML_SEQUENCE_NODE : YAML_MAPPING_NODE,
			  node_tag(b, tag, seq ? YAML_DEFAULT_SEQUENCE_TAG : YAML_DEFAULT_MAPPING_TAG),
			  ev);

	add_kid(b, id);
	ALLOC_GROW(b->open, b->nr_open + 1, b->alloc_open);
	b->open[b->nr_open++] = b->nr_kids;
	return add_anchor(b, anchor, id, ev->start_mark);
}

/* The innermost open collection gets its items (an exact-size list). */
static int close_collection(struct builder *b)
{
	size_t from = b->open[--b->nr_open], n = b->nr_kids - from;
	/* Its id was the last kid pushed before its own items. */
	int id = b->nr_open ? b->kids[from - 1] : 1;
	struct yamlnode *node = &b->t->nodes[id - 1];

	b->nr_kids = from;
	if (node->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *items = mem_alloc(b->t, n * sizeof(*items) + 1);

		if (n)	/* an empty root has no kids list at all: NULL + 0 is undefined */
			memcpy(items, b->kids + from, n * sizeof(*items));
		node->u.items = items;
		return node_len(b, node, n);
	}
	yaml_node_pair_t *pairs = mem_alloc(b->t, n / 2 * sizeof(*pairs) + 1);

	for (size_t i = 0; i < n / 2; i++) {
		pairs[i].key = b->kids[from + 2 * i];
		pairs[i].value = b->kids[from + 2 * i + 1];
	}
	node->u.pairs = pairs;
	return node_len(b, node, n / 2);
}

static int build_event(struct builder *b, const yaml_event_t *ev, int *done)
{
	switch (ev->type) {
	case YAML_STREAM_END_EVENT:
	case YAML_DOCUMENT_END_EVENT:
		*done = 1;
		return 0;
	case YAML_ALIAS_EVENT:
		return add_alias(b, ev);
	case YAML_SCALAR_EVENT:
		return add_scalar(b, ev);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		return open_collection(b, ev);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return close_collection(b);
	default:
		return 0;
	}
}

/* The stream's first document into t->doc (no nodes for an empty stream),
 * as yaml_parser_load() would build it; *plain when it has no alias and is
 * within the bounds measure() checks, which would then find nothing. */
static int build_document(struct yamltree *t, yaml_parser_t *parser, int *plain)
{
	struct builder b = { .t = t };
	int done = 0, ret = 0;

	hashmap_init(&b.anchors);
	/* Room for a node per 8 bytes of text (bench's specs have one per 11):
	 * growing the list copies it, onto pages touched anew. Room never
	 * used is never touched. */
	ALLOC_GROW(t->nodes, t->len / 8 + 1, b.alloc_nodes);
	while (!done && !ret) {
		yaml_event_t ev;

		if (!yaml_parser_parse(parser, &ev)) {
			ret = fail_parser(t, parser);
			break;
		}
		ret = build_event(&b, &ev, &done);
		yaml_event_delete(&ev);
	}
	t->nr_nodes = b.nr_nodes;
	*plain = !b.aliases && b.depth <= YAMLTREE_DEPTH_MAX && b.nr_nodes <= YAMLTREE_EXPANDED_MAX;
	hashmap_release(&b.anchors);
	free(b.kids);
	free(b.open);
	return ret;
}

int yamltree_load(struct yamltree *t, const char *file, struct yamlnode **root)
{
	yaml_parser_t parser;
	yaml_document_t extra;
	uint64_t *size;
	int ret, plain = 0;

	memset(t, 0, sizeof(*t));
	t->file = file;
	if (read_file_all(t->file, &t->text, &t->len))
		return error_errno("cannot read '%s'", t->file);
	if (!yaml_parser_initialize(&parser))
		return fail_at(t, 1, 1, "yaml: out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)t->text, t->len);
	ret = build_document(t, &parser, &plain);
	if (!ret && !t->nr_nodes)
		ret = fail_at(t, 1, 1, "spec is empty");
	if (!ret)
		*root = &t->nodes[0];
	/* A second document would be silently ignored otherwise. */
	if (!ret && !yaml_parser_load(&parser, &extra))
		ret = fail_parser(t, &parser);
	else if (!ret) {
		const yaml_node_t *second = yaml_document_get_root_node(&extra);

		if (second)
			ret = fail_at(t, second->start_mark.line + 1, second->start_mark.column + 1,
				      "spec holds more than one document");
		yaml_document_delete(&extra);
	}
	yaml_parser_delete(&parser);
	/* A spec without aliases is measured as it is read (100k units: 0.1 s). */
	if (ret || plain)
		return ret;

	size = xcalloc(t->nr_nodes + 1, sizeof(*size));
	ret = measure(t, size, 1, 0);
	free(size);
	return ret;
}

void yamltree_release(struct yamltree *t)
{
	while (t->mem) {
		struct yamltree_mem *next = t->mem->next;

		free(t->mem);
		t->mem = next;
	}
	free(t->nodes);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

const yaml_node_pair_t *yamltree_pairs(const struct yamlnode *node, size_t *nr)
{
	*nr = node->type == YAML_MAPPING_NODE ? node->len : 0;
	return node->type == YAML_MAPPING_NODE ? node->u.pairs : NULL;
}

size_t yamltree_len(const struct yamlnode *node)
{
	if (node->type != YAML_SEQUENCE_NODE)
		return 0;
	return node->len;
}

int yamltree_item(const struct yamlnode *node, size_t i)
{
	if (node->type != YAML_SEQUENCE_NODE || i >= yamltree_len(node))
		BUG("no item %zu", i);
	return node->u.items[i];
}

/* Scalars */

const char *yamltree_text(const struct yamlnode *node)
{
	return node->u.text;
}

static int is_null(const struct yamlnode *node)
{
	const char *s = yamltree_text(node);

	if (node->style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") ||
	       !strcmp(s, "Null") || !strcmp(s, "NULL");
}

int yamltree_is_string(const struct yamlnode *node)
{
	return node->type == YAML_SCALAR_NODE && !is_null(node) &&
	       strlen(yamltree_text(node)) == node->len;
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

/* Report the control character in the string node, showing the value escaped;
 * what is named between quote characters. */
static int control_error(struct yamltree *t, struct yamlnode *node, const char *quote,
			 const char *what)
{
	char *shown = escaped(yamltree_text(node));
	int ret = yamltree_error(t, node, "%s%s%s must not contain control characters: \"%s\"",
				 quote, what, quote, shown);

	free(shown);
	return ret;
}

/* A key error, the key shown escaped (it may hold a newline). */
static int key_error(struct yamltree *t, struct yamlnode *key, const char *what, const char *where)
{
	char *shown = escaped(yamltree_text(key));
	int ret = yamltree_error(t, key, "%s '%s'%s%s", what, shown, where ? " " : "",
				 where ? where : "");

	free(shown);
	return ret;
}

int yamltree_string(struct yamltree *t, struct yamlnode *node, const char *key,
		      int nonempty, const char **out)
{
	if (!yamltree_is_string(node) || (nonempty && !*yamltree_text(node)))
		return yamltree_error(t, node, "'%s' must be a %sstring", key, nonempty ? "non-empty " : "");
	/* Strings reach Makefiles, shell commands and line-based files: none
	 * may hold a control character (util.h). */
	if (control_byte(yamltree_text(node)))
		return control_error(t, node, "'", key);
	*out = yamltree_text(node);
	return 0;
}

int yamltree_key_text(struct yamltree *t, struct yamlnode *key, const char **out)
{
	if (control_byte(yamltree_text(key)))
		return control_error(t, key, "", "keys");
	*out = yamltree_text(key);
	return 0;
}

int yamltree_strdup(struct yamltree *t, struct yamlnode *node, const char *key,
		      int nonempty, char **out)
{
	const char *s = NULL;

	if (yamltree_string(t, node, key, nonempty, &s))
		return -1;
	*out = xstrdup(s);
	return 0;
}

int yamltree_integer(struct yamltree *t, struct yamlnode *node, const char *key, long long *out)
{
	const char *s, *p;

	if (node->type != YAML_SCALAR_NODE)
		goto bad;
	s = yamltree_text(node);
	if (node->style != YAML_PLAIN_SCALAR_STYLE && strcmp(node->tag, YAML_INT_TAG))
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

int yamltree_strings(struct yamltree *t, struct yamlnode *node, const char *key,
		       int nonempty_list, struct strvec *out)
{
	const char *what = nonempty_list ? "a non-empty list" : "a list";

	if (node->type != YAML_SEQUENCE_NODE || (nonempty_list && !node->len))
		return yamltree_error(t, node, "'%s' must be %s of strings", key, what);
	for (const yaml_node_item_t *it = node->u.items; it < node->u.items + node->len; it++) {
		struct yamlnode *item = yamltree_node(t, *it);
		const char *s = NULL; /* gcc -O3 cannot see yamltree_string sets it on success */

		if (!yamltree_is_string(item))
			return yamltree_error(t, item, "'%s' must be %s of strings", key, what);
		if (yamltree_string(t, item, key, 0, &s))
			return -1;
		strvec_push(out, s);
	}
	return 0;
}

/* Mappings */

int yamltree_unique_keys(struct yamltree *t, struct yamlnode *map)
{
	struct hashmap seen;
	int ret = 0;

	hashmap_init(&seen);
	for (const yaml_node_pair_t *p = map->u.pairs; p < map->u.pairs + map->len; p++) {
		struct yamlnode *key = yamltree_node(t, p->key);

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

int yamltree_fields(struct yamltree *t, struct yamlnode *map, const char *where,
		       struct yamltree_field *fields, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		fields[i].key_node = fields[i].value = NULL;
	for (const yaml_node_pair_t *p = map->u.pairs; p < map->u.pairs + map->len; p++) {
		struct yamlnode *key = yamltree_node(t, p->key);
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


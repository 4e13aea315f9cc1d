/* yamltree: a YAML file loaded as a node graph (built from libyaml's events, as
 * its loader would, in nodes of our own), checked against alias
 * bombs, with typed accessors that report "FILE:LINE:COL: message" once.
 *
 * The spec loader's generic layer: only spec.c and yamltree.c include <yaml.h>.
 * An alias is a reference to the anchored node (not a copy), so the accessors
 * follow aliases for free; yamltree_load() bounds the graph's expanded size. */
#ifndef KWARM_YAMLTREE_H
#define KWARM_YAMLTREE_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "strvec.h"

struct yamltree_mem;

/* A node: 32 bytes where libyaml's struct yamlnode takes 96 (a 100k-unit spec
 * has a million of them, all made anew). Ids count from 1, in document
 * order: a node that starts later has a larger id. */
struct yamlnode {
	unsigned char type;	/* yaml_node_type_t */
	unsigned char style;	/* a scalar's yaml_scalar_style_t */
	uint32_t line, col;	/* where it starts, from 0 (saturated) */
	uint32_t len;		/* a scalar's bytes, a sequence's items, a mapping's pairs */
	const char *tag;
	union {
		const char *text;		/* a scalar's, NUL-terminated */
		const yaml_node_item_t *items;	/* a sequence's node ids */
		const yaml_node_pair_t *pairs;	/* a mapping's key and value ids */
	} u;
};

#define YAMLTREE_EXPANDED_MAX 10000000	/* nodes with every alias expanded */
#define YAMLTREE_DEPTH_MAX 256		/* nesting levels */

struct yamltree {
	const char *file;	/* as given; not owned, must outlive the tree */
	char *text;		/* the file's bytes */
	size_t len;
	/* Built from libyaml's events (its loader allocates for every node,
	 * tag and list): the nodes, their strings and lists in mem. */
	struct yamlnode *nodes;
	size_t nr_nodes;
	struct yamltree_mem *mem;	/* private to yamltree.c */
};

/* One expected key of a mapping, for yamltree_fields(). */
struct yamltree_field {
	const char *key;
	int required;
	struct yamlnode *key_node, *value;	/* filled in; NULL when absent */
};
#define YAMLTREE_FIELD(key, required) { (key), (required), NULL, NULL }

/* Read and parse file (one document, not empty, expansion bounded); *root is
 * its top node. Release the tree whatever the result. */
int yamltree_load(struct yamltree *t, const char *file, struct yamlnode **root);
void yamltree_release(struct yamltree *t);

/* Print "FILE:LINE:COL: MSG" at node's start to stderr; returns -1. */
int yamltree_error(struct yamltree *t, const struct yamlnode *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The node of id (never NULL). */
struct yamlnode *yamltree_node(struct yamltree *t, int id);
/* The pairs of a mapping node, *nr of them (none for other nodes). */
const yaml_node_pair_t *yamltree_pairs(const struct yamlnode *node, size_t *nr);
/* The number of items of a sequence node (0 for other nodes). */
size_t yamltree_len(const struct yamlnode *node);
/* The id of item i of a sequence node. */
int yamltree_item(const struct yamlnode *node, size_t i);
/* The text of a scalar node. */
const char *yamltree_text(const struct yamlnode *node);
/* True for a scalar that is not null and holds no NUL byte. */
int yamltree_is_string(const struct yamlnode *node);

/* Typed values of node; key names the value in the error message. */
int yamltree_string(struct yamltree *t, struct yamlnode *node, const char *key,
		    int nonempty, const char **out);
/* Same, copied; caller frees. */
int yamltree_strdup(struct yamltree *t, struct yamlnode *node, const char *key,
		    int nonempty, char **out);
/* A plain decimal integer, or one tagged !!int (saturated to the long long range). */
int yamltree_integer(struct yamltree *t, struct yamlnode *node, const char *key, long long *out);
/* A list of strings (each may be empty), appended to out. */
int yamltree_strings(struct yamltree *t, struct yamlnode *node, const char *key,
		     int nonempty_list, struct strvec *out);

/* Every key of the mapping map is a string and appears once. */
int yamltree_unique_keys(struct yamltree *t, struct yamlnode *map);
/* Fill fields from the mapping map; unknown, duplicate and missing required
 * keys are errors whose messages end with where ("in class"). */
int yamltree_fields(struct yamltree *t, struct yamlnode *map, const char *where,
		    struct yamltree_field *fields, size_t nr);

/* A mapping key's text, refusing control characters; 0 or -1 after reporting. */
int yamltree_key_text(struct yamltree *t, struct yamlnode *key, const char **out);

#endif

/* spec: walk the YAML tree (yamltree.h) into the typed tree of spec.h, checking
 * every rule of CONTRACT.md's spec on the way. Aliases are node references, so
 * a class that reuses another's incores by alias simply walks them again. */
#include "spec/spec.h"
#include "cache/remote.h"
#include "key/deps.h"
#include "buf.h"
#include "hashmap.h"
#include "os.h"
#include "path.h"
#include "util.h"
#include "spec/yamltree.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

struct loader {
	struct spec *spec;
	struct yamltree tree;
	struct hashmap class_names;	/* name -> class, for uniqueness */
	struct hashmap kinds;		/* path under root -> enum kind */
	struct hashmap listed;		/* folder under root -> 1 one name asked, 2 listed */
	/* The class being loaded, for messages and core type resolution. */
	struct spec_class *cls;
	struct spec_toolchain *cls_orch;	/* its own orchestration role or NULL */
	const char *callable_name;		/* level 3 only */
};

/* Shorthands for the yamltree calls every step makes. */
#define fail(ld, ...) yamltree_error(&(ld)->tree, __VA_ARGS__)
#define FIELD YAMLTREE_FIELD

static const char *const sig_names[] = { "SCALAR", "IN", "OUT", "INOUT" };

/* *sig is allocated to the signature's length (NULL when empty): most units
 * have a short one or none, and a spec holds 100k of them. */
static int get_signature(struct loader *ld, struct yamlnode *node, int max, int **sig_out, int *count)
{
	size_t n;
	int *sig;

	if (node->type != YAML_SEQUENCE_NODE)
		return fail(ld, node, "'signature' must be a list of SCALAR, IN, OUT or INOUT");
	n = yamltree_len(node);
	if (n > (size_t)max)
		return fail(ld, node, "'signature' has %zu entries (at most %d)", n, max);
	sig = *sig_out = n ? xcalloc(n, sizeof(*sig)) : NULL;
	*count = 0;
	for (size_t i = 0; i < n; i++) {
		struct yamlnode *item = yamltree_node(&ld->tree, yamltree_item(node, i));
		int dir;

		for (dir = 0; dir < (int)ARRAY_SIZE(sig_names); dir++)
			if (item->type == YAML_SCALAR_NODE && !strcmp(yamltree_text(item), sig_names[dir]))
				break;
		if (dir == (int)ARRAY_SIZE(sig_names)) {
			if (!yamltree_is_string(item))
				return fail(ld, item, "signature entries must be SCALAR, IN, OUT or INOUT");
			return fail(ld, item, "bad signature word '%s' (expected SCALAR, IN, OUT or INOUT)",
				    yamltree_text(item));
		}
		sig[(*count)++] = dir;
	}
	return 0;
}

#define LETTERS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
#define DIGITS "0123456789"

/* [A-Za-z_][A-Za-z0-9_.-]*: safe in file names and make targets. */
static int name_ok(const char *s)
{
	if (!*s || !strchr(LETTERS, *s))
		return 0;
	return strspn(s + 1, LETTERS DIGITS ".-") == strlen(s + 1);
}

/* Paths and environment */

enum kind { KIND_NONE = 1, KIND_FILE, KIND_DIR, KIND_ASK };

struct listing {
	struct hashmap *kinds;
	struct buf path;	/* the folder under root, then each name in turn */
	size_t len;
};

static void note_kind(const char *name, enum os_kind kind, void *data)
{
	struct listing *l = data;

	l->path.len = l->len;
	l->path.s[l->len] = '\0';
	buf_adds(&l->path, name);
	hashmap_put(l->kinds, l->path.s, (void *)(uintptr_t)(kind == OS_KIND_FILE ? KIND_FILE :
			kind == OS_KIND_FOLDER ? KIND_DIR : KIND_ASK));
}

/* Big specs name many sources of each folder: one listing of the folder says
 * what each of its names is, where a stat each walks the whole path again
 * (100k sources: a tenth of gen's system time). A folder is listed when a
 * second of its names is asked, so that a lone source in a large folder still
 * costs one stat. Only what the listing shows is taken from it: a name it
 * lacks (a case-folding file system) or shows without its kind (a symbolic
 * link) is asked of stat. */
static void list_folder(struct loader *ld, const char *rel)
{
	const char *slash = strrchr(rel, '/');
	struct listing l = { .kinds = &ld->kinds, .path = BUF_INIT };
	uintptr_t asked;
	char *abs;

	if (slash == rel || (slash && !slash[1]))
		return;
	buf_add(&l.path, rel, slash ? (size_t)(slash - rel) : 0);
	asked = (uintptr_t)hashmap_get(&ld->listed, l.path.s);
	if (asked != 1) {
		if (!asked)
			hashmap_put(&ld->listed, l.path.s, (void *)1);
		buf_release(&l.path);
		return;
	}
	hashmap_put(&ld->listed, l.path.s, (void *)2);
	abs = l.path.len ? path_join(ld->spec->root, l.path.s) : xstrdup(ld->spec->root);
	if (l.path.len)
		buf_addch(&l.path, '/');
	l.len = l.path.len;
	(void)os_list_folder(abs, note_kind, &l);
	free(abs);
	buf_release(&l.path);
}

static int exists_under_root(struct loader *ld, const char *rel, int want_dir)
{
	enum kind kind = (enum kind)(uintptr_t)hashmap_get(&ld->kinds, rel);

	if (!kind) {
		list_folder(ld, rel);
		kind = (enum kind)(uintptr_t)hashmap_get(&ld->kinds, rel);
	}
	if (!kind || kind == KIND_ASK) {
		char *abs = path_join(ld->spec->root, rel);
		struct stat st;

		kind = stat(abs, &st) ? KIND_NONE : S_ISDIR(st.st_mode) ? KIND_DIR : KIND_FILE;
		hashmap_put(&ld->kinds, rel, (void *)(uintptr_t)kind);
		free(abs);
	}
	return kind == (want_dir ? KIND_DIR : KIND_FILE);
}

static int check_source(struct loader *ld, struct yamlnode *node, const char *source)
{
	if (exists_under_root(ld, source, 0))
		return 0;
	if (exists_under_root(ld, source, 1))
		return fail(ld, node, "source '%s' is a folder", source);
	return fail(ld, node, "source '%s' does not exist", source);
}

static int expand_vars(struct loader *ld, struct yamlnode *node, const char *in,
		       const char *what, char **out)
{
	struct buf b = BUF_INIT;
	const char *p = in;

	while (*p) {
		const char *name, *value;
		size_t len;
		char *var;

		if (*p != '$') {
			buf_addch(&b, *p++);
			continue;
		}
		if (p[1] == '{') {
			name = p + 2;
			len = strspn(name, LETTERS DIGITS);
			if (!len || name[len] != '}') {
				buf_release(&b);
				return fail(ld, node, "bad variable reference in '%s' of %s", in, what);
			}
			p = name + len + 1;
		} else {
			name = p + 1;
			len = strspn(name, LETTERS DIGITS);
			if (!len || strchr(DIGITS, *name)) {
				buf_addch(&b, *p++);	/* a lone '$' stays */
				continue;
			}
			p = name + len;
		}
		var = xstrndup(name, len);
		value = getenv(var);
		if (!value) {
			fail(ld, node, "unset variable '%s' in %s", var, what);
			free(var);
			buf_release(&b);
			return -1;
		}
		strvec_pushf(&ld->spec->env_used, "%s=%s", var, value);
		buf_adds(&b, value);
		free(var);
	}
	*out = buf_detach(&b);
	return 0;
}

/* Include dirs of node (the key of the owner kind 'name') that exist,
 * $VAR-expanded, into out. With required, a non-empty list of which none
 * exists is an error. */
static int load_include_dirs(struct loader *ld, struct yamlnode *node, const char *key,
			     const char *kind, const char *name, int required, struct strvec *out)
{
	struct strvec written = { 0 }, tried = { 0 };
	struct buf list = BUF_INIT;
	/* Messages name the unit being loaded: " (class X, callable Y)". */
	char *what = ld->callable_name ? xstrfmt("%s of %s '%s' (class %s, callable %s)", key, kind,
						 name, ld->cls->name, ld->callable_name)
		   : ld->cls ? xstrfmt("%s of %s '%s' (class %s)", key, kind, name, ld->cls->name)
		   : xstrfmt("%s of %s '%s'", key, kind, name);
	int ret = -1;

	strvec_init(&written);
	strvec_init(&tried);
	if (yamltree_strings(&ld->tree, node, key, 0, &written))
		goto done;
	for (size_t i = 0; i < written.nr; i++) {
		struct yamlnode *item = yamltree_node(&ld->tree, yamltree_item(node, i));
		char *dir = NULL;

		if (!*written.v[i]) {
			fail(ld, item, "'%s' entries must not be empty", key);
			goto done;
		}
		if (expand_vars(ld, item, written.v[i], what, &dir))
			goto done;
		if (exists_under_root(ld, dir, 1))
			strvec_push_nodup(out, dir);
		else
			strvec_push_nodup(&tried, dir);
	}
	if (required && written.nr && !out->nr) {
		strvec_join(&list, &tried, ", ");
		fail(ld, node, "none of the %s exists (tried: %s)", what, list.s);
		goto done;
	}
	ret = 0;
done:
	strvec_release(&written);
	strvec_release(&tried);
	buf_release(&list);
	free(what);
	return ret;
}

/* Toolchains */

static void set_pos(struct spec_pos *pos, const char *file, const struct yamlnode *node)
{
	pos->file = file;
	pos->line = (int)node->line + 1;
	pos->col = (int)node->col + 1;
}

static void toolchain_init(struct spec_toolchain *tc, const char *role, const struct yamlnode *node,
			   const char *file)
{
	memset(tc, 0, sizeof(*tc));
	tc->role = xstrdup(role);
	strvec_init(&tc->flags);
	strvec_init(&tc->include_dirs);
	strvec_init(&tc->sources);
	strvec_init(&tc->launcher);
	strvec_init(&tc->link);
	strvec_init(&tc->env);
	tc->deps = -1;
	set_pos(&tc->pos, file, node);
}

static void toolchain_release(struct spec_toolchain *tc)
{
	free(tc->role);
	free(tc->compiler);
	strvec_release(&tc->flags);
	strvec_release(&tc->include_dirs);
	strvec_release(&tc->sources);
	strvec_release(&tc->launcher);
	strvec_release(&tc->link);
	strvec_release(&tc->env);
}

static int load_toolchain(struct loader *ld, struct yamlnode *node, const char *role,
			  int orchestration, struct spec_toolchain *tc)
{
	struct yamltree_field f[] = {
		FIELD("compiler", 1), FIELD("flags", 0), FIELD("include_dirs", 0), FIELD("sources", 0),
		FIELD("launcher", 0), FIELD("link", 0), FIELD("extract", 0), FIELD("deps", 0),
		FIELD("env", 0),
	};
	char *where;
	int ret;

	toolchain_init(tc, role, node, ld->spec->file);
	if (node->type != YAML_MAPPING_NODE)
		return fail(ld, node, "toolchain '%s' must be a mapping", role);
	where = xstrfmt("in toolchain '%s'", role);
	ret = yamltree_fields(&ld->tree, node, where, f, ARRAY_SIZE(f));
	free(where);
	if (ret || yamltree_strdup(&ld->tree, f[0].value, "compiler", 1, &tc->compiler))
		return -1;
	if (f[1].value && yamltree_strings(&ld->tree, f[1].value, "flags", 0, &tc->flags))
		return -1;
	if (f[2].value && load_include_dirs(ld, f[2].value, "include_dirs", "toolchain", role, 0,
					    &tc->include_dirs))
		return -1;
	if (f[3].value) {
		if (!orchestration)
			return fail(ld, f[3].key_node,
				    "'sources' is only allowed in the orchestration toolchain");
		if (yamltree_strings(&ld->tree, f[3].value, "sources", 0, &tc->sources))
			return -1;
		for (size_t i = 0; i < tc->sources.nr; i++)
			if (check_source(ld, yamltree_node(&ld->tree, yamltree_item(f[3].value, i)),
					 tc->sources.v[i]))
				return -1;
	}
	if (f[4].value && yamltree_strings(&ld->tree, f[4].value, "launcher", 0, &tc->launcher))
		return -1;
	if (f[5].value && yamltree_strings(&ld->tree, f[5].value, "link", 1, &tc->link))
		return -1;
	if (f[6].value) {
		if (!yamltree_is_string(f[6].value) || strcmp(yamltree_text(f[6].value), "text"))
			return fail(ld, f[6].value, "'extract' must be 'text'");
		tc->extract_text = 1;
	}
	if (f[7].value) {
		tc->deps = yamltree_is_string(f[7].value) ? deps_family_parse(yamltree_text(f[7].value)) : -1;
		if (tc->deps < 0)
			return fail(ld, f[7].value, "'deps' must be 'gcc', 'clang' or 'none'");
	}
	if (f[8].value && yamltree_strings(&ld->tree, f[8].value, "env", 0, &tc->env))
		return -1;
	for (size_t i = 0; i < tc->env.nr; i++) {
		const char *v = tc->env.v[i];
		if (!*v || v[strspn(v, LETTERS DIGITS)] || strchr(DIGITS, *v))
			return fail(ld, yamltree_node(&ld->tree, yamltree_item(f[8].value, i)),
				    "'%s' in 'env' is not a variable name", v);
	}
	return 0;
}

/* The roles of the core type -> toolchain mapping node, appended at out[*nr]
 * (which has room for them). */
static int load_incore_table(struct loader *ld, struct yamlnode *node,
			     struct spec_toolchain *out, size_t *nr)
{
	size_t nr_pairs;
	const yaml_node_pair_t *pairs = yamltree_pairs(node, &nr_pairs);

	if (node->type != YAML_MAPPING_NODE)
		return fail(ld, node, "'incore' must be a mapping of core types to toolchains");
	if (yamltree_unique_keys(&ld->tree, node))
		return -1;
	for (const yaml_node_pair_t *p = pairs; p < pairs + nr_pairs; p++) {
		struct yamlnode *key = yamltree_node(&ld->tree, p->key);
		const char *name;

		if (yamltree_key_text(&ld->tree, key, &name))
			return -1;
		if (!*name)
			return fail(ld, key, "core type names must not be empty");
		(*nr)++;
		if (load_toolchain(ld, yamltree_node(&ld->tree, p->value), name, 0, &out[*nr - 1]))
			return -1;
	}
	return 0;
}

static size_t mapping_size(const struct yamlnode *node)
{
	if (node->type != YAML_MAPPING_NODE)
		return 0;
	return node->len;
}

/* A toolchains mapping: the top level's (while no class is being loaded; its
 * orchestration is required), or the roles the class being loaded overrides,
 * owned by the class, its orchestration (if any) first. */
static int load_toolchains(struct loader *ld, struct yamlnode *node)
{
	struct spec_class *cls = ld->cls;
	struct yamltree_field f[] = { FIELD("orchestration", !cls), FIELD("incore", 0) };
	struct spec_toolchain **table = cls ? &cls->own_toolchains : &ld->spec->incore;
	size_t *nr = cls ? &cls->nr_own_toolchains : &ld->spec->nr_incore;

	if (node->type != YAML_MAPPING_NODE)
		return fail(ld, node, "'toolchains' must be a mapping");
	if (yamltree_fields(&ld->tree, node, cls ? "in class toolchains" : "in toolchains",
			    f, ARRAY_SIZE(f)))
		return -1;
	*table = xcalloc(1 + (f[1].value ? mapping_size(f[1].value) : 0), sizeof(**table));
	if (f[0].value) {
		struct spec_toolchain *orch = &ld->spec->orchestration;

		if (cls)
			orch = ld->cls_orch = &cls->own_toolchains[(*nr)++];
		if (load_toolchain(ld, f[0].value, "orchestration", 1, orch))
			return -1;
	}
	return f[1].value ? load_incore_table(ld, f[1].value, *table, nr) : 0;
}

static void sort_unique(struct strvec *sv)
{
	size_t kept = 0;

	qsort(sv->v, sv->nr, sizeof(*sv->v), strvec_cmp);
	for (size_t i = 0; i < sv->nr; i++) {
		if (kept && !strcmp(sv->v[kept - 1], sv->v[i]))
			free(sv->v[i]);
		else
			sv->v[kept++] = sv->v[i];
	}
	sv->nr = kept;
	sv->v[kept] = NULL;
}

/* The role of core type name for the class being loaded, or an error. */
static int resolve_core_type(struct loader *ld, struct yamlnode *node, const char *name,
			     const struct spec_toolchain **out)
{
	struct spec_class *cls = ld->cls;
	struct spec *spec = ld->spec;
	size_t first = ld->cls_orch ? 1 : 0;
	struct strvec known;
	struct buf list = BUF_INIT;

	for (size_t i = first; i < cls->nr_own_toolchains; i++)
		if (!strcmp(cls->own_toolchains[i].role, name))
			return *out = &cls->own_toolchains[i], 0;
	for (size_t i = 0; i < spec->nr_incore; i++)
		if (!strcmp(spec->incore[i].role, name))
			return *out = &spec->incore[i], 0;

	strvec_init(&known);
	for (size_t i = first; i < cls->nr_own_toolchains; i++)
		strvec_push(&known, cls->own_toolchains[i].role);
	for (size_t i = 0; i < spec->nr_incore; i++)
		strvec_push(&known, spec->incore[i].role);
	sort_unique(&known);
	strvec_join(&list, &known, ", ");
	fail(ld, node, "unknown core type '%s' (known: %s)", name, known.nr ? list.s : "none");
	strvec_release(&known);
	buf_release(&list);
	return -1;
}

/* Classes and callables */

static int check_name_len(struct loader *ld, struct yamlnode *node, const char *key, const char *s)
{
	if (strlen(s) > SPEC_NAME_MAX)
		return fail(ld, node, "'%s' is %zu bytes long (at most %d)", key, strlen(s),
			    SPEC_NAME_MAX);
	return 0;
}

static int load_orchestration(struct loader *ld, struct yamlnode *node, struct spec_callable *c)
{
	struct yamltree_field f[] = {
		FIELD("source", 1), FIELD("function_name", 1), FIELD("config_name", 0), FIELD("signature", 0),
	};

	if (node->type != YAML_MAPPING_NODE)
		return fail(ld, node, "'orchestration' must be a mapping");
	if (yamltree_fields(&ld->tree, node, "in orchestration", f, ARRAY_SIZE(f)) ||
	    yamltree_strdup(&ld->tree, f[0].value, "source", 1, &c->source) ||
	    check_source(ld, f[0].value, c->source) ||
	    yamltree_strdup(&ld->tree, f[1].value, "function_name", 1, &c->function_name) ||
	    check_name_len(ld, f[1].value, "function_name", c->function_name))
		return -1;
	if (f[2].value) {
		if (yamltree_strdup(&ld->tree, f[2].value, "config_name", 0, &c->config_name) ||
		    check_name_len(ld, f[2].value, "config_name", c->config_name))
			return -1;
	} else {
		c->config_name = xstrdup("");
	}
	if (f[3].value && get_signature(ld, f[3].value, SPEC_CHIP_SIG_MAX, &c->sig, &c->sig_count))
		return -1;
	return 0;
}

static int load_incore(struct loader *ld, struct yamlnode *node, struct spec_callable *c,
		       struct spec_incore *in)
{
	struct yamltree_field f[] = {
		FIELD("func_id", 1), FIELD("name", 0), FIELD("source", 1), FIELD("core_type", 1),
		FIELD("signature", 0), FIELD("extra_include_dirs", 0),
	};
	const char *core_type = NULL;
	long long id = 0;

	strvec_init(&in->extra_include_dirs);
	set_pos(&in->pos, ld->spec->file, node);
	if (node->type != YAML_MAPPING_NODE)
		return fail(ld, node, "incore must be a mapping");
	if (yamltree_fields(&ld->tree, node, "in incore", f, ARRAY_SIZE(f)) ||
	    yamltree_integer(&ld->tree, f[0].value, "func_id", &id))
		return -1;
	if (id < INT32_MIN || id > INT32_MAX)
		return fail(ld, f[0].value, "func_id %s is out of the int32 range", yamltree_text(f[0].value));
	in->func_id = (int32_t)id;
	for (struct spec_incore *prev = c->incores; prev < in; prev++)
		if (prev->func_id == in->func_id)
			return fail(ld, f[0].value, "duplicate func_id %d", (int)in->func_id);
	if (yamltree_strdup(&ld->tree, f[2].value, "source", 1, &in->source) ||
	    check_source(ld, f[2].value, in->source))
		return -1;
	if (f[1].value) {
		if (yamltree_strdup(&ld->tree, f[1].value, "name", 1, &in->name))
			return -1;
	} else {
		in->name = path_stem(in->source);
	}
	if (yamltree_string(&ld->tree, f[3].value, "core_type", 1, &core_type) ||
	    resolve_core_type(ld, f[3].value, core_type, &in->toolchain))
		return -1;
	in->core_type = xstrdup(core_type);
	if (f[4].value && get_signature(ld, f[4].value, SPEC_CORE_SIG_MAX, &in->sig, &in->sig_count))
		return -1;
	if (f[5].value)
		return load_include_dirs(ld, f[5].value, "extra_include_dirs", "incore", in->name, 1,
					 &in->extra_include_dirs);
	return 0;
}

static int load_callable(struct loader *ld, struct yamlnode *node, int level,
			 struct hashmap *names, struct spec_callable *c)
{
	struct yamltree_field f[] = { FIELD("orchestration", 1), FIELD("incores", 1), FIELD("name", 1) };
	struct yamlnode *list;
	size_t n;

	set_pos(&c->pos, ld->spec->file, node);
	c->toolchain = ld->cls_orch ? ld->cls_orch : &ld->spec->orchestration;
	if (node->type != YAML_MAPPING_NODE)
		return fail(ld, node, "callable must be a mapping");
	if (yamltree_fields(&ld->tree, node, "in callable", f, level == 3 ? 3 : 2))
		return -1;
	if (level == 3) {
		if (yamltree_strdup(&ld->tree, f[2].value, "name", 1, &c->name))
			return -1;
		if (!name_ok(c->name))
			return fail(ld, f[2].value,
				    "bad callable name '%s' (allowed: [A-Za-z_][A-Za-z0-9_.-]*)", c->name);
		if (hashmap_put(names, c->name, c))
			return fail(ld, f[2].value, "duplicate callable name '%s' in class '%s'",
				    c->name, ld->cls->name);
		ld->callable_name = c->name;
	}
	if (load_orchestration(ld, f[0].value, c))
		return -1;
	list = f[1].value;
	if (list->type != YAML_SEQUENCE_NODE)
		return fail(ld, list, "'incores' must be a list");
	n = yamltree_len(list);
	if (n > SPEC_CHILDREN_MAX)
		return fail(ld, list, "'incores' has %zu entries (at most %d)", n, SPEC_CHILDREN_MAX);
	c->incores = xcalloc(n + 1, sizeof(*c->incores));
	for (size_t i = 0; i < n; i++) {
		c->nr_incores = i + 1;
		if (load_incore(ld, yamltree_node(&ld->tree, yamltree_item(list, i)), c,
				&c->incores[i]))
			return -1;
	}
	return 0;
}

/* A level-3 class's list of callables into cls. */
static int load_callables(struct loader *ld, struct yamlnode *list, struct spec_class *cls)
{
	struct hashmap names;
	size_t n = yamltree_len(list);
	int ret = 0;

	cls->level = 3;
	if (!n)
		return fail(ld, list, "'callables' must be a non-empty list");
	cls->callables = xcalloc(n, sizeof(*cls->callables));
	hashmap_init(&names);
	for (size_t i = 0; !ret && i < n; i++) {
		cls->nr_callables = i + 1;
		ret = load_callable(ld, yamltree_node(&ld->tree, yamltree_item(list, i)), 3,
				    &names, &cls->callables[i]);
	}
	hashmap_release(&names);
	return ret;
}

static int load_class(struct loader *ld, struct yamlnode *node, struct spec_class *cls)
{
	struct yamltree_field f[] = {
		FIELD("name", 1), FIELD("runtime", 0), FIELD("toolchains", 0),
		FIELD("callable", 0), FIELD("callables", 0),
	};

	set_pos(&cls->pos, ld->spec->file, node);
	ld->cls = NULL;
	ld->cls_orch = NULL;
	ld->callable_name = NULL;
	if (node->type != YAML_MAPPING_NODE)
		return fail(ld, node, "class must be a mapping");
	if (yamltree_fields(&ld->tree, node, "in class", f, ARRAY_SIZE(f)) ||
	    yamltree_strdup(&ld->tree, f[0].value, "name", 1, &cls->name))
		return -1;
	if (!name_ok(cls->name))
		return fail(ld, f[0].value, "bad class name '%s' (allowed: [A-Za-z_][A-Za-z0-9_.-]*)",
			    cls->name);
	if (hashmap_put(&ld->class_names, cls->name, cls))
		return fail(ld, f[0].value, "duplicate class name '%s'", cls->name);
	ld->cls = cls;
	if (f[1].value) {
		if (yamltree_strdup(&ld->tree, f[1].value, "runtime", 0, &cls->runtime))
			return -1;
	} else {
		cls->runtime = xstrdup("");
	}
	if (f[2].value && load_toolchains(ld, f[2].value))
		return -1;
	if (f[3].value && f[4].value) {
		/* Nodes are in document order (yamltree.h). */
		struct yamlnode *second = f[3].key_node > f[4].key_node ? f[3].key_node : f[4].key_node;

		return fail(ld, second, "class '%s' has both 'callable' and 'callables'", cls->name);
	}
	if (!f[3].value && !f[4].value)
		return fail(ld, node, "class '%s' has neither 'callable' nor 'callables'", cls->name);
	if (f[3].value) {
		cls->level = 2;
		cls->callables = xcalloc(1, sizeof(*cls->callables));
		cls->nr_callables = 1;
		return load_callable(ld, f[3].value, 2, NULL, &cls->callables[0]);
	}
	return load_callables(ld, f[4].value, cls);
}

/* The top level */

static int load_paths(struct loader *ld, struct yamltree_field *root_f, struct yamltree_field *cache_f,
		      struct yamltree_field *out_f)
{
	struct spec *spec = ld->spec;
	char *dir = path_dirname(ld->spec->file), *real = realpath(dir, NULL);
	const char *s = NULL;
	struct stat st;
	char *joined;

	/* The spec's folder is real so that "root: .." means its real parent. */
	if (real) {
		free(dir);
		dir = real;
	}
	if (root_f->value) {
		if (yamltree_string(&ld->tree, root_f->value, "root", 1, &s))
			goto fail;
		joined = path_join(dir, s);
		spec->root = path_absolute(joined);
		free(joined);
		if (stat(spec->root, &st) || !S_ISDIR(st.st_mode)) {
			fail(ld, root_f->value, "root '%s' is not a folder", s);
			goto fail;
		}
	} else {
		spec->root = path_absolute(dir);
	}
	free(dir);
	if (cache_f->value) {
		if (yamltree_string(&ld->tree, cache_f->value, "cache", 1, &s))
			return -1;
		joined = path_join(spec->root, s);
		spec->cache = path_normalize(joined);
		free(joined);
	}
	if (out_f->value) {
		if (yamltree_string(&ld->tree, out_f->value, "out", 1, &s))
			return -1;
		joined = path_join(spec->root, s);
		spec->out = path_normalize(joined);
		free(joined);
	}
	return 0;
fail:
	free(dir);
	return -1;
}

static int load_top(struct loader *ld, struct yamlnode *top)
{
	struct spec *spec = ld->spec;
	struct yamltree_field f[] = {
		FIELD("version", 1), FIELD("platform", 1), FIELD("root", 0), FIELD("cache", 0),
		FIELD("out", 0), FIELD("toolchains", 1), FIELD("classes", 1), FIELD("remote", 0),
	};
	struct yamlnode *classes;
	long long version = 0;
	size_t n, nr_pairs;
	const yaml_node_pair_t *pairs = yamltree_pairs(top, &nr_pairs);

	/* The version first: another version's keys are not "unknown". */
	for (const yaml_node_pair_t *p = pairs; p < pairs + nr_pairs; p++) {
		struct yamlnode *key = yamltree_node(&ld->tree, p->key), *value = yamltree_node(&ld->tree, p->value);

		if (!yamltree_is_string(key) || strcmp(yamltree_text(key), "version"))
			continue;
		if (yamltree_integer(&ld->tree, value, "version", &version))
			return -1;
		if (version != 1)
			return fail(ld, value, "unsupported spec version %s (only 1 is known)",
				    yamltree_text(value));
		break;
	}
	if (yamltree_fields(&ld->tree, top, "at top level", f, ARRAY_SIZE(f)) ||
	    yamltree_strdup(&ld->tree, f[1].value, "platform", 1, &spec->platform) ||
	    load_paths(ld, &f[2], &f[3], &f[4]) ||
	    load_toolchains(ld, f[5].value))
		return -1;
	if (f[7].value) {
		const char *problem;

		/* Empty: no remote (as KWARM_REMOTE= turns it off). */
		if (yamltree_strdup(&ld->tree, f[7].value, "remote", 0, &spec->remote))
			return -1;
		problem = *spec->remote ? remote_url_problem(spec->remote) : NULL;
		if (problem)
			return fail(ld, f[7].value, "the remote URL cannot be used: %s", problem);
	}
	classes = f[6].value;
	n = yamltree_len(classes);
	if (!n)
		return fail(ld, classes, "'classes' must be a non-empty list");
	spec->classes = xcalloc(n, sizeof(*spec->classes));
	for (size_t i = 0; i < n; i++) {
		spec->nr_classes = i + 1;
		if (load_class(ld, yamltree_node(&ld->tree, yamltree_item(classes, i)),
			       &spec->classes[i]))
			return -1;
	}
	return 0;
}

int spec_load(struct spec *spec, const char *path)
{
	struct loader ld = { .spec = spec };
	struct yamlnode *top;
	int ret;

	memset(spec, 0, sizeof(*spec));
	spec->file = xstrdup(path);
	strvec_init(&spec->env_used);
	hashmap_init(&ld.class_names);
	hashmap_init(&ld.kinds);
	hashmap_init(&ld.listed);

	ret = yamltree_load(&ld.tree, spec->file, &top);
	if (!ret && top->type != YAML_MAPPING_NODE)
		ret = fail(&ld, top, "spec must be a mapping");
	if (!ret)
		ret = load_top(&ld, top);
	if (!ret)
		sort_unique(&spec->env_used);
	hashmap_release(&ld.class_names);
	hashmap_release(&ld.kinds);
	hashmap_release(&ld.listed);
	yamltree_release(&ld.tree);
	if (ret)
		spec_release(spec);
	return ret;
}

static void callable_release(struct spec_callable *c)
{
	free(c->name);
	free(c->source);
	free(c->function_name);
	free(c->config_name);
	free(c->sig);
	for (size_t i = 0; i < c->nr_incores; i++) {
		free(c->incores[i].name);
		free(c->incores[i].source);
		free(c->incores[i].core_type);
		free(c->incores[i].sig);
		strvec_release(&c->incores[i].extra_include_dirs);
	}
	free(c->incores);
}

void spec_release(struct spec *spec)
{
	for (size_t i = 0; i < spec->nr_classes; i++) {
		struct spec_class *cls = &spec->classes[i];

		free(cls->name);
		free(cls->runtime);
		for (size_t j = 0; j < cls->nr_callables; j++)
			callable_release(&cls->callables[j]);
		free(cls->callables);
		for (size_t j = 0; j < cls->nr_own_toolchains; j++)
			toolchain_release(&cls->own_toolchains[j]);
		free(cls->own_toolchains);
	}
	free(spec->classes);
	for (size_t i = 0; i < spec->nr_incore; i++)
		toolchain_release(&spec->incore[i]);
	free(spec->incore);
	toolchain_release(&spec->orchestration);
	strvec_release(&spec->env_used);
	free(spec->file);
	free(spec->root);
	free(spec->platform);
	free(spec->cache);
	free(spec->out);
	free(spec->remote);
	memset(spec, 0, sizeof(*spec));
}

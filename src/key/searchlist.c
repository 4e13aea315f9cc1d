/*
 * The list is learned by running the compiler once with the unit's own flags
 * (less its inputs, output and dependency options) and -E -v, on an empty file
 * with the suffix of the unit's source (so the language is the one the source
 * gets), and reading the list it prints. Every flag is kept: which ones
 * change the list (-nostdinc, --sysroot, -stdlib=, --target, -m32, -B, ...)
 * is the compiler's business, and a flag list is shared by a role's units.
 * gcc drops a folder of its list that does not exist, and says so: such a
 * folder is recorded as a place where nothing may appear.
 *
 * Memoized in memo_dir (CACHE/tools, beside toolid's memo), one file per
 * compiler identity, root, flags, suffix and steering variables, named
 * search-<SHA-256 of those>:
 *
 *   kwarm-searchlist 2
 *   missing DIR      a folder the compiler dropped because it did not exist
 *   quote DIR        searched for "name" only (after the includer's folder)
 *   bracket DIR      searched for "name" and <name>, in this order
 *   scan HEX N       the lookups of a file whose bytes have SHA-256 HEX: the
 *                    N lines after it, each "KIND\tNAME" (closure.h)
 *   end              the last line: a memo a crash cut short (it is published
 *                    without fsync) is not one
 *
 * A memo is used while each missing folder is still missing. The scans are
 * of the files the compiler read that the scanner did not (its own headers):
 * a file's lookups depend on its bytes alone, and the digest of those is
 * taken for its read line anyway, so a step reads no header twice and scans
 * none another step scanned. A step that scanned a file rewrites the memo
 * with its record added (writers race: a record lost is scanned again);
 * past MEMO_MAX_SCANS records it keeps only the ones that step used.
 *
 * Left out: what clang's driver decides by looking at the file system before
 * it prints its list (which gcc installation to use, a multiarch folder it
 * adds only when it exists) is not recorded: a later change there is not seen.
 */
#include "key/searchlist.h"
#include "cache/cacheentry.h"
#include "key/deps.h"
#include "key/toolid.h"
#include "path.h"
#include "run.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MEMO_MAGIC "kwarm-searchlist 2\n"
#define MEMO_END "\nend\n"
#define MEMO_MAX_SCANS 4096

/* The lookups of one file's bytes. */
struct scan_record {
	struct strvec lookups;
	int used;	/* by this step */
};

struct chain {
	struct strvec missing, quote, bracket;
	struct strvec order;	/* the scans' digests, in the memo's order */
	struct hashmap scans;	/* digest -> struct scan_record */
	int learned;		/* the list is new: the memo is written */
	size_t added;		/* scans the memo does not hold yet */
};

static void chain_init(struct chain *c)
{
	strvec_init(&c->missing);
	strvec_init(&c->quote);
	strvec_init(&c->bracket);
	strvec_init(&c->order);
	hashmap_init(&c->scans);
	c->learned = 0;
	c->added = 0;
}

static void chain_release(struct chain *c)
{
	strvec_release(&c->missing);
	strvec_release(&c->quote);
	strvec_release(&c->bracket);
	strvec_release(&c->order);
	for (size_t i = 0; i < c->scans.nr; i++) {
		struct scan_record *r = c->scans.entries[i].value;

		strvec_release(&r->lookups);
		free(r);
	}
	hashmap_release(&c->scans);
}

static struct scan_record *add_scan(struct chain *c, const char *hex)
{
	struct scan_record *r = xcalloc(1, sizeof(*r));

	strvec_init(&r->lookups);
	hashmap_put(&c->scans, hex, r);
	strvec_push(&c->order, hex);
	return r;
}

/* Is l "KIND\tNAME" with a KIND closure.h names? */
static int lookup_line(const char *l)
{
	static const char *const kinds[] = {
		"quote", "angle", "quote-next", "angle-next", "macro", "has-quote", "has-angle"
	};
	const char *tab = strchr(l, '\t');

	for (size_t i = 0; tab && i < ARRAY_SIZE(kinds); i++)
		if ((size_t)(tab - l) == strlen(kinds[i]) && !strncmp(l, kinds[i], strlen(kinds[i])))
			return 1;
	return 0;
}

/* "scan HEX N" at lines->v[*i], and its N lines; 0, or -1 when malformed. */
static int parse_scan(struct chain *c, const struct strvec *lines, size_t *i)
{
	const char *l = lines->v[*i], *hex = l + 5;
	struct scan_record *r;
	char *end, name[DIGEST_HEX_SIZE];
	unsigned long n;

	if (strspn(hex, "0123456789abcdef") != 64 || hex[64] != ' ' || hex[65] < '0' ||
	    hex[65] > '9')
		return -1;
	errno = 0;
	n = strtoul(hex + 65, &end, 10);
	if (errno || *end || n > lines->nr - *i - 1)
		return -1;
	memcpy(name, hex, 64);
	name[64] = '\0';
	if (hashmap_get(&c->scans, name))
		return -1;
	r = add_scan(c, name);
	for (unsigned long k = 0; k < n; k++) {
		l = lines->v[++*i];
		if (!lookup_line(l))
			return -1;
		strvec_push(&r->lookups, l);
	}
	return 0;
}

/* The unit's flags for the learning run: all before "-o {out}" but the
 * dependency options, what would stop it before preprocessing and what would
 * leave files in the folder it runs in. */
static void learning_flags(const struct unit_command *uc, struct strvec *flags)
{
	for (size_t i = 1; i < uc->argv.nr; i++) {
		const char *w = uc->argv.v[i];
		size_t drop = deps_user_option(&uc->argv, i);

		if (!strcmp(w, "-o") && i + 1 < uc->argv.nr && !strcmp(uc->argv.v[i + 1], UNITKEY_OUT))
			break;
		if (drop)
			i += drop - 1;
		else if (strcmp(w, "-c") && strcmp(w, "-S") && strcmp(w, "-E") &&
			 !starts_with(w, "-save-temps"))
			strvec_push(flags, w);
	}
}

static void memo_name(const struct unit_command *uc, const char *tool, const struct strvec *flags, const char *suffix,
		      char hex[DIGEST_HEX_SIZE])
{
	struct digest d;

	digest_init(&d);
	digest_add_str(&d, "schema", "kwarm-searchlist-1");
	digest_add_str(&d, "compiler", tool);
	digest_add_str(&d, "root", uc->root);
	digest_add_str(&d, "suffix", suffix);
	digest_add_u64(&d, "flags", flags->nr);
	for (size_t i = 0; i < flags->nr; i++)
		digest_add_str(&d, "flag", flags->v[i]);
	for (size_t i = 0; unitkey_steering_env[i]; i++)
		digest_add_str(&d, unitkey_steering_env[i], getenv(unitkey_steering_env[i]) ?
			       getenv(unitkey_steering_env[i]) : "\n(unset)");
	for (size_t i = 0; i < uc->env.nr; i++)
		digest_add_str(&d, uc->env.v[i], getenv(uc->env.v[i]) ? getenv(uc->env.v[i])
								      : "\n(unset)");
	digest_final_hex(&d, hex);
}

/* The list -v printed into c. 0, or -1 when it is not there whole. */
static int parse_verbose(const char *text, struct chain *c)
{
	static const char quote_start[] = "#include \"...\" search starts here:";
	static const char bracket_start[] = "#include <...> search starts here:";
	static const char ignoring[] = "ignoring nonexistent directory \"";
	struct strvec lines = STRVEC_INIT, *into = NULL;
	int ret = -1;

	strvec_split_at(&lines, text, '\n');
	for (size_t i = 0; i < lines.nr; i++) {
		char *l = lines.v[i];
		size_t len = strlen(l);

		if (starts_with(l, ignoring) && len > strlen(ignoring) && l[len - 1] == '"')
			strvec_push_nodup(&c->missing, xstrndup(l + strlen(ignoring),
							       len - strlen(ignoring) - 1));
		else if (!strcmp(l, quote_start))
			into = &c->quote;
		else if (!strcmp(l, bracket_start))
			into = &c->bracket;
		else if (!strcmp(l, "End of search list.") && into == &c->bracket)
			ret = 0;
		else if (into && l[0] == ' ' && l[1] && !strstr(l, " (framework directory)"))
			strvec_push(into, l + 1);
		else if (into)
			break;	/* something this parser does not know: not learned */
		if (!ret)
			break;
	}
	strvec_release(&lines);
	return ret;
}

static int memo_read(struct closure_cache *cc, const char *root, const char *path,
		     struct chain *c)
{
	char *text = NULL;
	size_t len;
	struct strvec lines = STRVEC_INIT;
	int ret = -1;

	if (read_file_all(path, &text, &len) || !starts_with(text, MEMO_MAGIC) ||
	    strlen(text) != len || strcmp(text + len - strlen(MEMO_END), MEMO_END))
		goto out;
	text[len - strlen(MEMO_END) + 1] = '\0';
	strvec_split_at(&lines, text + strlen(MEMO_MAGIC), '\n');
	ret = 0;
	for (size_t i = 0; i < lines.nr && !ret; i++) {
		const char *l = lines.v[i];

		if (starts_with(l, "missing "))
			strvec_push(&c->missing, l + 8);
		else if (starts_with(l, "quote "))
			strvec_push(&c->quote, l + 6);
		else if (starts_with(l, "bracket "))
			strvec_push(&c->bracket, l + 8);
		else if (starts_with(l, "scan "))
			ret = parse_scan(c, &lines, &i);
		else if (*l)
			ret = -1;
	}
	if (ret) {
		/* Damaged: nothing of it is used. */
		chain_release(c);
		chain_init(c);
	}
	/* A folder that appeared since is searched now. Looked at as the
	 * places are, which look at it again. */
	for (size_t i = 0; i < c->missing.nr && !ret; i++) {
		char *abs = path_join(root, c->missing.v[i]);

		if (closure_probe(cc, abs) != CLOSURE_NONE)
			ret = -1;
		free(abs);
	}
out:
	strvec_release(&lines);
	free(text);
	return ret;
}

static void add_lines(struct buf *b, const char *what, const struct strvec *dirs)
{
	for (size_t i = 0; i < dirs->nr; i++)
		buf_addf(b, "%s %s\n", what, dirs->v[i]);
}

/* Best effort: without it the next compile learns the list again, or scans
 * the headers again. */
static void memo_write(const char *path, const struct chain *c)
{
	struct buf b = BUF_INIT, name = BUF_INIT;
	int all = c->order.nr <= MEMO_MAX_SCANS;

	buf_adds(&b, MEMO_MAGIC);
	add_lines(&b, "missing", &c->missing);
	add_lines(&b, "quote", &c->quote);
	add_lines(&b, "bracket", &c->bracket);
	for (size_t i = 0; i < c->order.nr; i++) {
		const struct scan_record *r = hashmap_get(&c->scans, c->order.v[i]);

		if (!all && !r->used)
			continue;
		buf_addf(&b, "scan %s %zu\n", c->order.v[i], r->lookups.nr);
		for (size_t k = 0; k < r->lookups.nr; k++)
			buf_addf(&b, "%s\n", r->lookups.v[k]);
	}
	buf_adds(&b, &MEMO_END[1]);
	cache_add_temp_name(&name, path, (long)getpid(), cache_temp_word());
	if (write_file(name.s, b.s, b.len) || rename(name.s, path))
		unlink(name.s);
	buf_release(&name);
	buf_release(&b);
}

/* Run the compiler on an empty file of the source's suffix, in the C locale
 * (the lines parsed are English). */
static int run_learning(const struct unit_command *uc, const struct strvec *flags,
			const char *memo_dir, const char *suffix, struct chain *c,
			struct buf *why)
{
	struct strvec argv = STRVEC_INIT;
	struct buf output = BUF_INIT;
	struct run_result res;
	char *empty = xstrfmt("%s/empty%s", memo_dir, suffix), *locale = getenv("LC_ALL");
	int fd, ret = -1;

	locale = locale ? xstrdup(locale) : NULL;
	fd = open(empty, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0) {
		error_errno_to(why, "cannot create '%s'", empty);
		goto out;
	}
	close(fd);
	strvec_push(&argv, uc->argv.v[0]);
	strvec_pushv(&argv, flags);
	strvec_push(&argv, "-E");
	strvec_push(&argv, "-v");
	strvec_push(&argv, empty);
	strvec_push(&argv, "-o");
	strvec_push(&argv, "/dev/null");
	setenv("LC_ALL", "C", 1);
	/* gcc would write the caller's dependency file for the empty source. */
	unsetenv("DEPENDENCIES_OUTPUT");
	unsetenv("SUNPRO_DEPENDENCIES");
	if (run_capture((const char *const *)argv.v, uc->root, &output, &res, why))
		goto out;
	if (!res.exited || res.status || parse_verbose(buf_str(&output), c))
		error_to(why, "'%s -E -v' with the unit's flags printed no search list",
			 uc->argv.v[0]);
	else
		ret = 0;
out:
	if (locale)
		setenv("LC_ALL", locale, 1);
	else
		unsetenv("LC_ALL");
	free(locale);
	free(empty);
	buf_release(&output);
	strvec_release(&argv);
	return ret;
}

/* The compiler's list for sources of suffix, from the memo at *path or
 * learned (c->learned). */
static int get_chain(struct closure_cache *cc, const struct unit_command *uc,
		     const char *memo_dir, const char *suffix, struct chain *c, char **path,
		     struct buf *why)
{
	struct strvec flags = STRVEC_INIT;
	char tool[DIGEST_HEX_SIZE], name[DIGEST_HEX_SIZE];
	int ret = 0;

	if (!memo_dir || strchr(suffix, '/')) {
		error_to(why, "no folder to learn the compiler's search list in");
		return -1;
	}
	if (!toolid_get(cc, uc->root, uc->argv.v[0], tool))
		return error_to(why, "cannot set up '%s' for the compiler's search list", memo_dir);
	learning_flags(uc, &flags);
	memo_name(uc, tool, &flags, suffix, name);
	*path = xstrfmt("%s/search-%s", memo_dir, name);
	if (memo_read(cc, uc->root, *path, c)) {
		/* The scans hold whatever the list is: kept. */
		strvec_clear(&c->missing);
		strvec_clear(&c->quote);
		strvec_clear(&c->bracket);
		c->learned = 1;
		if (mkdir_p(memo_dir))
			ret = error_to(why, "cannot set up '%s' for the compiler's search list",
				       memo_dir);
		else
			ret = run_learning(uc, &flags, memo_dir, suffix, c, why);
	}
	strvec_release(&flags);
	return ret;
}

/* What the lookups of one compile saw, for one list. */
struct prober {
	struct closure_cache *cc;
	const char *root;
	struct hashmap read;	/* absolute (physical) paths the compiler read */
	struct hashmap seen;	/* places given already */
	struct hashmap looked;	/* candidate -> 1 + whether a file is there */
	struct hashmap done;	/* lookups made (lookup_key), for this list */
	struct buf key;		/* lookup_key's room */
	struct strvec dirs;	/* the list, absolute: quote folders, then bracket */
	size_t quote;		/* how many of dirs are for "name" only */
	struct strvec macro_dirs;	/* folders of files with a macro-named #include */
	struct strvec *places;
};

static void note_once(struct prober *p, struct strvec *into, char *line)
{
	if (hashmap_get(&p->seen, line)) {
		free(line);
		return;
	}
	hashmap_put(&p->seen, line, (void *)1);
	strvec_push_nodup(into, line);
}

/* Look at cand (absolute), and note the place: 1 when a file is there. */
static int look_once(struct prober *p, const char *cand)
{
	char *parent, *top, *vis;
	int what;

	/* A file the compiler read is there while its read line holds, which
	 * the entry's use checks anyway. */
	if (hashmap_get(&p->read, cand))
		return 1;
	/* Its folder first: one look at a missing bits/ answers for every
	 * bits/NAME in it. */
	parent = path_dirname(cand);
	what = closure_probe(p->cc, parent) == CLOSURE_DIR ? closure_probe(p->cc, cand)
							   : CLOSURE_NONE;
	free(parent);
	if (what == CLOSURE_FILE) {
		vis = path_visible(p->root, cand);
		note_once(p, p->places, xstrfmt("file %s", vis));
		free(vis);
		return 1;
	}
	/* The outermost missing folder covers every name below it. */
	top = xstrdup(cand);
	while (what == CLOSURE_NONE && strcmp(top, "/")) {
		char *up = path_dirname(top);

		if (closure_probe(p->cc, up) != CLOSURE_NONE) {
			free(up);
			break;
		}
		free(top);
		top = up;
	}
	vis = path_visible(p->root, top);
	note_once(p, p->places, xstrfmt("%s %s", what == CLOSURE_DIR ? "folder" : "absent", vis));
	free(vis);
	free(top);
	return 0;
}

/* Most headers are looked for by many files: each place is noted once. */
static int look(struct prober *p, const char *cand)
{
	uintptr_t known = (uintptr_t)hashmap_get(&p->looked, cand);

	if (!known) {
		known = 1 + look_once(p, cand);
		hashmap_put(&p->looked, cand, (void *)known);
	}
	return known == 2;
}

/* What decides a lookup's places: a name in the list, or from a folder too. */
static const char *lookup_key(struct prober *p, int quoted, int all, const char *from,
			      const char *name)
{
	buf_reset(&p->key);
	buf_addch(&p->key, (char)('0' + quoted + 2 * all));
	if (quoted && name[0] != '/')
		buf_adds(&p->key, from);
	buf_addch(&p->key, '\n');
	buf_adds(&p->key, name);
	return p->key.s;
}

/* One lookup of name from the folder from (the includer's, as named). Many
 * headers make the same one: it is made once. */
static void lookup(struct prober *p, const char *from, const char *kind, const char *name)
{
	int quoted = strstr(kind, "quote") != NULL;
	/* #include_next starts after the includer's place, and __has_include
	 * may be either: every place is looked at. */
	int all = strstr(kind, "-next") || starts_with(kind, "has-");
	const char *key = lookup_key(p, quoted, all, from, name);
	char *cand;
	int hit;

	if (hashmap_get(&p->done, key))
		return;
	hashmap_put(&p->done, key, (void *)1);
	if (name[0] == '/') {
		cand = path_join_physical("/", name);
		look(p, cand);
		free(cand);
		return;
	}
	if (quoted) {
		cand = path_join_physical(from, name);
		hit = look(p, cand);
		free(cand);
		if (hit && !all)
			return;
	}
	for (size_t i = quoted ? 0 : p->quote; i < p->dirs.nr; i++) {
		cand = path_join_physical(p->dirs.v[i], name);
		hit = look(p, cand);
		free(cand);
		if (hit && !all)
			return;
	}
}

/* The lookups of a file the scanner did not read, by its digest: from the
 * memo, or read and scanned into it (keyed by the bytes scanned). 0, or -1
 * with errno set. */
static int memo_lookups(struct prober *p, struct chain *c, const char *abs,
			const struct strvec **out)
{
	char hex[DIGEST_HEX_SIZE], *text;
	struct scan_record *r;
	size_t len;

	if (!filehash_get(&p->cc->files, abs, hex) && (r = hashmap_get(&c->scans, hex)))
		goto found;
	if (read_file_all(abs, &text, &len))
		return -1;
	digest_bytes_hex(text, len, hex);
	r = hashmap_get(&c->scans, hex);
	if (!r) {
		r = add_scan(c, hex);
		closure_text_lookups(text, len, &r->lookups);
		c->added++;
	}
	free(text);
found:
	r->used = 1;
	*out = &r->lookups;
	return 0;
}

static int file_lookups(struct prober *p, struct chain *c, const char *named, const char *abs)
{
	struct strvec scanned = STRVEC_INIT;
	const struct strvec *lookups = &scanned;
	char *from;

	if (!closure_scanned_lookups(p->cc, abs, &scanned) && memo_lookups(p, c, abs, &lookups))
		return -1;
	from = path_dirname(named);
	for (size_t i = 0; i < lookups->nr; i++) {
		const char *l = lookups->v[i], *tab = strchr(l, '\t');
		size_t klen = (size_t)(tab - l);
		char kind[16];

		if (klen >= sizeof(kind))
			BUG("lookup kind of %zu bytes", klen);
		memcpy(kind, l, klen);
		kind[klen] = '\0';
		if (!strcmp(kind, "macro"))
			strvec_push(&p->macro_dirs, from);
		else if (tab[1])
			lookup(p, from, kind, tab + 1);
	}
	free(from);
	strvec_release(&scanned);
	return 0;
}

/* A macro-named #include names a file the compiler read, by a name not known
 * here: every name it may have had (its path below a folder it may have been
 * found in) is looked up in every place before that folder. */
static void macro_lookups(struct prober *p)
{
	struct strvec places = STRVEC_INIT;

	if (!p->macro_dirs.nr)
		return;
	for (size_t i = 0; i < p->macro_dirs.nr; i++)
		strvec_push_nodup(&places, path_join_physical(p->root, p->macro_dirs.v[i]));
	strvec_pushv(&places, &p->dirs);
	for (size_t r = 0; r < p->read.nr; r++) {
		const char *file = p->read.entries[r].key;

		for (size_t k = 0; k < places.nr; k++) {
			size_t len = strlen(places.v[k]);

			if (strncmp(file, places.v[k], len) || file[len] != '/')
				continue;
			for (size_t j = 0; j < k; j++) {
				char *cand = path_join_physical(places.v[j], file + len + 1);

				look(p, cand);
				free(cand);
			}
		}
	}
	strvec_release(&places);
}

/* The lookups no file names: the header gcc and clang include first on their
 * own (stdc-predef.h, when it exists), and each -include or -imacros FILE,
 * looked up from the folder the compile runs in first. Looked up whether or
 * not the compiler did: that costs a look. */
static void command_lookups(struct prober *p, const struct unit_command *uc)
{
	lookup(p, p->root, "angle", "stdc-predef.h");
	for (size_t i = 1; i + 1 < uc->argv.nr; i++) {
		const char *w = uc->argv.v[i];

		if (!strcmp(w, "-o") && !strcmp(uc->argv.v[i + 1], UNITKEY_OUT))
			break;
		if (!strcmp(w, "-include") || !strcmp(w, "-imacros"))
			lookup(p, p->root, "quote", uc->argv.v[++i]);
		else if (starts_with(w, "-include") || starts_with(w, "-imacros"))
			lookup(p, p->root, "quote", w + 8);
	}
}

static int probe_chain(struct prober *p, const struct unit_command *uc, struct chain *c,
		       const struct strvec *read, struct buf *why)
{
	for (size_t i = 0; i < c->missing.nr; i++) {
		char *abs = path_join_physical(p->root, c->missing.v[i]);

		look(p, abs);
		free(abs);
	}
	strvec_clear(&p->dirs);
	strvec_clear(&p->macro_dirs);
	hashmap_release(&p->done);
	hashmap_init(&p->done);
	for (size_t i = 0; i < c->quote.nr; i++)
		strvec_push_nodup(&p->dirs, path_join_physical(p->root, c->quote.v[i]));
	for (size_t i = 0; i < c->bracket.nr; i++)
		strvec_push_nodup(&p->dirs, path_join_physical(p->root, c->bracket.v[i]));
	p->quote = c->quote.nr;
	command_lookups(p, uc);
	for (size_t i = 0; i < read->nr; i++) {
		char *named = path_join(p->root, read->v[i]);
		char *abs = path_join_physical(p->root, read->v[i]);
		int ret = file_lookups(p, c, named, abs);

		free(abs);
		free(named);
		if (ret)
			return error_errno_to(why, "cannot read '%s', which the compiler read",
					      read->v[i]);
	}
	macro_lookups(p);
	return 0;
}

/* The suffix of path's file name ("" without one). */
static const char *suffix_of(const char *path)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(slash ? slash : path, '.');

	return dot ? dot : "";
}

int searchlist_probes(struct closure_cache *cc, const struct unit_command *uc,
		      const char *memo_dir, const struct strvec *read, struct strvec *places,
		      struct buf *why)
{
	struct prober p = { .cc = cc, .root = uc->root, .dirs = STRVEC_INIT,
			    .macro_dirs = STRVEC_INIT, .key = BUF_INIT, .places = places };
	struct strvec sources = STRVEC_INIT, dirs = STRVEC_INIT, suffixes = STRVEC_INIT;
	int ret = 0;

	hashmap_init(&p.read);
	hashmap_init(&p.seen);
	hashmap_init(&p.looked);
	hashmap_init(&p.done);
	for (size_t i = 0; i < read->nr; i++) {
		char *abs = path_join_physical(uc->root, read->v[i]);

		hashmap_put(&p.read, abs, (void *)1);
		free(abs);
	}
	unit_command_inputs(uc, &sources, &dirs);
	for (size_t i = 0; i < sources.nr; i++)
		if (strvec_find(&suffixes, suffix_of(sources.v[i])) < 0)
			strvec_push(&suffixes, suffix_of(sources.v[i]));
	/* Sources of several languages: each file is looked up in every list. */
	for (size_t i = 0; i < suffixes.nr && !ret; i++) {
		struct chain c;
		char *path = NULL;

		chain_init(&c);
		ret = get_chain(cc, uc, memo_dir, suffixes.v[i], &c, &path, why) ||
		      probe_chain(&p, uc, &c, read, why) ? -1 : 0;
		if (!ret && (c.learned || c.added))
			memo_write(path, &c);
		free(path);
		chain_release(&c);
	}
	qsort(places->v, places->nr, sizeof(char *), strvec_cmp);
	strvec_release(&sources);
	strvec_release(&dirs);
	strvec_release(&suffixes);
	strvec_release(&p.dirs);
	strvec_release(&p.macro_dirs);
	hashmap_release(&p.read);
	hashmap_release(&p.seen);
	hashmap_release(&p.looked);
	hashmap_release(&p.done);
	buf_release(&p.key);
	return ret;
}

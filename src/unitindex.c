#include "unitindex.h"
#include "plan.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER_SIZE 32
#define RECORD_SIZE 76	/* 64 hex, blank, 10 digits, newline */
#define MAX_DATA 65536	/* the longest data line read back */

static int by_key(const void *a, const void *b)
{
	const struct plan_unit *x = *(struct plan_unit *const *)a, *y = *(struct plan_unit *const *)b;

	return strcmp(x->key, y->key);
}

/* Text for a field: a tab or newline would end it early. */
static void add_field(struct buf *b, const char *s)
{
	for (; *s; s++)
		buf_addch(b, *s == '\t' || *s == '\n' ? '?' : *s);
}

void unitindex_format(const struct plan *plan, struct buf *out)
{
	struct plan_unit **units = xcalloc(plan->nr_units + 1, sizeof(*units));
	struct buf data = BUF_INIT;
	size_t *at = xcalloc(plan->nr_units + 1, sizeof(*at));
	size_t base = HEADER_SIZE + plan->nr_units * RECORD_SIZE;

	for (size_t i = 0; i < plan->nr_units; i++)
		units[i] = plan->units[i];
	qsort(units, plan->nr_units, sizeof(*units), by_key);
	for (size_t i = 0; i < plan->nr_units; i++) {
		const struct plan_unit *u = units[i];

		at[i] = base + data.len;
		for (size_t j = 0; j < u->owners.nr; j++) {
			if (j)
				buf_addch(&data, ',');
			add_field(&data, u->owners.v[j]);
		}
		buf_addch(&data, '\t');
		add_field(&data, u->id);
		buf_addch(&data, '\t');
		add_field(&data, u->label);
		buf_addch(&data, '\n');
	}
	buf_addf(out, "kwarm-index 1 %017zu\n", plan->nr_units);
	for (size_t i = 0; i < plan->nr_units; i++)
		buf_addf(out, "%s %010zu\n", units[i]->key, at[i]);
	buf_add(out, data.s ? data.s : "", data.len);
	buf_release(&data);
	free(at);
	free(units);
}

static int read_at(int fd, char *buf, size_t len, off_t at)
{
	ssize_t n = pread(fd, buf, len, at);

	return n == (ssize_t)len ? 0 : -1;
}

int unitindex_lookup(const char *path, const char *key, struct unitindex_entry *e)
{
	char head[HEADER_SIZE + 1], rec[RECORD_SIZE + 1], *data = NULL, *tab1, *tab2, *nl;
	size_t lo = 0, hi, count;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;
	ssize_t n;

	memset(e, 0, sizeof(*e));
	if (fd < 0)
		return error_errno("cannot read the unit index '%s'", path);
	if (read_at(fd, head, HEADER_SIZE, 0) || memcmp(head, "kwarm-index 1 ", 14))
		goto bad;
	head[HEADER_SIZE] = '\0';
	count = strtoul(head + 14, NULL, 10);
	for (hi = count; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp;

		if (read_at(fd, rec, RECORD_SIZE, (off_t)(HEADER_SIZE + mid * RECORD_SIZE)))
			goto bad;
		cmp = strncmp(rec, key, 64);
		if (!cmp) {
			rec[RECORD_SIZE] = '\0';
			data = xmalloc(MAX_DATA + 1);
			n = pread(fd, data, MAX_DATA, (off_t)strtoull(rec + 65, NULL, 10));
			if (n <= 0)
				goto bad;
			data[n] = '\0';
			tab1 = strchr(data, '\t');
			tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
			nl = tab2 ? strchr(tab2 + 1, '\n') : NULL;
			if (!nl)
				goto bad;
			e->owners = xstrndup(data, (size_t)(tab1 - data));
			e->id = xstrndup(tab1 + 1, (size_t)(tab2 - tab1 - 1));
			e->label = xstrndup(tab2 + 1, (size_t)(nl - tab2 - 1));
			ret = 1;
			goto out;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	ret = 0;
	goto out;
bad:
	ret = error("'%s' is not a unit index kwarm gen wrote", path);
out:
	free(data);
	close(fd);
	return ret;
}

void unitindex_entry_release(struct unitindex_entry *e)
{
	free(e->owners);
	free(e->id);
	free(e->label);
	memset(e, 0, sizeof(*e));
}

/* made: the run's table of the entries its compile steps published (made.h,
 * where its format is). */
#include "report/made.h"
#include "key/digest.h"
#include "path.h"
#include "util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define SLOT_SIZE (2 * (DIGEST_HEX_SIZE - 1))
/* Probes before a key is given up on (then its entry is checked). */
#define MAX_PROBES 64

/* The table's path, and its slots: 0 when the run's total is not known. */
static char *table_path(struct runstate *rs, uint64_t *slots)
{
	*slots = 0;
	if (!runstate_total_fixed(rs) || rs->total < 0)
		return NULL;
	*slots = 2 * (uint64_t)rs->total < 32 ? 32 : 2 * (uint64_t)rs->total;
	return path_join(rs->dir, "made");
}

/* The slot index where key's probes start. */
static uint64_t first_slot(const char *key, uint64_t slots)
{
	char head[16];

	memcpy(head, key, 15);
	head[15] = '\0';
	return strtoull(head, NULL, 16) % slots;
}

/* Find key's slot: its own, or else the first free one on its way; slot i
 * read into rec (zeros when free). 0, or -1 when none is in reach. */
static int find_slot(int fd, uint64_t slots, const char *key, uint64_t *i,
		     char rec[SLOT_SIZE])
{
	uint64_t at = first_slot(key, slots);

	for (int n = 0; n < MAX_PROBES && (uint64_t)n < slots; n++, at = (at + 1) % slots) {
		ssize_t got = pread(fd, rec, SLOT_SIZE, (off_t)(at * SLOT_SIZE));

		if (got < 0)
			return -1;
		if (got < SLOT_SIZE)
			memset(rec + got, 0, SLOT_SIZE - (size_t)got);
		if (!rec[0] || !memcmp(rec, key, DIGEST_HEX_SIZE - 1)) {
			*i = at;
			return 0;
		}
	}
	return -1;
}

void made_mark(struct runstate *rs, const char *key, const char *sha)
{
	uint64_t slots, i;
	char *path = table_path(rs, &slots), rec[SLOT_SIZE];
	int fd = path ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666) : -1;

	if (fd >= 0 && !flock_retry(fd, LOCK_EX) && !find_slot(fd, slots, key, &i, rec)) {
		memcpy(rec, key, DIGEST_HEX_SIZE - 1);
		memcpy(rec + DIGEST_HEX_SIZE - 1, sha, DIGEST_HEX_SIZE - 1);
		(void)pwrite(fd, rec, SLOT_SIZE, (off_t)(i * SLOT_SIZE));
	}
	if (fd >= 0)
		close(fd);	/* drops the flock */
	free(path);
}

void made_init(struct made_table *t, struct runstate *rs)
{
	t->rs = rs;
	t->fd = -1;
	t->slots = 0;
}

int made_has(struct made_table *t, const char *key, const char *sha)
{
	char rec[SLOT_SIZE];
	uint64_t i;

	if (t->rs) {
		char *path = table_path(t->rs, &t->slots);

		t->fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
		t->rs = NULL;
		free(path);
	}
	return t->fd >= 0 && !find_slot(t->fd, t->slots, key, &i, rec) && rec[0] &&
	       (!sha || !memcmp(rec + DIGEST_HEX_SIZE - 1, sha, DIGEST_HEX_SIZE - 1));
}

void made_close(struct made_table *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	t->rs = NULL;
}

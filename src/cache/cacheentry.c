#include "cache/cacheentry.h"
#include "cache/cache.h"
#include "os.h"
#include "path.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define TEMP_MARK ".tmp."
#define PROBE_PREFIX "probe."

/* By hand, not buf_addf: gen writes two such paths a unit. */
void cache_add_unit_name(struct buf *b, const char *key)
{
	buf_add(b, key, *key ? 1 : 0);
	buf_addch(b, '/');
	buf_adds(b, key);
}

int cache_for_each_unit_name(const char *dir, cache_unit_name_fn *fn, void *data)
{
	char *units = path_join(dir, CACHE_UNITS_DIR);
	DIR *top = opendir(units), *sub;
	struct dirent *de, *e;
	struct buf name = BUF_INIT;
	int ret = top ? 0 : -1;

	while (top && (de = readdir(top))) {
		if (de->d_name[0] == '.')
			continue;
		buf_reset(&name);
		buf_addf(&name, "%s/%s", units, de->d_name);
		sub = opendir(name.s);
		if (!sub) {
			if (errno != ENOTDIR)
				ret = -1;
			continue;
		}
		while ((e = readdir(sub))) {
			buf_reset(&name);
			buf_addf(&name, "%s/%s", de->d_name, e->d_name);
			fn(name.s, data);
		}
		closedir(sub);
	}
	if (top)
		closedir(top);
	buf_release(&name);
	free(units);
	return ret;
}

void cache_add_unit_path(struct buf *b, const char *dir, const char *key, const char *suffix)
{
	buf_adds(b, dir);
	buf_adds(b, "/" CACHE_UNITS_DIR "/");
	cache_add_unit_name(b, key);
	buf_adds(b, suffix);
}

char *cache_unit_path(const struct cache *c, const char *key, const char *suffix)
{
	struct buf b = BUF_INIT;

	cache_add_unit_path(&b, c->dir, key, suffix);
	return buf_detach(&b);
}

#define DIGITS "0123456789"

static int is_hex(const char *s, size_t n)
{
	return strspn(s, DIGITS "abcdef") >= n;
}

int cache_entry_name_key(const char *name, char key[DIGEST_HEX_SIZE])
{
	if (!is_hex(name, 64) || strcmp(name + 64, CACHE_ENTRY_SUFFIX))
		return 0;
	memcpy(key, name, 64);
	key[64] = '\0';
	return 1;
}

void cache_add_temp_name(struct buf *b, const char *final, long pid, uint32_t word)
{
	buf_addf(b, "%s" TEMP_MARK "%ld.%08x", final, pid, (unsigned)word);
}

uint32_t cache_temp_word(void)
{
	static uint32_t counter;
	uint32_t r;
	struct timespec ts;

	if (!os_random(&r, sizeof(r)))
		return r;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)ts.tv_nsec ^ (++counter * 2654435761u);
}

char *cache_fresh_temp_name(const char *final, long pid, unsigned number)
{
	for (int attempt = 0; ; attempt++) {
		uint32_t word = (cache_temp_word() & ~(uint32_t)0xf) | (number & 0xf);
		struct buf b = BUF_INIT;
		struct stat st;

		cache_add_temp_name(&b, final, pid, word);
		/* A name in use: a temp left by a killed process of this pid
		 * (not gone if it has not been pruned since). 100 draws only
		 * when lstat cannot tell: the step says why. */
		if (attempt >= 100 || (lstat(b.s, &st) && errno == ENOENT))
			return buf_detach(&b);
		buf_release(&b);
	}
}

long cache_temp_name_pid(const char *name)
{
	size_t n = strlen(name), mark = strlen(TEMP_MARK);
	const char *p, *end = name + n - 9;

	if (n < 9 || *end != '.' || !is_hex(end + 1, 8))
		return -1;
	/* The pid's digits, and ".tmp." just before them. */
	for (p = end; p > name && p[-1] >= '0' && p[-1] <= '9'; p--)
		;
	if (p == end || (size_t)(p - name) < mark ||
	    strncmp(p - mark, TEMP_MARK, mark))
		return -1;
	return strtol(p, NULL, 10);
}

char *cache_probe_path(const char *dir, long pid)
{
	return xstrfmt("%s/" CACHE_PROBES_DIR "/" PROBE_PREFIX "%ld", dir, pid);
}

long cache_probe_name_pid(const char *name)
{
	const char *p = name + strlen(PROBE_PREFIX);

	if (starts_with(name, PROBE_PREFIX) && *p && !p[strspn(p, DIGITS)])
		return strtol(p, NULL, 10);
	return -1;
}

int cache_temp_orphaned(long pid, double mtime, double now)
{
	return !os_pid_alive(pid) || now - mtime > CACHE_TEMP_MAX_AGE;
}

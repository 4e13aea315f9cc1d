#include "hashmap.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_string(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

void hashmap_init(struct hashmap *map)
{
	memset(map, 0, sizeof(*map));
}

void hashmap_release(struct hashmap *map)
{
	for (size_t i = 0; i < map->nr; i++)
		free(map->entries[i].key);
	free(map->entries);
	free(map->slots);
	hashmap_init(map);
}

static size_t *find_slot(const struct hashmap *map, const char *key)
{
	size_t mask = map->nr_slots - 1, i = (size_t)hash_string(key) & mask;

	for (;; i = (i + 1) & mask) {
		size_t *slot = &map->slots[i];

		if (!*slot || !strcmp(map->entries[*slot - 1].key, key))
			return slot;
	}
}

static void rehash(struct hashmap *map)
{
	free(map->slots);
	map->nr_slots = map->nr_slots ? map->nr_slots * 2 : 64;
	map->slots = xcalloc(map->nr_slots, sizeof(size_t));
	for (size_t i = 0; i < map->nr; i++)
		*find_slot(map, map->entries[i].key) = i + 1;
}

void *hashmap_get(const struct hashmap *map, const char *key)
{
	size_t *slot;

	if (!map->nr_slots)
		return NULL;
	slot = find_slot(map, key);
	return *slot ? map->entries[*slot - 1].value : NULL;
}

void *hashmap_put(struct hashmap *map, const char *key, void *value)
{
	size_t *slot;

	if ((map->nr + 1) * 2 > map->nr_slots)
		rehash(map);
	slot = find_slot(map, key);
	if (*slot) {
		void *old = map->entries[*slot - 1].value;

		map->entries[*slot - 1].value = value;
		return old;
	}
	ALLOC_GROW(map->entries, map->nr + 1, map->alloc);
	map->entries[map->nr].key = xstrdup(key);
	map->entries[map->nr].value = value;
	*slot = ++map->nr;
	return NULL;
}

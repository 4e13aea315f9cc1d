#include "hashmap.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Eight bytes at a time, multiplied and folded (gen hashes a few long paths
 * a unit; a byte-at-a-time FNV-1a was most of each lookup). Only the slot
 * order depends on it, never the entries' order. */
static uint64_t mix(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	return h;
}

static uint64_t hash_string(const char *s)
{
	size_t n = strlen(s);
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = mix(h ^ w);
	}
	w = 0;
	memcpy(&w, s, n);
	return mix(h ^ w ^ ((uint64_t)n << 59));
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

/* The slot of key, or the empty one where it would go. The hash kept in
 * each slot spares reading other entries' keys (gen's maps hold 100k paths). */
static struct hashmap_slot *find_slot(const struct hashmap *map, const char *key, uint64_t hash)
{
	size_t mask = map->nr_slots - 1, i = (size_t)hash & mask;

	for (;; i = (i + 1) & mask) {
		struct hashmap_slot *slot = &map->slots[i];

		if (!slot->index ||
		    (slot->hash == hash && !strcmp(map->entries[slot->index - 1].key, key)))
			return slot;
	}
}

/* Into nr_slots slots (a power of two, more than the map holds). */
static void rehash(struct hashmap *map, size_t nr_slots)
{
	struct hashmap_slot *old = map->slots;
	size_t old_nr = map->nr_slots;

	map->nr_slots = nr_slots;
	map->slots = xcalloc(map->nr_slots, sizeof(*map->slots));
	for (size_t i = 0; i < old_nr; i++) {
		size_t j = (size_t)old[i].hash & (map->nr_slots - 1);

		if (!old[i].index)
			continue;
		while (map->slots[j].index)
			j = (j + 1) & (map->nr_slots - 1);
		map->slots[j] = old[i];
	}
	free(old);
}

void hashmap_reserve(struct hashmap *map, size_t n)
{
	size_t nr_slots = map->nr_slots ? map->nr_slots : 32;

	while (n * 2 > nr_slots)
		nr_slots *= 2;
	if (nr_slots != map->nr_slots)
		rehash(map, nr_slots);
	if (n > map->alloc) {
		map->entries = xrealloc(map->entries, n * sizeof(*map->entries));
		map->alloc = n;
	}
}

void *hashmap_get(const struct hashmap *map, const char *key)
{
	struct hashmap_slot *slot;

	if (!map->nr_slots)
		return NULL;
	slot = find_slot(map, key, hash_string(key));
	return slot->index ? map->entries[slot->index - 1].value : NULL;
}

void *hashmap_put(struct hashmap *map, const char *key, void *value)
{
	uint64_t hash = hash_string(key);
	struct hashmap_slot *slot;

	/* 32 slots of 16 bytes: under glibc's 1 KiB "large" requests, each of
	 * which consolidates the free lists first (gen makes two small maps a
	 * unit). */
	if ((map->nr + 1) * 2 > map->nr_slots)
		rehash(map, map->nr_slots ? map->nr_slots * 2 : 32);
	slot = find_slot(map, key, hash);
	if (slot->index) {
		void *old = map->entries[slot->index - 1].value;

		map->entries[slot->index - 1].value = value;
		return old;
	}
	ALLOC_GROW(map->entries, map->nr + 1, map->alloc);
	map->entries[map->nr].key = xstrdup(key);
	map->entries[map->nr].value = value;
	slot->index = ++map->nr;
	slot->hash = hash;
	return NULL;
}

/* hashmap: string keys to pointers, open addressing, insertion order kept. */
#ifndef KWARM_HASHMAP_H
#define KWARM_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct hashmap_entry {
	char *key;	/* owned copy */
	void *value;	/* not owned */
};

struct hashmap_slot {
	size_t index;			/* index + 1 into entries; 0 = empty */
	uint64_t hash;			/* of that entry's key */
};

struct hashmap {
	struct hashmap_entry *entries;	/* in insertion order */
	size_t nr, alloc;
	struct hashmap_slot *slots;
	size_t nr_slots;		/* power of two */
};

void hashmap_init(struct hashmap *map);
/* Frees the keys; values are the caller's. */
void hashmap_release(struct hashmap *map);
/* Make room for n keys in all, so that filling the map moves nothing. */
void hashmap_reserve(struct hashmap *map, size_t n);
/* The value stored under key, or NULL. */
void *hashmap_get(const struct hashmap *map, const char *key);
/* Store value under key, replacing any; returns the previous value or NULL. */
void *hashmap_put(struct hashmap *map, const char *key, void *value);

#endif

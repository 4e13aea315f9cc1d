#include "check.h"
#include "hashmap.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NKEYS 5000

static void *val(uintptr_t n)
{
	return (void *)n;
}

static void test_basic(void)
{
	struct hashmap map;
	char key[] = "alpha";
	int a = 1, b = 2, c = 3;

	hashmap_init(&map);
	CHECK(hashmap_get(&map, "alpha") == NULL);	/* empty map */
	CHECK(hashmap_put(&map, key, &a) == NULL);
	key[0] = 'X';	/* the map keeps its own copy of the key */
	CHECK(hashmap_get(&map, "alpha") == &a);
	CHECK(hashmap_get(&map, "Xlpha") == NULL);
	CHECK(hashmap_put(&map, "beta", &b) == NULL);
	CHECK(hashmap_get(&map, "beta") == &b);
	/* Replace returns the old value and keeps one entry. */
	CHECK(hashmap_put(&map, "alpha", &c) == &a);
	CHECK(hashmap_get(&map, "alpha") == &c);
	CHECK_INT(map.nr, 2);
	/* Missing keys, including prefixes and extensions of present ones. */
	CHECK(hashmap_get(&map, "alph") == NULL);
	CHECK(hashmap_get(&map, "alphaa") == NULL);
	CHECK(hashmap_get(&map, "") == NULL);
	/* The empty string is a key like any other; NULL is a storable value. */
	CHECK(hashmap_put(&map, "", &b) == NULL);
	CHECK(hashmap_get(&map, "") == &b);
	CHECK(hashmap_put(&map, "", NULL) == &b);
	CHECK(hashmap_get(&map, "") == NULL);
	CHECK_INT(map.nr, 3);
	hashmap_release(&map);
	CHECK_INT(map.nr, 0);
	CHECK(hashmap_get(&map, "alpha") == NULL);
	/* Usable again after release. */
	CHECK(hashmap_put(&map, "again", &a) == NULL);
	CHECK(hashmap_get(&map, "again") == &a);
	hashmap_release(&map);
}

static void test_many(void)
{
	struct hashmap map;
	char key[32];
	int bad_get = 0, bad_order = 0, bad_missing = 0;
	size_t slots_before;

	hashmap_init(&map);
	hashmap_put(&map, "k0", val(1));
	slots_before = map.nr_slots;
	for (uintptr_t i = 1; i < NKEYS; i++) {
		snprintf(key, sizeof(key), "k%lu", (unsigned long)i);
		if (hashmap_put(&map, key, val(i + 1)) != NULL)
			bad_get++;
	}
	CHECK_INT(bad_get, 0);
	CHECK_INT(map.nr, NKEYS);
	CHECK(map.nr_slots > slots_before);	/* it did rehash */
	CHECK(map.nr_slots >= 2 * map.nr);	/* and keeps the load at most one half */
	CHECK_INT(map.nr_slots & (map.nr_slots - 1), 0);

	for (uintptr_t i = 0; i < NKEYS; i++) {
		snprintf(key, sizeof(key), "k%lu", (unsigned long)i);
		if (hashmap_get(&map, key) != val(i + 1))
			bad_get++;
		/* Entries stay in insertion order across every rehash. */
		if (strcmp(map.entries[i].key, key) || map.entries[i].value != val(i + 1))
			bad_order++;
		snprintf(key, sizeof(key), "m%lu", (unsigned long)i);
		if (hashmap_get(&map, key) != NULL)
			bad_missing++;
	}
	CHECK_INT(bad_get, 0);
	CHECK_INT(bad_order, 0);
	CHECK_INT(bad_missing, 0);

	/* Replacing keeps the entry where it was first inserted. */
	CHECK(hashmap_put(&map, "k17", val(999)) == val(18));
	CHECK_INT(map.nr, NKEYS);
	CHECK_STR(map.entries[17].key, "k17");
	CHECK(map.entries[17].value == val(999));
	CHECK(hashmap_get(&map, "k17") == val(999));
	hashmap_release(&map);
}

/* A reserved map keeps its keys, and filling it up to the reservation
 * moves neither its slots nor its entries. */
static void test_reserve(void)
{
	struct hashmap map;
	struct hashmap_slot *slots;
	struct hashmap_entry *entries;
	char key[32];

	hashmap_init(&map);
	CHECK(hashmap_put(&map, "first", val(1)) == NULL);
	hashmap_reserve(&map, NKEYS);
	CHECK(hashmap_get(&map, "first") == val(1));
	slots = map.slots;
	entries = map.entries;
	for (uintptr_t i = 1; i < NKEYS; i++) {
		snprintf(key, sizeof(key), "key%lu", (unsigned long)i);
		CHECK(hashmap_put(&map, key, val(i)) == NULL);
	}
	CHECK(map.slots == slots);
	CHECK(map.entries == entries);
	CHECK_INT(map.nr, NKEYS);
	CHECK(hashmap_get(&map, "key4999") == val(4999));
	CHECK(hashmap_get(&map, "first") == val(1));
	hashmap_release(&map);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_basic(), "basic");
	TEST(test_many(), "many");
	TEST(test_reserve(), "reserve");
	return check_done();
}

#include "check.h"
#include "batchread.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *top;

/* A file of len bytes, byte i being 'a' + (i + seed) % 26. Caller frees. */
static char *make_file(const char *dir, const char *name, size_t len, int seed)
{
	char *path = xstrfmt("%s/%s", dir, name), *data = xmalloc(len + 1);

	for (size_t i = 0; i < len; i++)
		data[i] = (char)('a' + (i + (size_t)seed) % 26);
	check_write_file(path, data, len, 0644);
	free(data);
	return path;
}

/* file's data is the len bytes make_file wrote with seed, NUL-terminated. */
static void check_content(const struct batchread_file *file, size_t len, int seed)
{
	int same = 1;

	if (!CHECK(file->data))
		return;
	CHECK_INT(file->len, len);
	for (size_t i = 0; i < len && same; i++)
		same = file->data[i] == (char)('a' + (i + (size_t)seed) % 26);
	CHECK(same);
	CHECK_INT(file->data[len], 0);
}

/* Files are given whole or not at all: empty, small and one byte short of
 * the room are read; exactly the room, past it, a folder, a missing file and
 * a path through a file are left to the caller. */
static void test_whole_or_nothing(void)
{
	char *dir = check_fresh_dir(top, "whole");
	char *paths[] = {
		make_file(dir, "empty", 0, 0),
		make_file(dir, "small", 10, 1),
		make_file(dir, "under", BATCHREAD_ROOM - 1, 2),
		make_file(dir, "at", BATCHREAD_ROOM, 3),
		make_file(dir, "over", BATCHREAD_ROOM + 1, 4),
		xstrdup(dir),
		xstrfmt("%s/missing", dir),
		xstrfmt("%s/small/x", dir),
	};
	struct batchread_file files[ARRAY_SIZE(paths)];
	struct batchread *br = batchread_new();

	if (!CHECK(br))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		files[i].path = paths[i];
	batchread_run(br, files, ARRAY_SIZE(paths));
	check_content(&files[0], 0, 0);
	check_content(&files[1], 10, 1);
	check_content(&files[2], BATCHREAD_ROOM - 1, 2);
	for (size_t i = 3; i < ARRAY_SIZE(paths); i++) {
		CHECK(!files[i].data);
		CHECK_INT(files[i].len, 0);
	}
	batchread_free(br);
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		free(paths[i]);
	free(dir);
}

/* Full batches, again and again: each file's bytes are its own (the slots
 * and rooms are reused), and a failure in one batch leaves the next whole. */
static void test_batches_again(void)
{
	char *dir = check_fresh_dir(top, "again");
	char *paths[BATCHREAD_FILES];
	struct batchread_file files[BATCHREAD_FILES];
	struct batchread *br = batchread_new();

	if (!CHECK(br))
		return;
	for (int i = 0; i < BATCHREAD_FILES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		paths[i] = make_file(dir, name, (size_t)(100 + 37 * i), i);
	}
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < BATCHREAD_FILES; i++)
			files[i].path = paths[(i + round) % BATCHREAD_FILES];
		/* The second round has a missing file among them. */
		if (round == 1)
			files[5].path = "/nonexistent/kwarm-batchread";
		batchread_run(br, files, BATCHREAD_FILES);
		for (int i = 0; i < BATCHREAD_FILES; i++) {
			int f = (i + round) % BATCHREAD_FILES;

			if (round == 1 && i == 5)
				CHECK(!files[i].data);
			else
				check_content(&files[i], (size_t)(100 + 37 * f), f);
		}
	}
	batchread_free(br);
	for (int i = 0; i < BATCHREAD_FILES; i++)
		free(paths[i]);
	free(dir);
}

/* KWARM_IO_URING=0 gives no reader, and no reader reads nothing. */
static void test_turned_off(void)
{
	struct batchread_file file = { .path = "/etc/hostname", .data = "x", .len = 1 };

	setenv("KWARM_IO_URING", "0", 1);
	CHECK(!batchread_new());
	unsetenv("KWARM_IO_URING");
	batchread_run(NULL, &file, 1);
	CHECK(!file.data);
	CHECK_INT(file.len, 0);
}

int main(int argc, char **argv)
{
	struct batchread *probe;

	check_init(argc, argv);
	if (argc < 2 || strcmp(argv[1], "--list")) {
		unsetenv("KWARM_IO_URING");
		probe = batchread_new();
		if (!probe) {
			fprintf(stderr, "SKIP: this kernel gives no io_uring (disabled, or refused "
				"by a seccomp filter): gen reads its sources one at a time\n");
			return 77;
		}
		batchread_free(probe);
	}
	top = check_tmpdir("batchread");
	TEST(test_whole_or_nothing(), "whole_or_nothing");
	TEST(test_batches_again(), "batches_again");
	TEST(test_turned_off(), "turned_off");
	free(top);
	return check_done();
}

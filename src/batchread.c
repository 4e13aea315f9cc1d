#include "batchread.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Each file is one chain of four requests, each run whatever the one before
 * returned (hard links): open into a slot of the ring's own file table, read
 * up to the room, read one more byte (0: that was the end), close the slot.
 * The slots are the ring's, not the process's descriptors: another thread's
 * open never gets one, and a ring torn down closes what it holds. */
enum step { STEP_OPEN, STEP_READ, STEP_END, STEP_CLOSE, STEPS };

struct batchread {
	struct io_uring ring;
	char *room;		/* BATCHREAD_FILES rooms of BATCHREAD_ROOM + 1 bytes */
	char past_end[BATCHREAD_FILES];
	int broken;		/* the ring failed once: every file is left to the caller */
};

struct batchread *batchread_new(void)
{
	const char *knob = getenv("KWARM_IO_URING");
	struct io_uring_params params;
	struct batchread *br;

	if (knob && !strcmp(knob, "0"))
		return NULL;
	br = xcalloc(1, sizeof(*br));
	memset(&params, 0, sizeof(params));
	if (io_uring_queue_init_params(BATCHREAD_FILES * STEPS, &br->ring, &params)) {
		free(br);
		return NULL;
	}
	/* The end-of-file read goes on from where the first one stopped. */
	if (!(params.features & IORING_FEAT_RW_CUR_POS) ||
	    io_uring_register_files_sparse(&br->ring, BATCHREAD_FILES)) {
		io_uring_queue_exit(&br->ring);
		free(br);
		return NULL;
	}
	br->room = xmalloc((size_t)BATCHREAD_FILES * (BATCHREAD_ROOM + 1));
	return br;
}

void batchread_free(struct batchread *br)
{
	if (!br)
		return;
	io_uring_queue_exit(&br->ring);
	free(br->room);
	free(br);
}

static char *room_of(struct batchread *br, size_t i)
{
	return br->room + i * (BATCHREAD_ROOM + 1);
}

/* Queue file i's chain; 0, or -1 when the ring has no room (not expected:
 * it was sized for a whole batch). */
static int queue_chain(struct batchread *br, size_t i, const char *path)
{
	struct io_uring_sqe *sqe[STEPS];

	for (int s = 0; s < STEPS; s++)
		if (!(sqe[s] = io_uring_get_sqe(&br->ring)))
			return -1;
	/* No O_CLOEXEC: a slot is no descriptor of the process, and the
	 * kernel refuses the flag there. */
	io_uring_prep_openat_direct(sqe[STEP_OPEN], AT_FDCWD, path, O_RDONLY, 0,
				    (unsigned)i);
	io_uring_prep_read(sqe[STEP_READ], (int)i, room_of(br, i), BATCHREAD_ROOM, (uint64_t)-1);
	io_uring_prep_read(sqe[STEP_END], (int)i, &br->past_end[i], 1, (uint64_t)-1);
	io_uring_prep_close_direct(sqe[STEP_CLOSE], (unsigned)i);
	for (int s = 0; s < STEPS; s++) {
		io_uring_sqe_set_data64(sqe[s], (uint64_t)i * STEPS + (uint64_t)s);
		if (s != STEP_CLOSE)
			sqe[s]->flags |= IOSQE_IO_HARDLINK;
		if (s == STEP_READ || s == STEP_END)
			sqe[s]->flags |= IOSQE_FIXED_FILE;
	}
	return 0;
}

/* Submit what is queued and wait for every completion of what the kernel
 * took: how many came. Fewer than queued means the ring failed. */
static size_t submit_all(struct batchread *br, size_t queued, int res[][STEPS])
{
	size_t submitted, done = 0;
	int ret;

	do
		ret = io_uring_submit_and_wait(&br->ring, (unsigned)queued);
	while (ret == -EINTR && io_uring_sq_ready(&br->ring) == queued);
	submitted = queued - io_uring_sq_ready(&br->ring);
	while (done < submitted) {
		struct io_uring_cqe *cqe;
		uint64_t tag;

		ret = io_uring_wait_cqe(&br->ring, &cqe);
		if (ret == -EINTR)
			continue;
		/* Nothing more can be waited for: the slots stay with the ring,
		 * which closes them when it is torn down. */
		if (ret < 0)
			break;
		tag = io_uring_cqe_get_data64(cqe);
		res[tag / STEPS][tag % STEPS] = cqe->res;
		io_uring_cqe_seen(&br->ring, cqe);
		done++;
	}
	return done;
}

void batchread_run(struct batchread *br, struct batchread_file *files, size_t n)
{
	int res[BATCHREAD_FILES][STEPS];
	size_t queued = 0;

	if (n > BATCHREAD_FILES)
		BUG("batchread_run: %zu files, at most %d", n, BATCHREAD_FILES);
	for (size_t i = 0; i < n; i++) {
		files[i].data = NULL;
		files[i].len = 0;
	}
	if (!br || br->broken)
		return;
	for (size_t i = 0; i < n; i++) {
		if (queue_chain(br, i, files[i].path)) {
			br->broken = 1;
			return;
		}
		queued += STEPS;
	}
	/* Every request completed, or the ring failed: stop using it. */
	if (submit_all(br, queued, res) < queued) {
		br->broken = 1;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		/* Whole: opened, read short of the room, and nothing past it. */
		if (res[i][STEP_OPEN] < 0 || res[i][STEP_READ] < 0 ||
		    res[i][STEP_READ] >= BATCHREAD_ROOM || res[i][STEP_END] != 0) {
			/* A kernel without opens into the ring's table says
			 * EINVAL to each: stop asking it. */
			if (res[i][STEP_OPEN] == -EINVAL)
				br->broken = 1;
			continue;
		}
		room_of(br, i)[res[i][STEP_READ]] = '\0';
		files[i].data = room_of(br, i);
		files[i].len = (size_t)res[i][STEP_READ];
	}
}

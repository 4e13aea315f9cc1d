/* inorder: work on items 0..n-1 on two threads, the results taken in order.
 *
 * A thread claims up to batch items in a row, calls prepare(ctx, thread,
 * first, count) for them when there is one (to read what they need at once,
 * say), then compute(ctx, thread, i, result) for each in turn. That runs on
 * the calling thread (thread 0) or on one more (thread 1), for any item
 * within window of the next one to be taken; take(ctx, i, result) runs on
 * the calling thread only, for i = 0, 1, ... in turn, so everything that
 * decides an order or prints happens there. A nonzero take stops the run:
 * no item is taken after it, and release is called on each result computed
 * but not taken. Results are size bytes, zeroed before compute. With
 * threads < 2, or when no thread can be started, the calling thread does it
 * all, in the same order. */
#ifndef KWARM_INORDER_H
#define KWARM_INORDER_H

#include <stddef.h>

struct inorder_ops {
	void (*compute)(void *ctx, int thread, size_t i, void *result);
	int (*take)(void *ctx, size_t i, void *result);
	void (*release)(void *ctx, void *result);
	void (*prepare)(void *ctx, int thread, size_t first, size_t count);	/* or NULL */
};

/* 0, or what the take that stopped the run returned. */
int inorder_run(size_t n, size_t window, size_t batch, size_t size, int threads,
		const struct inorder_ops *ops, void *ctx);

#endif

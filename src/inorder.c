#include "inorder.h"
#include "util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum slot_state { SLOT_FREE, SLOT_BUSY, SLOT_DONE };

struct run {
	pthread_mutex_t lock;
	pthread_cond_t changed;	/* an item done, one taken, or the run stopped */
	size_t n, window, size, batch;
	unsigned char *state;	/* enum slot_state, per slot (item % window) */
	char *results;
	size_t next;		/* the next item to compute */
	size_t taken;		/* items taken so far */
	int stop;
	const struct inorder_ops *ops;
	void *ctx;
};

static void *slot(struct run *r, size_t i)
{
	return r->results + (i % r->window) * r->size;
}

/* Claim up to batch items in a row to compute (lock held): the first one's
 * index, their number in *count; or n when none is free now. */
static size_t claim(struct run *r, size_t *count)
{
	size_t i = r->next, end = i + r->batch;

	if (r->stop || i >= r->n || i >= r->taken + r->window)
		return r->n;
	if (end > r->n)
		end = r->n;
	if (end > r->taken + r->window)
		end = r->taken + r->window;
	for (size_t j = i; j < end; j++)
		r->state[j % r->window] = SLOT_BUSY;
	r->next = end;
	*count = end - i;
	return i;
}

/* Compute the count items from first (lock held, released meanwhile); each
 * is done, and can be taken, as soon as it is computed. */
static void compute(struct run *r, int thread, size_t first, size_t count)
{
	pthread_mutex_unlock(&r->lock);
	if (r->ops->prepare)
		r->ops->prepare(r->ctx, thread, first, count);
	for (size_t i = first; i < first + count; i++) {
		memset(slot(r, i), 0, r->size);
		r->ops->compute(r->ctx, thread, i, slot(r, i));
		pthread_mutex_lock(&r->lock);
		r->state[i % r->window] = SLOT_DONE;
		pthread_cond_broadcast(&r->changed);
		if (i + 1 < first + count)
			pthread_mutex_unlock(&r->lock);
	}
}

static void *helper(void *arg)
{
	struct run *r = arg;

	pthread_mutex_lock(&r->lock);
	while (!r->stop && r->next < r->n) {
		size_t count, i = claim(r, &count);

		if (i < r->n)
			compute(r, 1, i, count);
		else
			pthread_cond_wait(&r->changed, &r->lock);	/* the window is full */
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

int inorder_run(size_t n, size_t window, size_t batch, size_t size, int threads,
		const struct inorder_ops *ops, void *ctx)
{
	struct run r = { .n = n, .window = window ? window : 1, .size = size,
			 .batch = batch ? batch : 1, .ops = ops, .ctx = ctx };
	pthread_t thread;
	int started = 0, ret = 0;

	if (r.window > n)
		r.window = n ? n : 1;
	r.state = xcalloc(r.window, 1);
	r.results = xcalloc(r.window, size);
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.changed, NULL);
	if (threads > 1 && n > 1)
		started = !pthread_create(&thread, NULL, helper, &r);
	pthread_mutex_lock(&r.lock);
	while (r.taken < n) {
		size_t t = r.taken % r.window, i, count;

		if (r.state[t] == SLOT_DONE) {
			pthread_mutex_unlock(&r.lock);
			ret = ops->take(ctx, r.taken, slot(&r, r.taken));
			pthread_mutex_lock(&r.lock);
			r.state[t] = SLOT_FREE;
			r.taken++;
			pthread_cond_broadcast(&r.changed);
			if (ret)
				break;
		} else if ((i = claim(&r, &count)) < n) {
			compute(&r, 0, i, count);
		} else {
			/* The helper is computing the next item to take. */
			pthread_cond_wait(&r.changed, &r.lock);
		}
	}
	r.stop = 1;
	pthread_cond_broadcast(&r.changed);
	pthread_mutex_unlock(&r.lock);
	if (started)
		pthread_join(thread, NULL);
	for (size_t i = r.taken; i < r.next; i++)
		if (r.state[i % r.window] == SLOT_DONE)
			ops->release(ctx, slot(&r, i));
	pthread_cond_destroy(&r.changed);
	pthread_mutex_destroy(&r.lock);
	free(r.state);
	free(r.results);
	return ret;
}

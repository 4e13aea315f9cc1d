#include "inorder.h"
#include "util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum slot_state { SLOT_FREE, SLOT_BUSY, SLOT_DONE };

struct run {
	pthread_mutex_t lock;
	pthread_cond_t changed;	/* an item done, one taken, or the run stopped */
	size_t n, window, size;
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

/* Claim the next item to compute (lock held): its index, or n when none is
 * free now. */
static size_t claim(struct run *r)
{
	size_t i = r->next;

	if (r->stop || i >= r->n || i >= r->taken + r->window)
		return r->n;
	r->next++;
	r->state[i % r->window] = SLOT_BUSY;
	return i;
}

/* Compute item i (lock held, released meanwhile). */
static void compute(struct run *r, int thread, size_t i)
{
	pthread_mutex_unlock(&r->lock);
	memset(slot(r, i), 0, r->size);
	r->ops->compute(r->ctx, thread, i, slot(r, i));
	pthread_mutex_lock(&r->lock);
	r->state[i % r->window] = SLOT_DONE;
	pthread_cond_broadcast(&r->changed);
}

static void *helper(void *arg)
{
	struct run *r = arg;

	pthread_mutex_lock(&r->lock);
	while (!r->stop && r->next < r->n) {
		size_t i = claim(r);

		if (i < r->n)
			compute(r, 1, i);
		else
			pthread_cond_wait(&r->changed, &r->lock);	/* the window is full */
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

int inorder_run(size_t n, size_t window, size_t size, int threads,
		const struct inorder_ops *ops, void *ctx)
{
	struct run r = { .n = n, .window = window ? window : 1, .size = size, .ops = ops,
			 .ctx = ctx };
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
		size_t t = r.taken % r.window, i;

		if (r.state[t] == SLOT_DONE) {
			pthread_mutex_unlock(&r.lock);
			ret = ops->take(ctx, r.taken, slot(&r, r.taken));
			pthread_mutex_lock(&r.lock);
			r.state[t] = SLOT_FREE;
			r.taken++;
			pthread_cond_broadcast(&r.changed);
			if (ret)
				break;
		} else if ((i = claim(&r)) < n) {
			compute(&r, 0, i);
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

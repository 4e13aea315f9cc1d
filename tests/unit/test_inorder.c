#include "check.h"
#include "inorder.h"

#include <sched.h>
#include <stddef.h>

struct item {
	size_t i, square;
	int thread;
};

struct ctx {
	size_t window, stop_at;
	size_t taken;		/* atomic: items taken so far */
	size_t computed[2];	/* atomic: per thread */
	size_t released;
	int bad_order, bad_window, bad_value;
	int wait_for_helper;	/* thread 0 computes nothing before thread 1 computed one */
	size_t batch;		/* items claimed in a row */
	size_t prepared;	/* atomic: items prepare was called for */
	size_t run_first[2], run_end[2];	/* per thread: the run prepare was last called for */
	int bad_prepare;
};

/* Each thread is told of the items it is about to compute, a run of at most
 * batch. */
static void prepare(void *data, int thread, size_t first, size_t count)
{
	struct ctx *c = data;

	if (!count || count > c->batch || c->run_first[thread] != c->run_end[thread])
		c->bad_prepare = 1;
	c->run_first[thread] = first;
	c->run_end[thread] = first + count;
	__atomic_add_fetch(&c->prepared, count, __ATOMIC_SEQ_CST);
}

static void compute(void *data, int thread, size_t i, void *result)
{
	struct ctx *c = data;
	struct item *it = result;

	if (i >= __atomic_load_n(&c->taken, __ATOMIC_SEQ_CST) + c->window)
		c->bad_window = 1;
	/* Computed in the order of the run it was prepared with. */
	if (i != c->run_first[thread]++)
		c->bad_prepare = 1;
	if (c->wait_for_helper && thread == 0)
		while (!__atomic_load_n(&c->computed[1], __ATOMIC_SEQ_CST))
			sched_yield();
	/* Uneven work, so that the threads finish out of order. */
	for (volatile size_t spin = 0; spin < (i * 7919) % 5000; spin++)
		;
	it->i = i;
	it->square = i * i;
	it->thread = thread;
	__atomic_add_fetch(&c->computed[thread], 1, __ATOMIC_SEQ_CST);
}

static int take(void *data, size_t i, void *result)
{
	struct ctx *c = data;
	struct item *it = result;

	if (i != __atomic_load_n(&c->taken, __ATOMIC_SEQ_CST) || it->i != i)
		c->bad_order = 1;
	if (it->square != i * i)
		c->bad_value = 1;
	__atomic_add_fetch(&c->taken, 1, __ATOMIC_SEQ_CST);
	return i == c->stop_at ? 7 : 0;
}

static void release(void *data, void *result)
{
	struct ctx *c = data;

	(void)result;
	c->released++;
}

static const struct inorder_ops ops = { compute, take, release, prepare };

/* Every item taken once, in order, each computed within the window, some
 * by the second thread, each prepared for once, claimed one at a time or in
 * runs (7 does not divide the items nor the window). */
static void test_order(void)
{
	static const size_t batches[] = { 1, 7, 8 };

	for (size_t b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
		struct ctx c = { .window = 16, .stop_at = (size_t)-1, .wait_for_helper = 1,
				 .batch = batches[b] };

		CHECK_INT(inorder_run(1000, c.window, c.batch, sizeof(struct item), 2, &ops, &c),
			  0);
		CHECK_INT(c.taken, 1000);
		CHECK_INT(c.computed[0] + c.computed[1], 1000);
		CHECK_INT(c.prepared, 1000);
		CHECK(c.computed[1] > 0);
		CHECK(!c.bad_order);
		CHECK(!c.bad_window);
		CHECK(!c.bad_value);
		CHECK(!c.bad_prepare);
		CHECK_INT(c.released, 0);
	}
}

/* A take that fails stops the run: nothing taken after it, and each item
 * computed but not taken released. */
static void test_stop(void)
{
	struct ctx c = { .window = 32, .stop_at = 50, .wait_for_helper = 1, .batch = 4 };

	CHECK_INT(inorder_run(1000, c.window, c.batch, sizeof(struct item), 2, &ops, &c), 7);
	CHECK_INT(c.taken, 51);
	CHECK_INT(c.computed[0] + c.computed[1] - c.taken, c.released);
	CHECK(!c.bad_order);
	CHECK(!c.bad_window);
}

/* One thread: the caller computes everything, in the same order. */
static void test_alone(void)
{
	struct ctx c = { .window = 4, .stop_at = (size_t)-1, .batch = 3 };

	CHECK_INT(inorder_run(100, c.window, c.batch, sizeof(struct item), 1, &ops, &c), 0);
	CHECK_INT(c.taken, 100);
	CHECK_INT(c.computed[0], 100);
	CHECK_INT(c.computed[1], 0);
	CHECK(!c.bad_order);
	CHECK(!c.bad_window);
}

/* No items, and a window wider than the items. */
static void test_small(void)
{
	struct ctx c = { .window = 64, .stop_at = (size_t)-1, .batch = 32 };

	CHECK_INT(inorder_run(0, c.window, c.batch, sizeof(struct item), 2, &ops, &c), 0);
	CHECK_INT(c.taken, 0);
	CHECK_INT(inorder_run(3, c.window, c.batch, sizeof(struct item), 2, &ops, &c), 0);
	CHECK_INT(c.taken, 3);
	CHECK(!c.bad_order);
	CHECK(!c.bad_prepare);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_order(), "order");
	TEST(test_stop(), "stop");
	TEST(test_alone(), "alone");
	TEST(test_small(), "small");
	return check_done();
}

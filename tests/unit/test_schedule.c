/* Unit tests of schedule: the warm-up list (units in order, each pack right
 * after its callable's last unit), the model of make -jN down it (slots, the
 * pack made by the step of a callable's last unit, make's pack steps passed
 * over until the pass ends), and the
 * choice of spec order per -j on qwen3_decode's shape, where longest-first
 * loses at -j2 and -j3 by the steps each slot runs and wins at -j8, and on
 * a noisy record of alike units, where it has nothing to win. */
#include "check.h"
#include "plan/schedule.h"
#include "report/durations.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A plan of callables with the given incore counts (each its own
 * orchestration), units in spec order, secs[i] the record of unit i. */
struct fake {
	struct plan plan;
	struct plan_unit *units;
	struct spec_callable *sc;
};

static void fake_init(struct fake *f, const size_t *incores, size_t nr_callables,
		      const double *secs)
{
	size_t nu = 0, u = 0;

	memset(f, 0, sizeof(*f));
	for (size_t c = 0; c < nr_callables; c++)
		nu += 1 + incores[c];
	f->units = xcalloc(nu, sizeof(*f->units));
	f->sc = xcalloc(nr_callables, sizeof(*f->sc));
	f->plan.units = xcalloc(nu, sizeof(*f->plan.units));
	f->plan.callables = xcalloc(nr_callables, sizeof(*f->plan.callables));
	f->plan.lpt = xcalloc(nu, sizeof(*f->plan.lpt));
	for (size_t i = 0; i < nu; i++) {
		f->units[i].index = i;
		f->units[i].seconds = secs ? secs[i] : -1;
		f->plan.units[i] = &f->units[i];
	}
	for (size_t c = 0; c < nr_callables; c++) {
		struct plan_callable *pc = &f->plan.callables[c];

		f->sc[c].nr_incores = incores[c];
		pc->spec = &f->sc[c];
		pc->orchestration = &f->units[u++];
		pc->children = xcalloc(incores[c] + 1, sizeof(*pc->children));
		for (size_t i = 0; i < incores[c]; i++)
			pc->children[i] = &f->units[u++];
	}
	f->plan.nr_units = nu;
	f->plan.nr_callables = nr_callables;
	{
		double *s = xcalloc(nu, sizeof(*s));

		for (size_t i = 0; i < nu; i++)
			s[i] = f->units[i].seconds;
		durations_order(s, nu, f->plan.lpt);
		free(s);
	}
}

static void fake_release(struct fake *f)
{
	for (size_t c = 0; c < f->plan.nr_callables; c++)
		free(f->plan.callables[c].children);
	free(f->plan.callables);
	free(f->plan.units);
	free(f->plan.lpt);
	free(f->units);
	free(f->sc);
}

/* qwen3_decode: orchestration 6.6 s, 37 incores of 1.2 s but the 13th 8.4 s;
 * every unit add s more (what a step costs besides the compiler). */
static double *qwen_secs(double scale, double add)
{
	double *secs = xcalloc(38, sizeof(*secs));

	secs[0] = 6.6 * scale + add;
	for (size_t i = 1; i < 38; i++)
		secs[i] = (i == 13 ? 8.4 : 1.2) * scale + add;
	return secs;
}

static void test_list(void)
{
	const size_t incores[] = { 1, 12 };
	struct fake f;
	struct schedule_step steps[17];
	size_t order[15];

	fake_init(&f, incores, 2, NULL);
	for (size_t i = 0; i < 15; i++)
		order[i] = 14 - i;	/* the last callable's units first */
	schedule_list(&f.plan, order, steps);
	/* Each pack right after its callable's last unit: the second's (index
	 * 2) is 13th, the first's (index 0) 15th. */
	for (size_t i = 0; i < 13; i++) {
		CHECK_INT(steps[i].pack, 0);
		CHECK_INT(steps[i].index, 14 - i);
	}
	CHECK(steps[13].pack && steps[13].index == 1);
	CHECK(!steps[14].pack && steps[14].index == 1);
	CHECK(!steps[15].pack && steps[15].index == 0);
	CHECK(steps[16].pack && steps[16].index == 0);
	/* Spec order: the first callable's pack after its last unit (index 1),
	 * the second's after its own, the list's last. */
	for (size_t i = 0; i < 15; i++)
		order[i] = i;
	schedule_list(&f.plan, order, steps);
	CHECK(!steps[1].pack && steps[1].index == 1);
	CHECK(steps[2].pack && steps[2].index == 0);
	CHECK(!steps[3].pack && steps[3].index == 2);
	CHECK(!steps[15].pack && steps[15].index == 14);
	CHECK(steps[16].pack && steps[16].index == 1);
	fake_release(&f);
}

/* Two callables whose last unit is one they share: both packs right after
 * it, in spec order, and the unit of neither after them. */
static void test_list_shared_last(void)
{
	const size_t incores[] = { 1, 1 };
	const size_t order[] = { 0, 2, 1, 3 };
	struct fake f;
	struct schedule_step steps[6];

	fake_init(&f, incores, 2, NULL);
	f.plan.callables[1].children[0] = &f.units[1];	/* unit 3 is in neither */
	schedule_list(&f.plan, order, steps);
	for (size_t i = 0; i < 3; i++)
		CHECK(!steps[i].pack && steps[i].index == order[i]);
	CHECK(steps[3].pack && steps[3].index == 0);
	CHECK(steps[4].pack && steps[4].index == 1);
	CHECK(!steps[5].pack && steps[5].index == 3);
	fake_release(&f);
}

#define CHECK_NEAR(got, want) CHECK(fabs((got) - (want)) < 1e-9)

static void test_makespan(void)
{
	const size_t incores[] = { 37 };
	double *secs = qwen_secs(1, 0);
	struct fake f;
	struct schedule_step spec[39], lpt[39];
	size_t order[38];

	fake_init(&f, incores, 1, secs);
	for (size_t i = 0; i < 38; i++)
		order[i] = i;
	schedule_list(&f.plan, order, spec);
	schedule_list(&f.plan, f.plan.lpt, lpt);
	CHECK_INT(f.plan.lpt[0], 13);
	CHECK_INT(f.plan.lpt[1], 0);
	/* Exact costs: both end at 29.4 s at -j2 and 19.8 s at -j3, then the
	 * last unit's step packs and make's pack step checks; serially the
	 * sum. */
	CHECK_NEAR(schedule_makespan(&f.plan, spec, secs, 0.5, 0.1, 2), 30);
	CHECK_NEAR(schedule_makespan(&f.plan, lpt, secs, 0.5, 0.1, 2), 30);
	CHECK_NEAR(schedule_makespan(&f.plan, spec, secs, 0.5, 0.1, 3), 20.4);
	CHECK_NEAR(schedule_makespan(&f.plan, lpt, secs, 0.5, 0.1, 3), 20.4);
	CHECK_NEAR(schedule_makespan(&f.plan, lpt, secs, 0.5, 0.1, 1), 58.8);
	/* At -j8 longest-first is the heavy unit, the pack and the check;
	 * spec order starts the heavy unit only after 11 short ones. */
	CHECK_NEAR(schedule_makespan(&f.plan, lpt, secs, 0.5, 0.1, 8), 9);
	CHECK(schedule_makespan(&f.plan, spec, secs, 0.5, 0.1, 8) > 9.5);
	fake_release(&f);
	free(secs);
}

/* A pack make's pass reaches before its units are done waits for the pass
 * to end (the last unit to start), then for a step to end. */
static void test_pack_passed_over(void)
{
	const size_t incores[] = { 0, 3 };
	const double secs[] = { 1, 1, 1, 1, 1 };
	struct fake f;
	struct schedule_step steps[] = { { 0, 0 }, { 0, 1 }, { 1, 0 }, { 2, 0 }, { 3, 0 },
					 { 4, 0 }, { 1, 1 } };

	fake_init(&f, incores, 2, secs);
	/* -j2, packs of 3 s: units 0 and 1 run from 0, 2 and 3 from 1, 4
	 * from 2; the first pack, ready at 1, is passed over and starts when
	 * unit 3 ends at 2 (unit 4 was the pass's last start); the second,
	 * passed over too, when unit 4 ends at 3: all done at 6. */
	CHECK_NEAR(schedule_makespan(&f.plan, steps, secs, 0, 3, 2), 6);
	fake_release(&f);
}

/* The step of a callable's last unit packs it in its slot, before make's
 * pack step can start. */
static void test_inline_pack(void)
{
	const size_t incores[] = { 0, 2 };
	const double secs[] = { 1, 1, 1, 1 };
	struct fake f;
	struct schedule_step steps[] = { { 0, 0 }, { 0, 1 }, { 1, 0 }, { 2, 0 }, { 3, 0 },
					 { 1, 1 } };

	fake_init(&f, incores, 2, secs);
	/* -j2, packs of 3 s, checks of 0.5 s: units 0 and 1 run from 0; unit
	 * 0's step packs the first callable until 4, so units 2 and 3 share
	 * the other slot (1 to 3) and unit 3's step packs the second until 6;
	 * the first pack step, passed over, runs from 4, the second from 6. */
	CHECK_NEAR(schedule_makespan(&f.plan, steps, secs, 3, 0.5, 2), 6.5);
	/* Made by make's pack steps instead, both packs start at 2, when the
	 * pass has ended and the units are done. */
	CHECK_NEAR(schedule_makespan(&f.plan, steps, secs, 0, 3, 2), 5);
	fake_release(&f);
}

static void test_choose(void)
{
	const size_t incores[] = { 37 };
	const uint64_t from_14 = ((uint64_t)1 << (SCHEDULE_MAX_JOBS + 1)) - ((uint64_t)1 << 14);
	double *secs = qwen_secs(0.1, 0.002);
	struct fake f;

	/* As recorded by a run at the bench's scale 0.1 (2 ms a step inside
	 * the recorded seconds): spec order at -j2 and -j3, where it is
	 * faster; at -j4, and from -j14 on, where the heavy unit (spec's 14th)
	 * starts at once either way, the two tie, also with the heavy unit
	 * late, and spec order stays; longest-first from -j5 to -j13. */
	fake_init(&f, incores, 1, secs);
	schedule_choose(&f.plan);
	CHECK_INT(f.plan.spec_jobs, (1 << 2) | (1 << 3) | (1 << 4) | from_14);
	fake_release(&f);
	free(secs);

	/* At full scale a step's cost is lost in the noise: -j2 and -j3 tie
	 * on the record, but with the heavy unit 10% late longest-first,
	 * which started it first, is faster; -j4 and -j14 on tie. */
	secs = qwen_secs(1, 0.002);
	fake_init(&f, incores, 1, secs);
	schedule_choose(&f.plan);
	CHECK_INT(f.plan.spec_jobs, (1 << 4) | from_14);
	fake_release(&f);

	/* No record: spec order is the order. */
	fake_init(&f, incores, 1, NULL);
	schedule_choose(&f.plan);
	CHECK_INT(f.plan.spec_jobs, 0);
	fake_release(&f);
	free(secs);
}

/* The suite's shape recorded by one run under load: every unit costs the
 * same, the record's seconds 1x to 2.6x that by noise alone (the bench's
 * 0.126 to 0.334 s for 0.12 s units). Longest-first then merely shuffles
 * the list, and the model finds it no faster at -j2, -j3 or -j8: spec
 * order stays (it was longest-first where the two tied). */
static void test_choose_noise(void)
{
	size_t incores[200];
	double secs[800];
	uint32_t r = 1;
	struct fake f;

	for (size_t c = 0; c < 200; c++)
		incores[c] = 3;
	for (size_t i = 0; i < 800; i++) {
		r = r * 1103515245u + 12345u;
		secs[i] = 0.126 + 0.208 * (double)(r >> 16) / 65536.0;
	}
	fake_init(&f, incores, 200, secs);
	schedule_choose(&f.plan);
	CHECK(f.plan.spec_jobs & (1 << 2));
	CHECK(f.plan.spec_jobs & (1 << 3));
	CHECK(f.plan.spec_jobs & (1 << 8));
	fake_release(&f);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_list(), "list");
	TEST(test_list_shared_last(), "list_shared_last");
	TEST(test_makespan(), "makespan");
	TEST(test_pack_passed_over(), "pack_passed_over");
	TEST(test_inline_pack(), "inline_pack");
	TEST(test_choose(), "choose");
	TEST(test_choose_noise(), "choose_noise");
	return check_done();
}

#include "plan/schedule.h"
#include "report/durations.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* What a step costs besides its recorded seconds: make's reap of the last
 * step and start of the next, kwarm's start and exit (1 ms median, 2.4 ms
 * mean between two steps on a slot in the bench's traces at load 4-5). */
#define SCHEDULE_STEP 0.002
/* A pack's own seconds (2 ms for qwen3_decode in the same traces), made by
 * the step of the callable's last unit (packnow); make's pack recipe after
 * it is empty then (KW_PACKED_HERE in the Makefile): make takes a job slot
 * for it, as for any recipe, but runs no process (SCHEDULE_CHECK: no time). */
#define SCHEDULE_PACK 0.002
#define SCHEDULE_CHECK 0.0
/* Spec order must win by more than this share of the makespan: the record is
 * one run's durations, and a smaller difference is within their noise. */
#define SCHEDULE_MARGIN 0.003
/* The steps the model may run in all (two lists a -j, twice where they
 * tie), about 0.1 s of gen: a large plan is looked at from -j2 up as far as
 * that goes (100k units: to -j5, to -j3 where the orders tie; one step more
 * on a slot matters less, the more steps it runs). */
#define SCHEDULE_BUDGET 1000000
/* Where the two orders tie on the record, the order that keeps to it when
 * the next run's long units take longer wins: the model runs both again
 * with each unit's seconds up by SCHEDULE_NOISE times its share of the
 * longest (qwen3_decode at -j5: a tie on exact costs, but with 10% noise
 * longest-first is 0.6% faster, its long unit started at once, and spec
 * order 0.3% faster at -j4; simulate_order.py --noise 0.1 --seeds 40). */
#define SCHEDULE_NOISE 0.1

/* The position in the list of each callable's last unit, by order. */
static size_t *last_ranks(const struct plan *plan, const size_t *order)
{
	size_t *rank = xcalloc(plan->nr_units + 1, sizeof(*rank));
	size_t *last = xcalloc(plan->nr_callables + 1, sizeof(*last));

	for (size_t i = 0; i < plan->nr_units; i++)
		rank[order[i]] = i;
	for (size_t c = 0; c < plan->nr_callables; c++) {
		const struct plan_callable *pc = &plan->callables[c];

		last[c] = rank[pc->orchestration->index];
		for (size_t i = 0; i < pc->spec->nr_incores; i++)
			if (rank[pc->children[i]->index] > last[c])
				last[c] = rank[pc->children[i]->index];
	}
	free(rank);
	return last;
}

/* A callable by the place of its last unit, then spec order. */
struct pack_slot {
	size_t after, callable;
};

static int by_after(const void *a, const void *b)
{
	const struct pack_slot *x = a, *y = b;

	if (x->after != y->after)
		return x->after < y->after ? -1 : 1;
	return x->callable < y->callable ? -1 : x->callable > y->callable;
}

void schedule_list(const struct plan *plan, const size_t *order, struct schedule_step *steps)
{
	struct pack_slot *slots = xcalloc(plan->nr_callables + 1, sizeof(*slots));
	size_t *last = last_ranks(plan, order), next = 0, n = 0;

	for (size_t c = 0; c < plan->nr_callables; c++) {
		slots[c].after = last[c];
		slots[c].callable = c;
	}
	qsort(slots, plan->nr_callables, sizeof(*slots), by_after);
	for (size_t i = 0; i < plan->nr_units; i++) {
		steps[n].index = order[i];
		steps[n++].pack = 0;
		for (; next < plan->nr_callables && slots[next].after == i; next++) {
			steps[n].index = slots[next].callable;
			steps[n++].pack = 1;
		}
	}
	/* Every callable has a unit (its orchestration) in order. */
	if (next != plan->nr_callables)
		BUG("%zu of %zu packs have no unit in the order", plan->nr_callables - next,
		    plan->nr_callables);
	free(last);
	free(slots);
}

/* A step under way: when it ends, and its place in the list (a ready pack:
 * end 0, so that ready packs come out in list order); packing, a unit's
 * step that packs the callables it completed. */
struct job {
	double end;
	size_t pos;
	int packing;
};

/* A binary heap of jobs, the first to end on top (ties: the earlier place). */
struct heap {
	struct job *v;
	size_t nr;
};

/* make -jN in the model (schedule_makespan). The callables of unit u are
 * cal[first[u]] .. cal[first[u + 1] - 1]; need[c] counts callable c's units
 * not yet done (the last one's until it has packed c: packer[c], its place
 * plus 1); a pack passed over is in passed (its place, plus 1) and, once its
 * units are done, in ready. */
struct model {
	const struct schedule_step *steps;
	const double *secs;
	double pack_secs, check_secs, now;
	size_t *first, *cal, *need, *packer, *passed;
	struct heap run, ready;
	size_t jobs;
};

static int job_before(const struct job *a, const struct job *b)
{
	return a->end < b->end || (a->end == b->end && a->pos < b->pos);
}

static void heap_push(struct heap *h, struct job j)
{
	size_t i = h->nr++;

	for (; i && job_before(&j, &h->v[(i - 1) / 2]); i = (i - 1) / 2)
		h->v[i] = h->v[(i - 1) / 2];
	h->v[i] = j;
}

static struct job heap_pop(struct heap *h)
{
	struct job top = h->v[0], last = h->v[--h->nr];
	size_t i = 0, k;

	while ((k = 2 * i + 1) < h->nr) {
		if (k + 1 < h->nr && job_before(&h->v[k + 1], &h->v[k]))
			k++;
		if (!job_before(&h->v[k], &last))
			break;
		h->v[i] = h->v[k];
		i = k;
	}
	if (h->nr)
		h->v[i] = last;
	return top;
}

/* The step at pos has ended: its unit is done for the callables that
 * still need others; those it completes it packs first, pack_secs each. */
static int unit_done(struct model *m, struct job *j)
{
	const struct schedule_step *s = &m->steps[j->pos];
	size_t packs = 0;

	for (size_t i = m->first[s->index]; i < m->first[s->index + 1]; i++) {
		size_t c = m->cal[i];

		if (m->need[c] > 1) {
			m->need[c]--;
		} else if (m->need[c] && !m->packer[c]) {
			m->packer[c] = j->pos + 1;
			packs++;
		}
	}
	j->end = m->now + packs * m->pack_secs;
	j->packing = 1;
	return packs && m->pack_secs > 0;
}

static void finish_one(struct model *m)
{
	struct job j = heap_pop(&m->run);
	const struct schedule_step *s = &m->steps[j.pos];

	m->now = j.end;
	if (s->pack)
		return;
	if (!j.packing && unit_done(m, &j)) {
		heap_push(&m->run, j);
		return;
	}
	for (size_t i = m->first[s->index]; i < m->first[s->index + 1]; i++) {
		size_t c = m->cal[i];

		if (m->packer[c] != j.pos + 1 || !m->need[c])
			continue;
		m->need[c] = 0;
		if (m->passed[c]) {
			struct job ready = { 0, m->passed[c] - 1, 0 };

			heap_push(&m->ready, ready);
		}
	}
}

static void start(struct model *m, size_t pos)
{
	const struct schedule_step *s = &m->steps[pos];
	struct job j;

	while (m->run.nr >= m->jobs)
		finish_one(m);
	j.end = m->now + (s->pack ? m->check_secs : m->secs[s->index]);
	j.pos = pos;
	j.packing = 0;
	heap_push(&m->run, j);
}

/* Fill first, cal and need from the plan: each callable's distinct units. */
static void model_graph(struct model *m, const struct plan *plan)
{
	size_t nu = plan->nr_units, nc = plan->nr_callables, n = 0;
	size_t *seen = xcalloc(nu + 1, sizeof(*seen)), *count = xcalloc(nu + 1, sizeof(*count));

	m->first = xcalloc(nu + 2, sizeof(*m->first));
	m->need = xcalloc(nc + 1, sizeof(*m->need));
	/* Twice over the callables: count each unit's, then place them. */
	for (int pass = 0; pass < 2; pass++) {
		memset(seen, 0, (nu + 1) * sizeof(*seen));
		for (size_t c = 0; c < nc; c++) {
			const struct plan_callable *pc = &plan->callables[c];

			for (size_t i = 0; i <= pc->spec->nr_incores; i++) {
				size_t u = (i ? pc->children[i - 1] : pc->orchestration)->index;

				if (seen[u] == c + 1)
					continue;
				seen[u] = c + 1;
				if (pass) {
					m->cal[m->first[u] + count[u]++] = c;
				} else {
					m->first[u + 1]++;
					m->need[c]++;
					n++;
				}
			}
		}
		if (!pass) {
			for (size_t u = 0; u < nu; u++)
				m->first[u + 1] += m->first[u];
			m->cal = xcalloc(n + 1, sizeof(*m->cal));
		}
	}
	free(seen);
	free(count);
}

double schedule_makespan(const struct plan *plan, const struct schedule_step *steps,
			 const double *secs, double pack_secs, double check_secs, size_t jobs)
{
	struct model m = { .steps = steps, .secs = secs, .pack_secs = pack_secs,
			   .check_secs = check_secs, .jobs = jobs ? jobs : 1 };
	size_t nr = plan->nr_units + plan->nr_callables;

	model_graph(&m, plan);
	m.packer = xcalloc(plan->nr_callables + 1, sizeof(*m.packer));
	m.passed = xcalloc(plan->nr_callables + 1, sizeof(*m.passed));
	m.run.v = xcalloc(m.jobs + 1, sizeof(*m.run.v));
	m.ready.v = xcalloc(plan->nr_callables + 1, sizeof(*m.ready.v));
	for (size_t pos = 0; pos < nr; pos++) {
		if (steps[pos].pack && m.need[steps[pos].index])
			m.passed[steps[pos].index] = pos + 1;
		else
			start(&m, pos);
	}
	/* After the pass, make waits for a step to end before it looks again. */
	while (m.run.nr) {
		finish_one(&m);
		while (m.ready.nr && m.run.nr < m.jobs)
			start(&m, heap_pop(&m.ready).pos);
	}
	free(m.first);
	free(m.cal);
	free(m.need);
	free(m.packer);
	free(m.passed);
	free(m.run.v);
	free(m.ready.v);
	return m.now;
}

static int same_list(const struct schedule_step *a, const struct schedule_step *b, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (a[i].index != b[i].index || a[i].pack != b[i].pack)
			return 0;
	return 1;
}

/* Whether x is faster than y by more than the record's noise. */
static int faster(double x, double y)
{
	return x < y * (1 - SCHEDULE_MARGIN);
}

_Static_assert(SCHEDULE_MAX_JOBS < 64, "spec_jobs has a bit for each -j up to 63");

void schedule_choose(struct plan *plan)
{
	size_t nu = plan->nr_units, nr = nu + plan->nr_callables, known = 0, spent = 0;
	double *secs = xcalloc(2 * (nu + 1), sizeof(*secs)), *late = secs + nu + 1, longest_unit = 0;
	size_t *spec = xcalloc(nu + 1, sizeof(*spec));
	struct schedule_step *a = xcalloc(nr + 1, sizeof(*a)), *b = xcalloc(nr + 1, sizeof(*b));

	plan->spec_jobs = 0;
	for (size_t i = 0; i < nu; i++) {
		secs[i] = plan->units[i]->seconds;
		known += secs[i] >= 0;
		spec[i] = i;
	}
	/* One run's noise (10% a unit under load) would decide otherwise: the
	 * model sees what the order sees, alike units as alike. */
	durations_alike(secs, nu, secs);
	for (size_t i = 0; i < nu; i++) {
		secs[i] += SCHEDULE_STEP;
		if (secs[i] > longest_unit)
			longest_unit = secs[i];
	}
	for (size_t i = 0; i < nu; i++)
		late[i] = secs[i] * (1 + SCHEDULE_NOISE * secs[i] / longest_unit);
	schedule_list(plan, plan->lpt, a);
	schedule_list(plan, spec, b);
	if (!known || same_list(a, b, nr))
		nu = 0;
	/* With a job for every unit, every order starts them all at once.
	 * Spec order unless longest-first is faster: a record with nothing to
	 * exploit (units alike but for its noise) must leave the list as it
	 * was without one. */
	for (size_t jobs = 2; jobs <= SCHEDULE_MAX_JOBS && jobs < nu &&
	     spent + 2 * nr <= SCHEDULE_BUDGET; jobs++) {
		double longest = schedule_makespan(plan, a, secs, SCHEDULE_PACK, SCHEDULE_CHECK, jobs);
		double in_spec = schedule_makespan(plan, b, secs, SCHEDULE_PACK, SCHEDULE_CHECK, jobs);

		spent += 2 * nr;
		if (!faster(longest, in_spec) && !faster(in_spec, longest) &&
		    spent + 2 * nr <= SCHEDULE_BUDGET) {
			longest = schedule_makespan(plan, a, late, SCHEDULE_PACK, SCHEDULE_CHECK, jobs);
			in_spec = schedule_makespan(plan, b, late, SCHEDULE_PACK, SCHEDULE_CHECK, jobs);
			spent += 2 * nr;
		}
		if (!faster(longest, in_spec))
			plan->spec_jobs |= (uint64_t)1 << jobs;
	}
	free(secs);
	free(spec);
	free(a);
	free(b);
}

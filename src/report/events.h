/* events: the run's event log, OUT/.kwarm/run/<tag>/events (runstate.h), what
 * each step of one make run did, for the summary (summary.h). Plain text, one
 * event per line, appended in one write under the run state's lock:
 *
 *   unit KEY built|cached|failed SECONDS OWNERS LABEL
 *   pack CKEY packed|failed SECONDS CLASS
 *   remote HITS MISSES ERRORS UPLOADS BYTES_IN BYTES_OUT
 *
 * unit: a compile step ended (cached: another process published the unit
 * while this one waited for it); OWNERS is "A,B", the unit's classes; LABEL,
 * the rest of the line, may hold spaces. pack: a callable's pack step ended.
 * remote: what one compile step asked of the remote cache. SECONDS has three
 * decimals. Lines of other kinds, and lines without their LF, are skipped.
 */
#ifndef KWARM_EVENTS_H
#define KWARM_EVENTS_H

#include "strvec.h"

#define EVENTS_FILE "events"

enum event_kind { EVENT_UNIT, EVENT_PACK, EVENT_REMOTE };

/* The remote counts of one compile step, in the order of the line. */
enum { EVENT_HITS, EVENT_MISSES, EVENT_ERRORS, EVENT_UPLOADS, EVENT_BYTES_IN,
       EVENT_BYTES_OUT, EVENT_NR_REMOTE };

struct event {
	enum event_kind kind;
	const char *key;	/* unit or pack: the unit's or callable's key */
	const char *status;	/* unit: built, cached, failed; pack: packed, failed */
	double seconds;
	const struct strvec *owners;	/* unit: its classes; pack: its class
					 * (on the line: "A,B") */
	const char *label;	/* unit: its label */
	unsigned long long remote[EVENT_NR_REMOTE];	/* remote */
};

/* Under the run state's lock: append ev to run_dir's events. Failures are
 * ignored (a report). */
void events_append(const char *run_dir, const struct event *ev);
/* Call fn on each event of run_dir's events (none when it is missing); the
 * strings of ev live until fn returns. */
void events_each(const char *run_dir, void (*fn)(const struct event *ev, void *data),
		 void *data);

#endif

/* logappend: one-line appends to every append-only log: those of the cache
 * folder that a compaction may rewrite (CACHE/durations.log, CACHE/events.log)
 * and the run's events (events.h). An appender holds a shared flock on the
 * log's lock file while it writes; a compaction holds it exclusively, so that
 * no line goes into a log being replaced. A line is one write() on an
 * O_APPEND descriptor: concurrent appenders never interleave. */
#ifndef KWARM_LOGAPPEND_H
#define KWARM_LOGAPPEND_H

#include <sys/types.h>

/* flock(fd, how), again after EINTR; nothing when fd < 0. */
void logappend_lock(int fd, int how);
/* Append line to log under a shared flock on lockpath (none when lockpath is
 * NULL: the caller serialises the appends). 0, or -1 (errno set)
 * when the line could not be written. With keep_lock, *keep_lock gets the
 * lock fd, still locked, for the caller to upgrade and close (-1 when there
 * is none), and *end the log's size just after the line. Without, the lock is
 * let go before the return. */
int logappend_line(const char *lockpath, const char *log, const char *line, int *keep_lock,
		   off_t *end);

#endif

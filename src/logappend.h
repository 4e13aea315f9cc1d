/* logappend: every append-only log goes through here: those of the cache
 * folder that a compaction may rewrite (CACHE/durations.log, CACHE/events.log)
 * and the run's events (events.h). A line is one write() on an O_APPEND
 * descriptor: concurrent appenders never interleave, and a line without its
 * LF (a writer that died, a full disk) is no line. An appender holds a shared
 * flock on the log's lock file while it writes; a compaction holds it
 * exclusively, so that no line goes into a log being replaced. Each log's
 * line format is its own module's.
 */
#ifndef KWARM_LOGAPPEND_H
#define KWARM_LOGAPPEND_H

#include <stddef.h>
#include <sys/types.h>

struct buf;

/* Append line to log under a shared flock on lockpath (none when lockpath is
 * NULL: the caller serialises the appends). 0, or -1 (errno set) when the
 * line could not be written. With end, *end gets the log's size just after
 * the line. */
int logappend_line(const char *lockpath, const char *log, const char *line, off_t *end);

/* Hands a log's whole text to its module's parser. */
typedef void (*logappend_parse_fn)(const char *text, size_t len, void *data);

/* Read the log dir/name whole and parse it (a log that does not exist yet
 * reads as empty: parse is not called). 0, or -1 after reporting. */
int logappend_load(const char *dir, const char *name, logappend_parse_fn parse, void *data);

/* Decides a compaction from the log's text: 1 with the new text in out, 0 to
 * leave the log as it is, or -1 after reporting. */
typedef int (*logappend_rewrite_fn)(const char *text, size_t len, struct buf *out, void *data);

/* Rewrite log as rewrite says, holding lockpath's flock exclusively: waiting
 * for the appenders with wait, else not at all when another process holds it
 * (another time). A missing log is left missing. 0, or -1 with the reason in
 * why (error_to: on stderr when why is NULL). */
int logappend_compact(const char *lockpath, const char *log, int wait,
		      logappend_rewrite_fn rewrite, void *data, struct buf *why);

#endif

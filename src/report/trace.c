#include "report/trace.h"
#include "buf.h"
#include "json.h"
#include "path.h"
#include "publish.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Add text (",\n{...}" items) to the trace, keeping it closed (see trace.h). */
static void trace_add(const char *kw_dir, const char *text, size_t len)
{
	char *path = path_join(kw_dir, TRACE_FILE), tail[3];
	int fd = open(path, O_RDWR | O_CLOEXEC);
	struct stat st;
	struct buf b = BUF_INIT;

	free(path);
	if (fd < 0)
		return;
	/* Only a closed trace is one of ours whole: anything else is left as is. */
	if (!fstat(fd, &st) && st.st_size >= 3 &&
	    pread(fd, tail, 3, st.st_size - 3) == 3 && !memcmp(tail, "\n]\n", 3)) {
		buf_add(&b, text, len);
		buf_adds(&b, "\n]\n");
		if (pwrite(fd, b.s, b.len, st.st_size - 3) != (ssize_t)b.len)
			(void)ftruncate(fd, st.st_size);	/* as it was */
	}
	close(fd);
	buf_release(&b);
}

void trace_begin(const char *kw_dir, int pid, int join)
{
	char *trace = path_join(kw_dir, TRACE_FILE), *prev = path_join(kw_dir, TRACE_PREV_FILE);
	char *head = xstrfmt("%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
			     "\"args\":{\"name\":\"kwarm warm-up (make %d)\"}}%s",
			     join ? ",\n" : "[\n", pid, pid, join ? "" : "\n]\n");
	struct buf unsaid = BUF_INIT;

	if (join) {
		trace_add(kw_dir, head, strlen(head));
	} else {
		if (rename(trace, prev) && errno != ENOENT)
			unlink(trace);
		/* Published: a full disk or a kill leaves no torn trace. */
		(void)publish_unsynced_gently(trace, head, strlen(head), &unsaid);
		buf_release(&unsaid);
	}
	free(head);
	free(prev);
	free(trace);
}

void trace_add_slice(const char *kw_dir, double zero, int pid, int tid, const struct event *ev,
		     double t0, double t1, const char *by)
{
	struct buf b = BUF_INIT;
	long long ts = (long long)((t0 - zero) * 1e6);
	long long end = (long long)((t1 - zero) * 1e6);
	int unit = ev->kind == EVENT_UNIT;

	buf_adds(&b, ",\n{\"name\":");
	json_add_string(&b, ev->label);
	buf_addf(&b, ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%lld,\"dur\":%lld,\"pid\":%d,\"tid\":%d,"
		 "\"args\":{\"unit\":", unit ? "compile" : "pack", ts, end > ts ? end - ts : 0, pid,
		 tid);
	json_add_string(&b, ev->label);
	buf_adds(&b, ",\"classes\":[");
	for (size_t i = 0; i < ev->owners->nr; i++) {
		buf_adds(&b, i ? "," : "");
		json_add_string(&b, ev->owners->v[i]);
	}
	buf_adds(&b, "],\"key\":");
	json_add_string(&b, ev->key);
	if (unit)
		buf_addf(&b, ",\"cache\":\"%s\"", strcmp(ev->status, "cached") ? "miss" : "hit");
	if (by)
		buf_addf(&b, ",\"by\":\"%s\"", by);
	buf_addf(&b, ",\"status\":\"%s\"}}", ev->status);
	trace_add(kw_dir, b.s, b.len);
	buf_release(&b);
}

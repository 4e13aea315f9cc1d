/* runid: the make run of a step (see runid.h). What the system tells of a
 * process is os.h's; this walks and formats. */
#include "report/runid.h"
#include "os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* This process's make run, looked up once (again in a forked child, whose
 * ancestry differs). */
struct run {
	pid_t for_pid;	/* the process the answer is for */
	int found;	/* the system could tell */
	int pid;
	unsigned long long start;	/* clock ticks since boot */
	char tag[RUNID_TAG_SIZE];
};

static const struct run *this_run(void)
{
	static struct run memo;
	struct os_process p;
	pid_t me = getpid();
	int pid = (int)getppid();

	if (memo.for_pid == me)
		return &memo;
	memo = (struct run){ .for_pid = me, .pid = (int)me };
	/* The nearest make ancestor, else this process. Bounded: a cycle cannot
	 * happen, but a garbled answer must not loop. */
	for (int depth = 0; pid > 1 && depth < 64 && !os_process_info(pid, &p); depth++) {
		if (!strcmp(p.comm, "make") || !strcmp(p.comm, "gmake")) {
			memo.pid = pid;
			break;
		}
		pid = p.ppid;
	}
	memo.found = memo.pid != (int)me || !os_process_info(me, &p);
	if (memo.found)
		memo.start = p.start;
	/* The stable conversion: the same tag in every process. */
	if (!memo.found)
		snprintf(memo.tag, sizeof(memo.tag), "%d@0", (int)me);
	else
		snprintf(memo.tag, sizeof(memo.tag), "%d@%.2f", memo.pid,
			 os_ticks_to_unix_stable(memo.start));
	return &memo;
}

double runid_start(void)
{
	const struct run *r = this_run();

	return r->found ? os_ticks_to_unix(r->start) : -1;
}

void runid_tag(char *tag, size_t size)
{
	snprintf(tag, size, "%s", this_run()->tag);
}

int runid_alive(const char *tag)
{
	long pid = strtol(tag, NULL, 10);
	const char *at = strchr(tag, '@');
	double start = at ? strtod(at + 1, NULL) : 0, now_start;
	struct os_process p;

	if (!os_pid_alive(pid))
		return 0;
	if (start <= 0 || os_process_info((int)pid, &p))
		return 1;
	now_start = os_ticks_to_unix(p.start);
	/* The tag's start is the stable conversion, this one a little finer. */
	return now_start - start < 2 && start - now_start < 2;
}

/* runid: the make run of a step, from /proc (see runid.h). The reads of /proc
 * are the small functions read_proc_stat, boot_time and ticks_to_unix; the
 * rest only walks and formats. */
#include "runid.h"
#include "os.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* Parent pid, comm and start (clock ticks since boot) of pid from /proc/PID/stat. */
static int read_proc_stat(int pid, int *ppid, char *comm, size_t comm_size,
			  unsigned long long *start)
{
	char *path = xstrfmt("/proc/%d/stat", pid), *text = NULL, *open_paren, *close_paren, *p;
	size_t len, n;
	int ret = -1;

	if (read_file_all(path, &text, &len))
		goto out;
	/* comm may hold spaces and parentheses: it ends at the last ')'. */
	open_paren = strchr(text, '(');
	close_paren = strrchr(text, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		goto out;
	n = (size_t)(close_paren - open_paren - 1);
	if (n >= comm_size)
		n = comm_size - 1;
	memcpy(comm, open_paren + 1, n);
	comm[n] = '\0';
	/* Fields from 3 (state) on; ppid is field 4, starttime field 22. */
	p = close_paren + 1;
	for (int field = 3; field <= 22; field++) {
		char *end;
		unsigned long long v;

		while (*p == ' ')
			p++;
		if (!*p)
			goto out;
		if (field == 3) {
			p++;
			continue;
		}
		errno = 0;
		v = strtoull(p, &end, 10);
		if (end == p)
			v = 0;	/* a field we do not use (they are all numbers) */
		p = end;
		while (*p && *p != ' ')
			p++;
		if (field == 4)
			*ppid = (int)v;
		else if (field == 22)
			*start = v;
	}
	ret = 0;
out:
	free(text);
	free(path);
	return ret;
}

/* Turn clock ticks since boot into unix seconds: boot time is now (realtime)
 * minus the time since boot, finer than /proc/stat's whole-second btime. */
static double ticks_to_unix(unsigned long long ticks)
{
	struct timespec real, boot;
	long hz = sysconf(_SC_CLK_TCK);

	if (hz <= 0)
		hz = 100;
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	return ((double)real.tv_sec + (double)real.tv_nsec / 1e9) -
	       ((double)boot.tv_sec + (double)boot.tv_nsec / 1e9) + (double)ticks / (double)hz;
}

double runid_proc_start(int pid)
{
	char comm[64];
	unsigned long long start;
	int ppid;

	if (read_proc_stat(pid, &ppid, comm, sizeof(comm), &start))
		return -1;
	return ticks_to_unix(start);
}

/* The pid and start (clock ticks since boot) of the nearest make ancestor,
 * else of this process; 0, or -1 when /proc cannot tell. */
static int find_run(int *run_pid, unsigned long long *run_start)
{
	char comm[64];
	int pid = (int)getppid(), ppid;

	/* Bounded: a cycle cannot happen, but a garbled /proc must not loop. */
	for (int depth = 0; pid > 1 && depth < 64; depth++) {
		if (read_proc_stat(pid, &ppid, comm, sizeof(comm), run_start))
			break;
		if (!strcmp(comm, "make") || !strcmp(comm, "gmake")) {
			*run_pid = pid;
			return 0;
		}
		pid = ppid;
	}
	*run_pid = (int)getpid();
	return read_proc_stat(*run_pid, &ppid, comm, sizeof(comm), run_start);
}

/* The boot time in whole unix seconds (/proc/stat's btime), or 0. */
static long long boot_time(void)
{
	char *text, *p;
	size_t len;
	long long v = 0;

	if (read_file_all("/proc/stat", &text, &len))
		return 0;
	p = strstr(text, "\nbtime ");
	if (p)
		v = strtoll(p + 7, NULL, 10);
	free(text);
	return v;
}

/* This process's make run: find_run's answer, looked up once (again in a
 * forked child, whose ancestry differs). */
struct run {
	pid_t for_pid;	/* the process the answer is for */
	int found;	/* find_run succeeded */
	int pid;
	unsigned long long start;
	char tag[RUNID_TAG_SIZE];
};

static const struct run *this_run(void)
{
	static struct run memo;
	long hz;

	if (memo.for_pid == getpid())
		return &memo;
	memo.for_pid = getpid();
	memo.found = !find_run(&memo.pid, &memo.start);
	hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		hz = 100;
	/* Whole-second btime, unlike ticks_to_unix: the same in every process. */
	if (!memo.found)
		snprintf(memo.tag, sizeof(memo.tag), "%d@0", (int)getpid());
	else
		snprintf(memo.tag, sizeof(memo.tag), "%d@%.2f", memo.pid,
			 (double)boot_time() + (double)memo.start / (double)hz);
	return &memo;
}

double runid_start(void)
{
	const struct run *r = this_run();

	return r->found ? ticks_to_unix(r->start) : -1;
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

	if (!os_pid_alive(pid))
		return 0;
	if (start <= 0)
		return 1;
	now_start = runid_proc_start((int)pid);
	/* The tag's btime is whole seconds, /proc's start a little finer. */
	return now_start < 0 || (now_start - start < 2 && start - now_start < 2);
}

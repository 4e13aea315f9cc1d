/* os-linux: os.h on Linux (OFD locks since 3.15, sync_file_range, glibc's
 * posix_spawn_file_actions_addchdir_np since 2.29, pipe2 and SOCK_CLOEXEC,
 * getrandom, /dev/fd, /proc, readdir's d_type). */
#include "os.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int os_lock_range(int fd, off_t offset, off_t len, int exclusive, int wait)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = exclusive ? F_WRLCK : F_RDLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = offset;
	fl.l_len = len;
	while (fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl))
		if (errno != EINTR)
			return -1;
	return 0;
}

void os_start_writeback(int fd)
{
	(void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

int os_spawn_chdir(posix_spawn_file_actions_t *fa, const char *dir)
{
	return posix_spawn_file_actions_addchdir_np(fa, dir);
}

int os_pid_alive(long pid)
{
	if (pid <= 0 || pid > INT_MAX)
		return 0;
	return !kill((pid_t)pid, 0) || errno == EPERM;
}

int os_pipe_cloexec(int fd[2], int nonblock)
{
	return pipe2(fd, O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));
}

int os_socketpair_cloexec(int sv[2])
{
	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
}

/* The abstract address of name: sun_path starts with a NUL byte. */
static socklen_t local_address(struct sockaddr_un *sa, const char *name)
{
	size_t n = strlen(name);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (n + 1 > sizeof(sa->sun_path))
		n = sizeof(sa->sun_path) - 1;
	memcpy(sa->sun_path + 1, name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

int os_listen_local(const char *name)
{
	struct sockaddr_un sa;
	socklen_t len = local_address(&sa, name);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), saved;

	if (fd < 0)
		return -1;
	if (!bind(fd, (struct sockaddr *)&sa, len) && !listen(fd, 1))
		return fd;
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int os_connect_local(const char *name)
{
	struct sockaddr_un sa;
	socklen_t len = local_address(&sa, name);
	struct ucred cred;
	socklen_t cred_len = sizeof(cred);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), saved;

	if (fd < 0)
		return -1;
	while (connect(fd, (struct sockaddr *)&sa, len))
		if (errno != EINTR)
			goto fail;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len))
		goto fail;
	if (cred.uid == geteuid())
		return fd;
	errno = EPERM;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int os_watch_exit(long pid)
{
	if (pid <= 0 || pid > INT_MAX) {
		errno = ESRCH;
		return -1;
	}
	/* pidfd_open (Linux 5.3): readable once the process has ended. */
	return (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
}

void os_close_fds_above(int highest)
{
	/* close_range (Linux 5.9); else each fd up to the limit. */
	if (!syscall(SYS_close_range, (unsigned)highest + 1, ~0U, 0))
		return;
	for (long fd = highest + 1, max = sysconf(_SC_OPEN_MAX); fd < max && fd < 65536; fd++)
		close((int)fd);
}

int os_memory_file(const char *name)
{
	return memfd_create(name, MFD_CLOEXEC);
}

char *os_self_path(void)
{
	return realpath("/proc/self/exe", NULL);
}

/* Parent pid, comm and start (clock ticks since boot) of pid from /proc/PID/stat. */
int os_process_info(int pid, struct os_process *proc)
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
	if (n >= sizeof(proc->comm))
		n = sizeof(proc->comm) - 1;
	memcpy(proc->comm, open_paren + 1, n);
	proc->comm[n] = '\0';
	/* Fields from 3 (state) on, one space apart: ppid is field 4, starttime
	 * field 22; only those two are read as numbers. */
	p = close_paren[1] ? close_paren + 2 : NULL;
	for (int field = 3; field < 22 && p; field++) {
		if (field == 4)
			proc->ppid = (int)strtol(p, NULL, 10);
		p = strchr(p, ' ');
		p = p ? p + 1 : NULL;
	}
	if (p && *p) {
		proc->start = strtoull(p, NULL, 10);
		ret = 0;
	}
out:
	free(text);
	free(path);
	return ret;
}

static double ticks_per_second(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz > 0 ? (double)hz : 100;
}

/* Boot time is now (realtime) minus the time since boot: finer than
 * /proc/stat's whole-second btime, but not the same in two calls. */
double os_ticks_to_unix(unsigned long long ticks)
{
	struct timespec real, boot;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	return ((double)real.tv_sec + (double)real.tv_nsec / 1e9) -
	       ((double)boot.tv_sec + (double)boot.tv_nsec / 1e9) +
	       (double)ticks / ticks_per_second();
}

#define NS_PER_S 1000000000LL

static long long ns_of(const struct timespec *t)
{
	return (long long)t->tv_sec * NS_PER_S + t->tv_nsec;
}

/* btime is the whole seconds of realtime minus boottime, which the clocks
 * tell without a read of /proc/stat (made for every compile step): with
 * realtime read between two boottime readings, the difference lies between
 * the two it gives; 0 when a whole second falls in there (or near it: the
 * clocks round a little differently from the kernel's sum). */
static long long boot_time_from_clocks(void)
{
	struct timespec b0, real, b1;
	long long lo, hi;

	if (clock_gettime(CLOCK_BOOTTIME, &b0) || clock_gettime(CLOCK_REALTIME, &real) ||
	    clock_gettime(CLOCK_BOOTTIME, &b1))
		return 0;
	lo = ns_of(&real) - ns_of(&b1) - 1000;
	hi = ns_of(&real) - ns_of(&b0) + 1000;
	return lo > 0 && lo / NS_PER_S == hi / NS_PER_S ? lo / NS_PER_S : 0;
}

/* The boot time in whole unix seconds (/proc/stat's btime), or 0. */
static long long boot_time(void)
{
	char *text, *p;
	size_t len;
	long long v = boot_time_from_clocks();

	if (v)
		return v;
	if (read_file_all("/proc/stat", &text, &len))
		return 0;
	p = strstr(text, "\nbtime ");
	if (p)
		v = strtoll(p + 7, NULL, 10);
	free(text);
	return v;
}

double os_ticks_to_unix_stable(unsigned long long ticks)
{
	return (double)boot_time() + (double)ticks / ticks_per_second();
}

int os_random(void *buf, size_t n)
{
	return getrandom(buf, n, GRND_NONBLOCK) == (ssize_t)n ? 0 : -1;
}

int os_reopen_fd(int fd, int flags)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/fd/%d", fd);
	return open(path, flags);
}

int os_file_stamp_now(const char *near, struct timespec *now)
{
	char *path = xstrfmt("%s.stamp.%ld", near, (long)getpid());
	int ret = os_file_stamp_at(path, now);

	unlink(path);
	free(path);
	return ret;
}

/* The second write's stamp: once the first one's was looked at (fstat),
 * Linux (6.13 on, multigrain timestamps) gives the next change a precise
 * stamp later than every stamp given before; elsewhere it is the coarse
 * clock, never older than any earlier stamp. */
static int stamp_written(int fd, struct timespec *now)
{
	struct stat st;

	if (pwrite(fd, "1", 1, 0) != 1 || fstat(fd, &st) || pwrite(fd, "2", 1, 0) != 1 ||
	    fstat(fd, &st))
		return -1;
	*now = st.st_mtim;
	return 0;
}

int os_file_stamp_at(const char *path, struct timespec *now)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), ret = -1;

	if (fd >= 0) {
		ret = stamp_written(fd, now);
		close(fd);
	}
	if (ret)
		clock_gettime(CLOCK_REALTIME_COARSE, now);
	return ret;
}

int os_file_stamp_fd(int fd, struct timespec *now)
{
	/* Never emptied: on ext4, a file truncated to 0 is flushed when closed. */
	int ret = stamp_written(fd, now);

	if (ret)
		clock_gettime(CLOCK_REALTIME_COARSE, now);
	return ret;
}

int os_list_folder(const char *path, void (*fn)(const char *name, enum os_kind kind, void *data),
		   void *data)
{
	DIR *dir = opendir(path);
	struct dirent *e;

	if (!dir)
		return -1;
	while ((errno = 0, e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		fn(e->d_name, e->d_type == DT_REG ? OS_KIND_FILE :
		   e->d_type == DT_DIR ? OS_KIND_FOLDER : OS_KIND_OTHER, data);
	}
	if (errno) {
		int err = errno;

		closedir(dir);
		errno = err;
		return -1;
	}
	closedir(dir);
	return 0;
}

/* The environment variable that tells the second start what GLIBC_TUNABLES
 * was: '-' unset, else '=' and its value. */
#define HEAP_MARK "KWARM_HEAP_TUNED"
/* glibc's malloc, asked to back its heap by transparent huge pages and to
 * grow it 64 MB at a time (glibc 2.35 on; older ones ignore the names). */
#define HEAP_TUNABLES "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864"

/* Put GLIBC_TUNABLES back as mark (HEAP_MARK's value) says it was. */
static void heap_restore(const char *mark)
{
	if (mark[0] == '=')
		setenv("GLIBC_TUNABLES", mark + 1, 1);
	else
		unsetenv("GLIBC_TUNABLES");
}

void os_heap_for_bulk(int wanted)
{
	const char *mark = getenv(HEAP_MARK), *user;
	char *cmdline = NULL, *mark_value, *tunables;
	size_t len, nr = 0;
	char **argv;

	if (mark) {
		heap_restore(mark);
		unsetenv(HEAP_MARK);
		return;
	}
	user = getenv("GLIBC_TUNABLES");
	/* The user's own malloc settings stand. */
	if (!wanted || (user && strstr(user, "glibc.malloc.")) ||
	    read_file_all("/proc/self/cmdline", &cmdline, &len) || !len)
		goto out;
	for (size_t i = 0; i < len; i++)
		nr += !cmdline[i];
	argv = xcalloc(nr + 1, sizeof(*argv));
	for (size_t i = 0, at = 0; i < nr; i++, at += strlen(cmdline + at) + 1)
		argv[i] = cmdline + at;
	mark_value = user ? xstrfmt("=%s", user) : xstrdup("-");
	tunables = user && *user ? xstrfmt("%s:%s", user, HEAP_TUNABLES) : xstrdup(HEAP_TUNABLES);
	if (!setenv(HEAP_MARK, mark_value, 1) && !setenv("GLIBC_TUNABLES", tunables, 1))
		execv("/proc/self/exe", argv);
	/* Not started again: on as we are, with the environment as it was. */
	heap_restore(mark_value);
	unsetenv(HEAP_MARK);
	free(mark_value);
	free(tunables);
	free(argv);
out:
	free(cmdline);
}

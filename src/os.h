/* os: the calls that are not plain POSIX, behind one small interface (as
 * samurai's os.h and GNU make's os.h). os-linux.c implements it for Linux, the
 * platform kwarm builds on; another platform would add its own os-<name>.c
 * (CMakeLists.txt picks one). Nothing else makes these calls or reads /proc,
 * and no other file has a platform #ifdef. */
#ifndef KWARM_OS_H
#define KWARM_OS_H

#include <spawn.h>
#include <sys/types.h>
#include <time.h>

/* Lock len bytes of fd's file at offset (len 0: to its end) for fd's open
 * file description, not for the process: the lock goes with the fd (a child
 * that does not inherit it holds none), and two descriptions of one file
 * conflict even within a process. Exclusive, or shared; with wait, until it
 * is free. 0, or -1 with errno set (EAGAIN or EACCES: held, without wait). */
int os_lock_range(int fd, off_t offset, off_t len, int exclusive, int wait);
/* Start writing fd's data back to disk without waiting for it (a hint that
 * shortens a later fsync). */
void os_start_writeback(int fd);
/* Have the child that posix_spawn starts with fa run in folder dir; 0, or
 * an error number. */
int os_spawn_chdir(posix_spawn_file_actions_t *fa, const char *dir);
/* Whether process pid exists (this user's or another's). */
int os_pid_alive(long pid);
/* Fill buf with n random bytes without blocking; 0, or -1 when the system
 * has none to give yet. */
int os_random(void *buf, size_t n);
/* A new open file description of what fd refers to (so that its flags, such
 * as O_NONBLOCK, are ours alone), opened with flags; -1 with errno set when
 * the system cannot reopen it. */
int os_reopen_fd(int fd, int flags);
/* A pipe whose two ends are close-on-exec from the start (no window in which
 * a spawned child inherits them), non-blocking when nonblock is set; 0, or -1
 * with errno set. */
int os_pipe_cloexec(int fd[2], int nonblock);
/* A connected pair of AF_UNIX stream sockets, both close-on-exec from the
 * start; 0, or -1 with errno set. */
int os_socketpair_cloexec(int sv[2]);
/* A listening AF_UNIX stream socket named name in the abstract namespace (no
 * file: the name goes when the socket closes), close-on-exec; -1 with errno
 * set (EADDRINUSE: the name is taken). */
int os_listen_local(const char *name);
/* A socket connected to the one os_listen_local named name, when a process
 * of this user holds it; -1 with errno set otherwise (EPERM: another user's). */
int os_connect_local(const char *name);
/* An fd that turns readable when process pid ends (close-on-exec); -1 with
 * errno set where the system cannot watch it. */
int os_watch_exit(long pid);
/* Close every fd above highest (what a process that outlives its parent's
 * job must not hold: a pipe someone reads to its end, a jobserver's). */
void os_close_fds_above(int highest);
/* The time the file system gives a file changed now, read off a small file
 * written beside near (then removed): a file changed before the call is
 * older than now, one changed after is not. 0; or -1 when that file cannot
 * be written, and now is the coarse clock. */
int os_file_stamp_now(const char *near, struct timespec *now);
/* The same, written to the file at path (created or emptied), which stays. */
int os_file_stamp_at(const char *path, struct timespec *now);
/* The same, written to the open file fd (its first byte, rewritten). */
int os_file_stamp_fd(int fd, struct timespec *now);
/* A file in memory only (memfd), close-on-exec, which /dev/fd/FD opens
 * again; -1 with errno set where there is none. */
int os_memory_file(const char *name);
/* The absolute path of this program (caller frees), or NULL with errno set. */
char *os_self_path(void);

/* For a process about to build a large heap: have the C library back it by
 * huge pages and grow it in large steps, which it reads only as a program
 * starts, so this starts the program again (same arguments, same
 * environment once it runs) and returns there, or returns at once when
 * wanted is 0, the user set the allocator's own settings, or it cannot.
 * Call it first thing, wanted or not: the second start undoes its mark. */
void os_heap_for_bulk(int wanted);

/* What a folder's listing tells of a name, without a stat: a regular file, a
 * folder, or something else or unknown (a symbolic link, a device, a file
 * system that does not say). */
enum os_kind { OS_KIND_OTHER, OS_KIND_FILE, OS_KIND_FOLDER };
/* Call fn with each name of folder path but "." and "..", and its kind; 0, or
 * -1 with errno set when the folder cannot be listed. */
int os_list_folder(const char *path, void (*fn)(const char *name, enum os_kind kind, void *data),
		   void *data);

/* What the system tells of a process. */
struct os_process {
	int ppid;
	char comm[64];			/* its command name, as the kernel keeps it (cut to fit) */
	unsigned long long start;	/* clock ticks since boot */
};
/* Fill p for process pid; 0, or -1 when the system cannot tell. */
int os_process_info(int pid, struct os_process *p);
/* Clock ticks since boot as unix seconds, as finely as the clocks tell (two
 * calls may differ by a little). */
double os_ticks_to_unix(unsigned long long ticks);
/* The same from the boot time in whole seconds: equal in every process that
 * asks, within one boot. */
double os_ticks_to_unix_stable(unsigned long long ticks);

#endif

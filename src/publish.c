#include "publish.h"
#include "cache/cacheentry.h"
#include "path.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The temp registry. Signal handlers read it, so it is a fixed static array
 * (no allocation, no locks): a slot's path is written first and only then is
 * the slot marked used, with a signal fence in between, so that a handler
 * never sees a half-written path. The owner pid keeps a forked child (which
 * inherits the array and the atexit handler) from removing its parent's temps.
 * Only the slots below temps_end were ever used: the cleanup reads no further,
 * as each slot is a page of its own that reading would fault in (64 page
 * faults, half of a compile step's).
 */
struct temp_slot {
	volatile sig_atomic_t used;
	pid_t owner;
	char path[PATH_MAX];
};

static struct temp_slot temps[PUBLISH_MAX_TEMPS];
static volatile sig_atomic_t temps_end;
static volatile sig_atomic_t watched_child = -1;
static int atexit_installed;
static int signals_installed;

/* Remove every temp this process registered (async-signal-safe: unlink).
 * Entries stay registered. */
static void cleanup_all(void)
{
	int saved = errno;
	pid_t me = getpid();
	size_t end = (size_t)temps_end;

	for (size_t i = 0; i < end; i++) {
		if (!temps[i].used || temps[i].owner != me)
			continue;
		atomic_signal_fence(memory_order_seq_cst);
		unlink(temps[i].path);
	}
	errno = saved;
}

static void cleanup_on_signal(int sig)
{
	pid_t child = (pid_t)watched_child;

	if (child > 0) {
		int saved = errno;

		if (sig == SIGTERM)
			kill(child, SIGTERM);
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
		errno = saved;
	}
	cleanup_all();
	/* The signal stays blocked until we return, so the re-raised one is
	 * delivered then, with the default action: the parent sees the real
	 * cause of death. */
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Install handler (sa_mask: mask) for sig unless it has one: an inherited
 * SIG_IGN (nohup, background jobs) or someone else's handler wins over ours. */
static void take_if_default(int sig, void (*handler)(int), const sigset_t *mask)
{
	struct sigaction old, sa;

	if (sigaction(sig, NULL, &old) || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_mask = *mask;
	sigaction(sig, &sa, NULL);
}

void publish_install_signal_cleanup(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t mask;

	if (signals_installed)
		return;
	signals_installed = 1;
	sigemptyset(&mask);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaddset(&mask, sigs[i]);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		take_if_default(sigs[i], cleanup_on_signal, &mask);
}

int publish_register_temp(const char *path, struct buf *why)
{
	size_t len = strlen(path), i;

	if (len >= sizeof(temps[0].path))
		return error_to(why, "cannot register temp '%s': path too long", path);
	for (i = 0; i < ARRAY_SIZE(temps); i++) {
		if (temps[i].used)
			continue;
		memcpy(temps[i].path, path, len + 1);
		temps[i].owner = getpid();
		atomic_signal_fence(memory_order_seq_cst);
		if ((size_t)temps_end <= i)
			temps_end = (sig_atomic_t)(i + 1);
		atomic_signal_fence(memory_order_seq_cst);
		temps[i].used = 1;
		if (!atexit_installed) {
			if (atexit(cleanup_all))
				warning("cannot register the temp cleanup at exit");
			atexit_installed = 1;
		}
		publish_install_signal_cleanup();
		return (int)i;
	}
	return error_to(why, "cannot register temp '%s': more than %d temps at once",
			path, PUBLISH_MAX_TEMPS);
}

void publish_unregister_temp(int slot)
{
	if (slot < 0)
		return;
	if (slot >= PUBLISH_MAX_TEMPS)
		BUG("temp slot %d out of range", slot);
	temps[slot].used = 0;
	atomic_signal_fence(memory_order_seq_cst);
}

void publish_watch_child(pid_t pid)
{
	watched_child = pid;
}

void publish_ignore_file_size_signal(void)
{
	sigset_t none;

	/* Past RLIMIT_FSIZE the kernel sends SIGXFSZ, whose default kills us
	 * mid-write, with no word said and the temp left behind; ignored, the
	 * write fails with EFBIG and its caller says which file. */
	sigemptyset(&none);
	take_if_default(SIGXFSZ, SIG_IGN, &none);
}

int publish_begin(struct publish *p, const char *final, struct buf *why)
{
	int attempt;

	*p = (struct publish)PUBLISH_INIT;
	publish_ignore_file_size_signal();
	for (attempt = 0; attempt < 100; attempt++) {
		struct buf name = BUF_INIT;
		char *tmp;
		int slot, fd;

		/* Named as cacheentry.h says, so that a temp left in a cache is
		 * known for its process's. */
		cache_add_temp_name(&name, final, (long)getpid(), cache_temp_word());
		tmp = buf_detach(&name);
		/* Registered before it exists, so no signal can leave it behind. */
		slot = publish_register_temp(tmp, why);

		if (slot < 0) {
			free(tmp);
			return -1;
		}
		fd = open(tmp, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		if (fd >= 0) {
			p->final = xstrdup(final);
			p->tmp = tmp;
			p->fd = fd;
			p->slot = slot;
			return 0;
		}
		if (errno != EEXIST) {
			error_errno_to(why, "cannot create '%s'", tmp);
			publish_unregister_temp(slot);
			free(tmp);
			return -1;
		}
		publish_unregister_temp(slot);
		free(tmp);
	}
	return error_to(why, "cannot create a temp file for '%s': too many name clashes", final);
}

int publish_write(struct publish *p, const void *data, size_t len, struct buf *why)
{
	if (!p->tmp || p->fd < 0)
		BUG("publish_write without publish_begin");
	if (write_all(p->fd, data, len)) {
		error_errno_to(why, "cannot write '%s'", p->tmp);
		publish_abort(p);
		return -1;
	}
	return 0;
}

void publish_remove_orphans(const char *dir, const char *suffix, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;
	double now = now_wall();
	size_t slen = strlen(suffix), len;
	long pid;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (depth > 0 && (de->d_type == DT_DIR ||
				  (de->d_type == DT_UNKNOWN &&
				   !fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
				   S_ISDIR(st.st_mode)))) {
			char *sub = path_join(dir, de->d_name);

			publish_remove_orphans(sub, suffix, depth - 1);
			free(sub);
			continue;
		}
		/* "<final>.tmp.<pid>.<8 hex>", final ending in suffix. */
		if ((pid = cache_temp_name_pid(de->d_name)) <= 0)
			continue;
		len = strlen(de->d_name) - strlen(".tmp..") - 8 - (size_t)snprintf(NULL, 0, "%ld", pid);
		if (len < slen || strncmp(de->d_name + len - slen, suffix, slen) ||
		    strncmp(de->d_name + len, ".tmp.", 5))
			continue;
		if (!fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    cache_temp_orphaned(pid, (double)st.st_mtime, now))
			(void)unlinkat(dirfd(d), de->d_name, 0);
	}
	if (d)
		closedir(d);
}

int publish_sync_folder_gently(const char *path, struct buf *why)
{
	char *dir = path_dirname(path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0) {
		ret = error_errno_to(why, "cannot open folder '%s'", dir);
	} else {
		/* Some filesystems cannot fsync a folder (EINVAL): nothing to do. */
		if (fsync(fd) && errno != EINVAL)
			ret = error_errno_to(why, "cannot fsync folder '%s'", dir);
		close(fd);
	}
	free(dir);
	return ret;
}

/* What commit fsyncs. */
enum { SYNC_FILE = 1, SYNC_FOLDER = 2, SYNC_BOTH = 3 };

/* publish_commit, with the fsyncs sync says. */
static int commit(struct publish *p, int sync, struct buf *why)
{
	int fd, ret;

	if (!p->tmp || p->fd < 0)
		BUG("publish_commit without publish_begin");
	if ((sync & SYNC_FILE) && fsync(p->fd)) {
		error_errno_to(why, "cannot fsync '%s'", p->tmp);
		goto fail;
	}
	fd = p->fd;
	p->fd = -1;
	/* Delayed write errors (NFS, quotas) may only show up here. */
	if (close(fd)) {
		error_errno_to(why, "cannot close '%s'", p->tmp);
		goto fail;
	}
	if (rename(p->tmp, p->final)) {
		error_errno_to(why, "cannot rename '%s' to '%s'", p->tmp, p->final);
		goto fail;
	}
	publish_unregister_temp(p->slot);
	p->slot = -1;
	free(p->tmp);
	p->tmp = NULL;
	ret = sync & SYNC_FOLDER ? publish_sync_folder_gently(p->final, why) : 0;
	publish_abort(p);
	return ret;
fail:
	publish_abort(p);
	return -1;
}

int publish_commit(struct publish *p, struct buf *why)
{
	return commit(p, SYNC_BOTH, why);
}

int publish_commit_batched(struct publish *p, struct buf *why)
{
	return commit(p, SYNC_FILE, why);
}

void publish_abort(struct publish *p)
{
	if (p->tmp) {
		if (p->fd >= 0)
			close(p->fd);
		unlink(p->tmp);
		publish_unregister_temp(p->slot);
		free(p->tmp);
	}
	free(p->final);
	*p = (struct publish)PUBLISH_INIT;
}

/* begin + write + commit with the fsyncs sync says. */
static int publish_bytes(const char *final, const void *data, size_t len, int sync,
			 struct buf *why)
{
	struct publish p;

	if (publish_begin(&p, final, why) || publish_write(&p, data, len, why))
		return -1;
	return commit(&p, sync, why);
}

int publish_bytes_gently(const char *final, const void *data, size_t len, struct buf *why)
{
	return publish_bytes(final, data, len, SYNC_BOTH, why);
}

int publish_unsynced_gently(const char *final, const void *data, size_t len, struct buf *why)
{
	return publish_bytes(final, data, len, 0, why);
}


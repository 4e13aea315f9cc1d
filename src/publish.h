/* publish: atomic publication of a file (write a temp, fsync, rename, fsync the
 * folder), plus the process's registry of temporaries to remove on exit or on
 * a fatal signal (redis rio and git lockfile/tempfile, smaller).
 *
 * Readers of a published name see either the old file or the whole new one,
 * never a partial write. kwarm is single-threaded: the registry is not locked.
 * Every file kwarm writes is published here; its temps are named as a cache's
 * are (cacheentry.h), so that one left in a cache is known for an orphan.
 */
#ifndef KWARM_PUBLISH_H
#define KWARM_PUBLISH_H

#include <stddef.h>
#include <sys/types.h>

struct buf;

/* Slots of the temp registry: at most this many temps exist at once. */
#define PUBLISH_MAX_TEMPS 64

struct publish {
	char *final;	/* the name to publish under (owned) */
	char *tmp;	/* the temp being written, NULL when none (owned) */
	int fd;		/* open on tmp, -1 when closed */
	int slot;	/* registry slot of tmp, -1 when none */
};

#define PUBLISH_INIT { .final = NULL, .tmp = NULL, .fd = -1, .slot = -1 }

/* Create a temp of final beside it (its name: cacheentry.h; O_EXCL, mode 0644 & ~umask),
 * register it for removal on exit/signals, and set SIGXFSZ to SIG_IGN when it
 * was SIG_DFL so that going past RLIMIT_FSIZE fails a write with EFBIG instead
 * of killing the process. 0, or -1 after reporting (p then holds nothing).
 * Here and below, a failure's reason goes to why (error_to: "; "-separated;
 * on stderr when why is NULL), for a caller that decides whether it is shown. */
int publish_begin(struct publish *p, const char *final, struct buf *why);
/* write_all to the temp; on failure report "cannot write", abort p and return -1. */
int publish_write(struct publish *p, const void *data, size_t len, struct buf *why);
/* fsync, close, rename over final, fsync the folder. On failure report the step
 * and remove the temp; the final name is untouched unless only the folder fsync
 * failed (the rename was done). p holds nothing afterwards either way. */
int publish_commit(struct publish *p, struct buf *why);
/* The same without the folder's fsync, for a file published before others in
 * the same folder: the publish_commit of the last one makes every rename
 * there durable. */
int publish_commit_batched(struct publish *p, struct buf *why);
/* Close and remove the temp and free p's strings. Idempotent; safe after commit
 * and on a PUBLISH_INIT or zeroed struct. */
void publish_abort(struct publish *p);
/* begin + write + commit of one whole buffer. */
int publish_bytes_gently(const char *final, const void *data, size_t len, struct buf *why);
/* The same without the fsyncs: readers see the old file or the whole new
 * one, but a machine crash may leave it empty, with zero-filled blocks or a
 * prefix. For a file every reader checks whole (a cache entry, by its
 * trailer: the check takes that for a miss) or a report (rewritten anyway). */
int publish_unsynced_gently(const char *final, const void *data, size_t len, struct buf *why);
/* Remove in dir, and in its folders depth levels down, the temps of finals
 * named "*suffix" that processes now gone left (killed before their rename
 * or cleanup: cacheentry.h's orphans), as nothing else does outside a cache.
 * A readdir of each folder: for a run's first step, not for each publish.
 * Quiet: one that cannot be removed stays. */
void publish_remove_orphans(const char *dir, const char *suffix, int depth);
/* fsync path's folder, making a rename there durable; 0, or -1 after reporting. */
int publish_sync_folder_gently(const char *path, struct buf *why);

/* Set SIGXFSZ to SIG_IGN when it is SIG_DFL: past RLIMIT_FSIZE a write
 * then fails with EFBIG, reported as any write error, instead of the signal
 * killing the process. For a command that writes files, before its first
 * write (publish_begin calls it too); children started through run.h get the
 * default back. */
void publish_ignore_file_size_signal(void);
/* Install, once, SIGINT/SIGTERM/SIGHUP handlers that remove the registered temps
 * and re-raise with the default action. A signal that is ignored or already has
 * a handler is left alone (an inherited SIG_IGN stays). Callable many times. */
void publish_install_signal_cleanup(void);
/* Register a temp file (removed at exit and on signals unless unregistered
 * first); also installs the signal handlers. The path is copied, so a relative
 * path means relative to the current folder at cleanup time. Returns the slot,
 * or -1 after reporting to why (registry full, path too long). */
int publish_register_temp(const char *path, struct buf *why);
/* Forget a slot (no removal); -1 is ignored. */
void publish_unregister_temp(int slot);
/* The child that may write the temps now (-1: none). On a fatal signal the
 * cleanup waits for it to end, after passing it a SIGTERM (a Ctrl-C reaches
 * the whole process group, a SIGTERM from make only us), so that it neither
 * writes a temp after its removal nor runs on alone. */
void publish_watch_child(pid_t pid);

#endif

#include "logappend.h"
#include "buf.h"
#include "publish.h"
#include "path.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int logappend_line(const char *lockpath, const char *log, const char *line, off_t *end)
{
	/* Without a lock file (a read-only cache) the append fails as well. */
	int lockfd = lockpath ? open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0666) : -1;
	int fd, ret = -1, saved = 0;

	if (lockfd >= 0)
		(void)flock_retry(lockfd, LOCK_SH);
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd >= 0 && !write_all(fd, line, strlen(line))) {
		ret = 0;
		/* On an O_APPEND descriptor the offset is now the end of the line. */
		if (end)
			*end = lseek(fd, 0, SEEK_CUR);
	}
	saved = errno;
	if (fd >= 0)
		close(fd);
	if (lockfd >= 0)
		close(lockfd);	/* drops the flock */
	errno = saved;
	return ret;
}

int logappend_compact(const char *lockpath, const char *log, int wait,
		      logappend_rewrite_fn rewrite, void *data, struct buf *why)
{
	int lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0666), ret = 0;
	struct buf out = BUF_INIT;
	char *text = NULL;
	size_t len;

	/* No lock file, or someone else compacting or appending: another time. */
	if (lockfd < 0 || flock_retry(lockfd, wait ? LOCK_EX : LOCK_EX | LOCK_NB))
		goto out;
	if (read_file_all(log, &text, &len)) {
		if (errno != ENOENT)
			ret = error_errno_to(why, "cannot read '%s'", log);
		goto out;
	}
	ret = rewrite(text, len, &out, data);
	if (ret > 0)
		ret = publish_bytes_gently(log, out.s ? out.s : "", out.len, why);
out:
	if (lockfd >= 0)
		close(lockfd);	/* drops the flock */
	buf_release(&out);
	free(text);
	return ret;
}

int logappend_load(const char *dir, const char *name, logappend_parse_fn parse, void *data)
{
	char *log = path_join(dir, name), *text;
	size_t len;
	int ret = 0;

	if (!read_file_all(log, &text, &len)) {
		parse(text, len, data);
		free(text);
	} else if (errno != ENOENT) {
		ret = error_errno("cannot read '%s'", log);
	}
	free(log);
	return ret;
}

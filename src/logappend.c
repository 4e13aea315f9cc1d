#include "logappend.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

void logappend_lock(int fd, int how)
{
	if (fd >= 0)
		while (flock(fd, how) && errno == EINTR)
			;
}

int logappend_line(const char *lockpath, const char *log, const char *line, int *keep_lock,
		   off_t *end)
{
	/* Without a lock file (a read-only cache) the append fails as well. */
	int lockfd = lockpath ? open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0666) : -1;
	int fd, ret = -1, saved = 0;

	logappend_lock(lockfd, LOCK_SH);
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
	if (keep_lock)
		*keep_lock = lockfd;
	else if (lockfd >= 0)
		close(lockfd);	/* drops the flock */
	errno = saved;
	return ret;
}

/* os-linux: os.h on Linux (OFD locks since 3.15, sync_file_range, glibc's
 * posix_spawn_file_actions_addchdir_np since 2.29, /proc). */
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

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

char *os_self_path(void)
{
	return realpath("/proc/self/exe", NULL);
}

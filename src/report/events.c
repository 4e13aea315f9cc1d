#include "report/events.h"
#include "buf.h"
#include "logappend.h"
#include "path.h"
#include "plan/planfile.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void events_append(const char *run_dir, const struct event *ev)
{
	struct buf b = BUF_INIT;
	char *path;

	if (ev->kind == EVENT_UNIT || ev->kind == EVENT_PACK) {
		buf_addf(&b, "%s %s %s %.3f ", ev->kind == EVENT_UNIT ? "unit" : "pack", ev->key,
			 ev->status, ev->seconds);
		planfile_add_owners(&b, ev->owners);
		if (ev->kind == EVENT_UNIT)
			buf_addf(&b, " %s", ev->label);
		buf_addch(&b, '\n');
	} else
		buf_addf(&b, "remote %llu %llu %llu %llu %llu %llu\n", ev->remote[0], ev->remote[1],
			 ev->remote[2], ev->remote[3], ev->remote[4], ev->remote[5]);
	path = path_join(run_dir, EVENTS_FILE);
	/* The caller holds the run state's lock: no lock file of its own. */
	(void)logappend_line(NULL, path, b.s, NULL);
	free(path);
	buf_release(&b);
}

/* Split line at spaces into at most n fields (the last one takes the rest). */
static size_t split(char *line, char **f, size_t n)
{
	size_t k = 0;

	while (k < n && line) {
		f[k++] = line;
		line = k < n ? strchr(line, ' ') : NULL;
		if (line)
			*line++ = '\0';
	}
	return k;
}

/* Parse line (its LF cut; split in place): 0, or -1 when it is no event. */
static int parse(char *line, struct event *ev, struct strvec *owners)
{
	char *f[7];
	size_t n = starts_with(line, "remote ") ? 7 : 6, k = split(line, f, n);

	memset(ev, 0, sizeof(*ev));
	if (k == 6 && !strcmp(f[0], "unit")) {
		ev->kind = EVENT_UNIT;
		ev->label = f[5];
	} else if (k == 5 && !strcmp(f[0], "pack")) {
		ev->kind = EVENT_PACK;
	} else if (k == 7) {
		ev->kind = EVENT_REMOTE;
		for (int i = 0; i < EVENT_NR_REMOTE; i++)
			ev->remote[i] = strtoull(f[i + 1], NULL, 10);
		return 0;
	} else {
		return -1;
	}
	ev->key = f[1];
	ev->status = f[2];
	ev->seconds = strtod(f[3], NULL);
	strvec_clear(owners);
	planfile_split_owners(owners, f[4]);
	ev->owners = owners;
	return 0;
}

void events_each(const char *run_dir, void (*fn)(const struct event *ev, void *data),
		 void *data)
{
	char *path = path_join(run_dir, EVENTS_FILE), *text, *line, *nl;
	struct strvec owners;
	struct event ev;
	size_t len;

	strvec_init(&owners);

	if (!read_file_all(path, &text, &len)) {
		for (line = text; (nl = memchr(line, '\n', len - (size_t)(line - text))); line = nl + 1) {
			*nl = '\0';
			if (!parse(line, &ev, &owners))
				fn(&ev, data);
		}
		free(text);
	}
	strvec_release(&owners);
	free(path);
}

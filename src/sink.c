#include "sink.h"
#include "util.h"

#include <string.h>
#include <unistd.h>

void sink_init(struct sink *s)
{
	*s = (struct sink){ .b = BUF_INIT, .pub = PUBLISH_INIT };
}

int sink_begin(struct sink *s, const char *final)
{
	sink_init(s);
	if (publish_begin(&s->pub, final, NULL))
		return -1;
	s->to_file = 1;
	return 0;
}

static void write_out(struct sink *s)
{
	if (!s->failed && publish_write(&s->pub, s->b.s, s->b.len, NULL))
		s->failed = 1;
	s->written += s->b.len;
	buf_reset(&s->b);
}

void sink_flush(struct sink *s)
{
	if (s->to_file && s->b.len >= SINK_CHUNK)
		write_out(s);
}

void sink_patch(struct sink *s, uint64_t offset, const void *data, size_t len)
{
	const char *p = data;
	size_t done = offset + len > s->written ? (size_t)(offset + len - s->written) : 0;

	/* The tail still in the buffer, then the head already written. */
	if (done > len)
		done = len;
	memcpy(s->b.s + (offset + len - done - s->written), p + len - done, done);
	len -= done;
	if (!len || s->failed)
		return;
	if (pwrite(s->pub.fd, p, len, (off_t)offset) != (ssize_t)len) {
		error_errno("cannot write '%s'", s->pub.tmp);
		publish_abort(&s->pub);
		s->failed = 1;
	}
}

int sink_finish(struct sink *s)
{
	if (s->to_file && s->b.len)
		write_out(s);
	return s->failed ? -1 : 0;
}

int sink_commit(struct sink *s)
{
	int ret = sink_finish(s) ? -1 : publish_commit(&s->pub, NULL);

	sink_release(s);
	return ret;
}

void sink_release(struct sink *s)
{
	buf_release(&s->b);
	publish_abort(&s->pub);
	s->to_file = 0;
}

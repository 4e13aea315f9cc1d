#include "json.h"

void json_add_string(struct buf *b, const char *s)
{
	buf_addch(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			buf_addch(b, '\\');
			buf_addch(b, (char)*p);
		} else if (*p < 0x20 || *p == 0x7f) {
			buf_addf(b, "\\u%04x", *p);
		} else {
			buf_addch(b, (char)*p);
		}
	}
	buf_addch(b, '"');
}

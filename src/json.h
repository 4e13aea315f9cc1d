/* json: the little JSON writing the reports need (trace, summary, cache stats). */
#ifndef KWARM_JSON_H
#define KWARM_JSON_H

#include "buf.h"

/* Append s as a JSON string, quotes included (control bytes as \u00XX). */
void json_add_string(struct buf *b, const char *s);

#endif

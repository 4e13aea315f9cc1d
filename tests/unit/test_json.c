/* Unit tests of json: json_add_string's quoting and escapes, checked against
 * exact text and by decoding the result back with a small JSON string reader. */
#include "buf.h"
#include "check.h"
#include "json.h"
#include "util.h"

#include <stdlib.h>

static char *quoted(const char *s)
{
	struct buf b = BUF_INIT;

	json_add_string(&b, s);
	return buf_detach(&b);
}

/* Decode one JSON string literal (the whole of text) as RFC 8259 says; NULL
 * when it is not one: unescaped control characters and quotes are refused. */
static char *decode(const char *text)
{
	struct buf b = BUF_INIT;
	const unsigned char *p = (const unsigned char *)text;

	if (*p++ != '"')
		return NULL;
	for (; *p && *p != '"'; p++) {
		if (*p < 0x20)
			goto bad;
		if (*p != '\\') {
			buf_addch(&b, (char)*p);
			continue;
		}
		switch (*++p) {
		case '"': case '\\': case '/':
			buf_addch(&b, (char)*p);
			break;
		case 'n': buf_addch(&b, '\n'); break;
		case 't': buf_addch(&b, '\t'); break;
		case 'r': buf_addch(&b, '\r'); break;
		case 'b': buf_addch(&b, '\b'); break;
		case 'f': buf_addch(&b, '\f'); break;
		case 'u': {
			char hex[5];
			char *end;
			long v;

			if (!p[1] || !p[2] || !p[3] || !p[4])
				goto bad;
			memcpy(hex, p + 1, 4);
			hex[4] = '\0';
			v = strtol(hex, &end, 16);
			if (*end || v > 0x7f)	/* the writer only escapes ASCII */
				goto bad;
			buf_addch(&b, (char)v);
			p += 4;
			break;
		}
		default:
			goto bad;
		}
	}
	if (*p != '"' || p[1])
		goto bad;
	return buf_detach(&b);
bad:
	buf_release(&b);
	return NULL;
}

static void round_trip(const char *s)
{
	char *q = quoted(s), *back = decode(q);

	if (!CHECK(back != NULL))
		fprintf(stderr, "  not a JSON string: %s\n", q);
	else
		CHECK_STR(back, s);
	free(back);
	free(q);
}

/* Exact text: quotes and backslashes escaped, control bytes and 0x7f as \u00XX,
 * '/' and UTF-8 byte for byte. */
static void test_escapes(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "", "\"\"" },
		{ "plain text 123", "\"plain text 123\"" },
		{ "say \"hi\" \\ back\\slash", "\"say \\\"hi\\\" \\\\ back\\\\slash\"" },
		{ "a\nb\tc\rd\x01\x1f\x7f" "e", "\"a\\u000ab\\u0009c\\u000dd\\u0001\\u001f\\u007fe\"" },
		{ "a/b \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "\"a/b \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *q = quoted(cases[i].in);

		CHECK_STR(q, cases[i].want);
		free(q);
	}
}

/* Appends: what was in the buffer stays. */
static void test_append(void)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "{\"k\":");
	json_add_string(&b, "v");
	buf_addch(&b, '}');
	CHECK_STR(b.s, "{\"k\":\"v\"}");
	buf_release(&b);
}

/* Every ASCII byte, then labels as kwarm makes them, decode back. */
static void test_round_trip(void)
{
	char all[128];

	for (int i = 1; i < 128; i++)
		all[i - 1] = (char)i;
	all[127] = '\0';
	round_trip(all);
	round_trip("incore 'rms_norm' (aiv)");
	round_trip("TestX/\"quoted\"\\path\twith\ttabs");
	round_trip("\xe4\xb8\xad\xe6\x96\x87");
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	TEST(test_escapes(), "escapes");
	TEST(test_append(), "append");
	TEST(test_round_trip(), "round_trip");
	return check_done();
}

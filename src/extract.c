/* placeholder until the libelf extraction lands (issue 6) */
#include "extract.h"
#include "util.h"

int extract_text(const char *image_path, const char *out_path, const char *label)
{
	(void)image_path;
	(void)out_path;
	return error("%s: 'extract: text' is not supported by this kwarm yet", label);
}

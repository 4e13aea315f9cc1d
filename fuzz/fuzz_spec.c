/* fuzz_spec: libFuzzer harness for the spec loader, the planner and the
 * Makefile writer. Each input is written as ROOT/spec.yaml and loaded; a spec
 * that loads is planned (cache and out under ROOT) and its Makefile and side
 * files are made in memory. Nothing is written to disk past ROOT/spec.yaml.
 *
 * ROOT is a fresh folder under TMPDIR (default /dev/shm, else /tmp) holding a copy of every
 * example's tree, so that seeds naming kernels/... or include/... find their
 * sources and reach the planner instead of stopping at "does not exist".
 * Error messages go to stderr; run with -close_fd_mask=2 to hide them. */
#include "buf.h"
#include "output.h"
#include "path.h"
#include "plan/plan.h"
#include "run.h"
#include "spec/spec.h"
#include "util.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef KWARM_SOURCE_DIR
#error "KWARM_SOURCE_DIR must name the source tree (fuzz/CMakeLists.txt sets it)"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Set once at start-up, read by every input: the harness's own state. */
static char *root, *spec_path, *cache_dir, *out_dir, *self_path, *plan_path;

static void remove_root(void)
{
	const char *argv[] = { "rm", "-rf", root, NULL };
	struct buf out = BUF_INIT;
	struct run_result res;

	run_capture(argv, "/", &out, &res, NULL);
	buf_release(&out);
}

/* cp -r SRC/. ROOT (merging the examples' trees). */
static void copy_tree(const char *src)
{
	char *from = xstrfmt("%s/.", src);
	const char *argv[] = { "cp", "-r", from, root, NULL };
	struct buf out = BUF_INIT;
	struct run_result res;

	if (run_capture(argv, "/", &out, &res, NULL) || !res.exited || res.status)
		die("fuzz_spec: cannot copy '%s' to '%s': %s", src, root, buf_str(&out));
	buf_release(&out);
	free(from);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *base = getenv("TMPDIR");
	char *tmpl;
	DIR *examples = opendir(KWARM_SOURCE_DIR "/examples");
	struct dirent *de;

	(void)argc;
	(void)argv;
	if (!base || !*base)
		base = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
	tmpl = xstrfmt("%s/kwarm-fuzz-XXXXXX", base);
	if (!examples)
		die("fuzz_spec: cannot open '%s'", KWARM_SOURCE_DIR "/examples");
	if (!mkdtemp(tmpl))
		die("fuzz_spec: cannot make a folder from '%s'", tmpl);
	root = tmpl;
	atexit(remove_root);
	while ((de = readdir(examples))) {
		char *dir = xstrfmt("%s/examples/%s", KWARM_SOURCE_DIR, de->d_name);
		struct stat st;

		if (de->d_name[0] != '.' && !stat(dir, &st) && S_ISDIR(st.st_mode))
			copy_tree(dir);
		free(dir);
	}
	closedir(examples);
	spec_path = path_join(root, "spec.yaml");
	cache_dir = path_join(root, "cache");
	out_dir = path_join(root, "out");
	self_path = path_join(root, "warmup.mk");
	plan_path = path_join(root, "warmup.mk.plan");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct makefile_options opts = { .kwarm = "/usr/bin/kwarm", .self = self_path,
					 .spec_abs = spec_path, .plan_file = plan_path };
	struct spec spec;
	struct plan plan;
	struct gen_output out;
	int fd = open(spec_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write_all(fd, data, size) || close(fd))
		die("fuzz_spec: cannot write '%s'", spec_path);
	if (spec_load(&spec, spec_path))
		return 0;
	gen_output_init(&out);
	if (!plan_build(&plan, &spec, cache_dir, out_dir, NULL))
		gen_output_make(&out, &plan, &opts);
	plan_release(&plan);
	spec_release(&spec);
	gen_output_release(&out);
	return 0;
}

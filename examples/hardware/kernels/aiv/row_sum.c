/* out[r] = sum of row r of an rows x cols matrix; args: m, out, rows, cols */
#include "hw_kernel.h"

__attribute__((noinline)) static float sum(const float *p, unsigned long n)
{
	float s = 0.0f;

	for (unsigned long i = 0; i < n; i++)
		s += p[i];
	return s;
}

KERNEL_ENTRY
{
	const float *m = hw_ptr(args, 0);
	float *out = hw_ptr(args, 1);
	unsigned long rows = args[2], cols = args[3];

	for (unsigned long r = 0; r < rows; r++)
		out[r] = sum(m + r * cols, cols);
}

/* out[i] = a[i] + b[i]; args: a, b, out, n */
#include "hw_kernel.h"

KERNEL_ENTRY
{
	const float *a = hw_ptr(args, 0), *b = hw_ptr(args, 1);
	float *out = hw_ptr(args, 2);
	unsigned long n = args[3];

	for (unsigned long i = 0; i < n; i++)
		out[i] = a[i] + b[i];
}

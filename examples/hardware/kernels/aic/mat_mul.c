/* c = a x b for n x n matrices; args: a, b, c, n */
#include "hw_kernel.h"

KERNEL_ENTRY
{
	const float *a = hw_ptr(args, 0), *b = hw_ptr(args, 1);
	float *c = hw_ptr(args, 2);
	unsigned long n = args[3];

	for (unsigned long i = 0; i < n; i++)
		for (unsigned long j = 0; j < n; j++) {
			float s = 0.0f;

			for (unsigned long k = 0; k < n; k++)
				s += a[i * n + k] * b[k * n + j];
			c[i * n + j] = s;
		}
}

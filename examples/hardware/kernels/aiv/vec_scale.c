/* x[i] = x[i] * s + 1; args: x, n, s (a float's bits) */
#include "hw_kernel.h"

static float scale_one(float v, float s)
{
	return v * s + 1.0f;
}

KERNEL_ENTRY
{
	float *x = hw_ptr(args, 0);
	unsigned long n = args[1];
	union { unsigned u; float f; } s = { .u = (unsigned)args[2] };

	for (unsigned long i = 0; i < n; i++)
		x[i] = scale_one(x[i], s.f);
}

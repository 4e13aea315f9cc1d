/* The calling convention of the example's hardware kernels: one entry,
 * kernel_entry(args), where args holds addresses and scalars as 64-bit words. */
#ifndef HW_KERNEL_H
#define HW_KERNEL_H

typedef unsigned long long hw_arg_t;

#define KERNEL_ENTRY void kernel_entry(const hw_arg_t *args)

static inline float *hw_ptr(const hw_arg_t *args, int i)
{
	return (float *)(unsigned long)args[i];
}

#endif

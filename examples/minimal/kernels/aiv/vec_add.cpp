// AIV kernel: out[i] = a[i] + b[i].
// kwarm-cost: 0.2
#include "kernel.h"

extern "C" void vec_add(minimal::KernelArgs *args)
{
    const float *a = args->tensors[0];
    const float *b = args->tensors[1];
    float *out = args->tensors[2];
    for (minimal::index_t i = 0; i < args->sizes[2]; i++)
        out[i] = a[i] + b[i];
}

// AIV kernel: x[i] *= s, in place.
// kwarm-cost: 0.2
#include "kernel.h"

extern "C" void vec_scale(minimal::KernelArgs *args)
{
    float *x = args->tensors[0];
    for (minimal::index_t i = 0; i < args->sizes[0]; i++)
        x[i] *= args->scalar;
}

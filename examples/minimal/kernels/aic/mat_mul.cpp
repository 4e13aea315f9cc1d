// AIC kernel: c = a * b for square matrices of side sizes[0].
// kwarm-cost: 0.3
#include "kernel.h"

extern "C" void mat_mul(minimal::KernelArgs *args)
{
    const float *a = args->tensors[0];
    const float *b = args->tensors[1];
    float *c = args->tensors[2];
    const minimal::index_t n = args->sizes[0];
    for (minimal::index_t i = 0; i < n; i++)
        for (minimal::index_t j = 0; j < n; j++) {
            float acc = 0.0f;
            for (minimal::index_t k = 0; k < n; k++)
                acc += a[i * n + k] * b[k * n + j];
            c[i * n + j] = acc;
        }
}

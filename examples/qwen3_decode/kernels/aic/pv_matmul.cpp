// pv_matmul (AIC): context = p . v for one block.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void pv_matmul(qwen::KernelArgs *args)
{
    float *out = qwen::tensor(args, 0);
    const float *x = qwen::tensor(args, 1);
    const float *w = qwen::tensor(args, 2);
    const qwen::index_t rows = qwen::extent(args, 0);
    const qwen::index_t cols = qwen::extent(args, 1);
    for (qwen::index_t r = 0; r < rows; r++) {
        float acc = 0.0f;
        for (qwen::index_t c = 0; c < cols; c++)
            acc += w[r * cols + c] * x[c];
        out[r] = acc;
    }
}

// gate_mul (AIV): gate times up.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void gate_mul(qwen::KernelArgs *args)
{
    float *x = qwen::tensor(args, 0);
    const float *y = qwen::tensor(args, 1);
    qwen::for_each_tile(qwen::extent(args, 0), [&](qwen::index_t i) { x[i] *= y[i]; });
}

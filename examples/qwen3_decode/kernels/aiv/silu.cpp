// silu (AIV): SiLU of the gate.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void silu(qwen::KernelArgs *args)
{
    float *x = qwen::tensor(args, 0);
    qwen::for_each_tile(qwen::extent(args, 0),
                        [&](qwen::index_t i) { x[i] = x[i] / (1.0f + qwen::exp_approx(-x[i])); });
}

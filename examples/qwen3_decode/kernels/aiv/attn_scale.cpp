// attn_scale (AIV): scales the scores by 1/sqrt(head_dim).
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void attn_scale(qwen::KernelArgs *args)
{
    float *x = qwen::tensor(args, 0);
    const float s = qwen::scalar(args, 0);
    qwen::for_each_tile(qwen::extent(args, 0), [&](qwen::index_t i) { x[i] *= s; });
}

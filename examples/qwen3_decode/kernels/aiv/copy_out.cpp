// copy_out (AIV): copies the layer output back.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void copy_out(qwen::KernelArgs *args)
{
    float *dst = qwen::tensor(args, 0);
    const float *src = qwen::tensor(args, 1);
    qwen::for_each_tile(qwen::extent(args, 0), [&](qwen::index_t i) { dst[i] = src[i]; });
}

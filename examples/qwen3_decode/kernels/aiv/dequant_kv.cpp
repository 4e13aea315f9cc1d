// dequant_kv (AIV): int8 dequantisation of a cache block.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void dequant_kv(qwen::KernelArgs *args)
{
    float *out = qwen::tensor(args, 0);
    const float *q = qwen::tensor(args, 1);
    const float scale = qwen::scalar(args, 0);
    qwen::for_each_tile(qwen::extent(args, 0), [&](qwen::index_t i) { out[i] = q[i] * scale; });
}

// quant_kv (AIV): int8 quantisation of a cache block.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void quant_kv(qwen::KernelArgs *args)
{
    float *out = qwen::tensor(args, 0);
    const float *x = qwen::tensor(args, 1);
    const float inv_scale = 1.0f / qwen::scalar(args, 0);
    qwen::for_each_tile(qwen::extent(args, 0), [&](qwen::index_t i) {
        float q = x[i] * inv_scale;
        q = q > 127.0f ? 127.0f : (q < -128.0f ? -128.0f : q);
        out[i] = static_cast<float>(static_cast<int>(q));
    });
}

// kv_cache_update (AIV): writes this token's key and value into the paged cache.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void kv_cache_update(qwen::KernelArgs *args)
{
    float *cache = qwen::tensor(args, 0);
    const float *kv = qwen::tensor(args, 1);
    const qwen::index_t slot = static_cast<qwen::index_t>(qwen::scalar(args, 0));
    const qwen::index_t width = qwen::extent(args, 1);
    for (qwen::index_t i = 0; i < width; i++)
        cache[slot * width + i] = kv[i];
}

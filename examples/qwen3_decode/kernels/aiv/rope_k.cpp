// rope_k (AIV): rotary position embedding of the keys.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void rope_k(qwen::KernelArgs *args)
{
    float *x = qwen::tensor(args, 0);
    const float *cos_table = qwen::tensor(args, 1);
    const float *sin_table = qwen::tensor(args, 2);
    const qwen::index_t half = qwen::kHeadDim / 2;
    for (qwen::index_t h = 0; h < qwen::extent(args, 0) / qwen::kHeadDim; h++) {
        float *head = x + h * qwen::kHeadDim;
        for (qwen::index_t i = 0; i < half; i++) {
            const float a = head[i], b = head[i + half];
            head[i] = a * cos_table[i] - b * sin_table[i];
            head[i + half] = b * cos_table[i + half] + a * sin_table[i + half];
        }
    }
}

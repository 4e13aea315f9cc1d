// q_norm (AIV): per-head RMSNorm of the queries.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void q_norm(qwen::KernelArgs *args)
{
    float *x = qwen::tensor(args, 0);
    const float *weight = qwen::tensor(args, 1);
    for (qwen::index_t h = 0; h < qwen::extent(args, 0) / qwen::kHeadDim; h++) {
        float *head = x + h * qwen::kHeadDim;
        float sum = 0.0f;
        for (qwen::index_t i = 0; i < qwen::kHeadDim; i++)
            sum += head[i] * head[i];
        const float inv = qwen::rsqrt(sum / qwen::kHeadDim + qwen::kRmsEps);
        for (qwen::index_t i = 0; i < qwen::kHeadDim; i++)
            head[i] = head[i] * inv * weight[i];
    }
}

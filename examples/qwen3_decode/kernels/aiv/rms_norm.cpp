// rms_norm (AIV): input RMSNorm of the hidden state.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void rms_norm(qwen::KernelArgs *args)
{
    float *out = qwen::tensor(args, 0);
    const float *x = qwen::tensor(args, 1);
    const float *weight = qwen::tensor(args, 2);
    const qwen::index_t n = qwen::extent(args, 1);
    float sum = 0.0f;
    for (qwen::index_t i = 0; i < n; i++)
        sum += x[i] * x[i];
    const float inv = qwen::rsqrt(sum / static_cast<float>(n) + qwen::kRmsEps);
    qwen::for_each_tile(n, [&](qwen::index_t i) { out[i] = x[i] * inv * weight[i]; });
}

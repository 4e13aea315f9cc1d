// softmax (AIV): row softmax of the scores.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void softmax(qwen::KernelArgs *args)
{
    float *x = qwen::tensor(args, 0);
    const qwen::index_t n = qwen::extent(args, 0);
    float mx = qwen::kNegInf;
    for (qwen::index_t i = 0; i < n; i++)
        mx = x[i] > mx ? x[i] : mx;
    float sum = 0.0f;
    for (qwen::index_t i = 0; i < n; i++) {
        x[i] = qwen::exp_approx(x[i] - mx);
        sum += x[i];
    }
    qwen::for_each_tile(n, [&](qwen::index_t i) { x[i] /= sum; });
}

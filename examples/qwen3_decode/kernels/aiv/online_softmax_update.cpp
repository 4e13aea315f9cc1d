// online_softmax_update (AIV): merges a block into the running max and sum.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void online_softmax_update(qwen::KernelArgs *args)
{
    float *acc = qwen::tensor(args, 0);
    float *stats = qwen::tensor(args, 1);  // [running max, running sum]
    const float *block = qwen::tensor(args, 2);
    const qwen::index_t n = qwen::extent(args, 2);
    float mx = stats[0];
    for (qwen::index_t i = 0; i < n; i++)
        mx = block[i] > mx ? block[i] : mx;
    const float correction = qwen::exp_approx(stats[0] - mx);
    float sum = stats[1] * correction;
    for (qwen::index_t i = 0; i < n; i++) {
        acc[i] = acc[i] * correction + qwen::exp_approx(block[i] - mx);
        sum += qwen::exp_approx(block[i] - mx);
    }
    stats[0] = mx;
    stats[1] = sum;
}

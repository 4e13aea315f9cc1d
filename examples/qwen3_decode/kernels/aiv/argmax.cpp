// argmax (AIV): greedy sampling.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void argmax(qwen::KernelArgs *args)
{
    float *out = qwen::tensor(args, 0);
    const float *logits = qwen::tensor(args, 1);
    qwen::index_t best = 0;
    for (qwen::index_t i = 1; i < qwen::extent(args, 1); i++)
        if (logits[i] > logits[best])
            best = i;
    out[0] = static_cast<float>(best);
}

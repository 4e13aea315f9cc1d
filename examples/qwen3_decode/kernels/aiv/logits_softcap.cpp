// logits_softcap (AIV): soft-caps the logits.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void logits_softcap(qwen::KernelArgs *args)
{
    float *x = qwen::tensor(args, 0);
    const float cap = qwen::scalar(args, 0);
    qwen::for_each_tile(qwen::extent(args, 0), [&](qwen::index_t i) {
        const float t = x[i] / cap;
        x[i] = cap * t / (1.0f + (t < 0 ? -t : t));
    });
}

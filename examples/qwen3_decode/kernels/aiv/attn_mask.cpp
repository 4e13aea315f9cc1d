// attn_mask (AIV): masks the scores past the sequence length.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void attn_mask(qwen::KernelArgs *args)
{
    float *scores = qwen::tensor(args, 0);
    const qwen::index_t valid = static_cast<qwen::index_t>(qwen::scalar(args, 0));
    for (qwen::index_t i = valid; i < qwen::extent(args, 0); i++)
        scores[i] = qwen::kNegInf;
}

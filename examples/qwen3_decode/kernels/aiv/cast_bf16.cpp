// cast_bf16 (AIV): casts the hidden state to bf16 bits.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void cast_bf16(qwen::KernelArgs *args)
{
    float *out = qwen::tensor(args, 0);
    const float *x = qwen::tensor(args, 1);
    qwen::for_each_tile(qwen::extent(args, 0), [&](qwen::index_t i) {
        out[i] = static_cast<float>(qwen::to_bf16_bits(x[i]));
    });
}

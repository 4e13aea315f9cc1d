// page_table_lookup (AIV): gathers the cache blocks of the sequence.
// kwarm-cost: 1.2
#include "tile.h"

extern "C" void page_table_lookup(qwen::KernelArgs *args)
{
    float *out = qwen::tensor(args, 0);
    const float *table = qwen::tensor(args, 1);
    const qwen::index_t blocks = static_cast<qwen::index_t>(qwen::scalar(args, 0));
    for (qwen::index_t b = 0; b < blocks; b++)
        out[b] = table[b] * static_cast<float>(qwen::kBlockSize);
}

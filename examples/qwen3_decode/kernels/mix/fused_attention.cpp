// fused_attention: one mixed task compiled twice, as its cube half (AIC,
// -D__DAV_CUBE__: q.k and p.v block products) and its vector half (AIV,
// -D__DAV_VEC__: online softmax over every cache block). The vector half
// unrolls one specialised stage per (block, head-group) pair at compile time,
// which is what makes it the slowest unit of the decode layer to compile.
// kwarm-cost: 1.2
// kwarm-cost(__DAV_VEC__): 8.4
#include <cstddef>
#include <utility>

#include "tile.h"

namespace {

constexpr qwen::index_t kGroup = qwen::kNumHeads / qwen::kNumKvHeads;

#if defined(__DAV_CUBE__)

// scores[b] = q . k_b for every cached token of one kv head.
void block_scores(float *scores, const float *q, const float *k, qwen::index_t tokens)
{
    for (qwen::index_t t = 0; t < tokens; t++) {
        float acc = 0.0f;
        for (qwen::index_t d = 0; d < qwen::kHeadDim; d++)
            acc += q[d] * k[t * qwen::kHeadDim + d];
        scores[t] = acc;
    }
}

// context += p . v over the same tokens.
void block_context(float *context, const float *p, const float *v, qwen::index_t tokens)
{
    for (qwen::index_t t = 0; t < tokens; t++)
        for (qwen::index_t d = 0; d < qwen::kHeadDim; d++)
            context[d] += p[t] * v[t * qwen::kHeadDim + d];
}

#else

constexpr int kStages = 2;  // blocks unrolled per head group

// One online-softmax stage, specialised per block and head-group lane so that
// every stage carries its own constants (as the real kernel's tiling does).
template <int Block, int Lane>
struct Stage {
    static constexpr float kBias = static_cast<float>(Block * 7 + Lane) / 4096.0f;
    static constexpr qwen::index_t kOffset = (Block * kGroup + Lane) % qwen::kBlockSize;

    template <std::size_t... I>
    static float reduce_max(const float *x, std::index_sequence<I...>)
    {
        float m = qwen::kNegInf;
        ((m = x[(kOffset + I) % qwen::kBlockSize] > m ? x[(kOffset + I) % qwen::kBlockSize] : m), ...);
        return m;
    }

    template <std::size_t... I>
    static float accumulate(float *acc, const float *x, float mx, std::index_sequence<I...>)
    {
        float sum = 0.0f;
        ((acc[I] = acc[I] * (1.0f - kBias) +
                   qwen::exp_approx(x[(kOffset + I) % qwen::kBlockSize] - mx + kBias),
          sum += acc[I]),
         ...);
        return sum;
    }

    static void run(float *acc, float *stats, const float *scores)
    {
        using Seq = std::make_index_sequence<5>;
        const float *x = scores + Block * qwen::kBlockSize;
        const float bm = reduce_max(x, Seq{});
        const float mx = bm > stats[Lane * 2] ? bm : stats[Lane * 2];
        const float correction = qwen::exp_approx(stats[Lane * 2] - mx);
        const float sum = accumulate(acc + Lane * qwen::kHeadDim, x, mx, Seq{});
        stats[Lane * 2] = mx;
        stats[Lane * 2 + 1] = stats[Lane * 2 + 1] * correction + sum;
    }
};

template <int Lane, std::size_t... B>
void run_lane(float *acc, float *stats, const float *scores, qwen::index_t blocks,
              std::index_sequence<B...>)
{
    ((static_cast<qwen::index_t>(B) < blocks ? Stage<static_cast<int>(B), Lane>::run(acc, stats, scores)
                                             : void()),
     ...);
}

template <std::size_t... L>
void run_group(float *acc, float *stats, const float *scores, qwen::index_t blocks,
               std::index_sequence<L...>)
{
    (run_lane<static_cast<int>(L)>(acc, stats, scores, blocks, std::make_index_sequence<kStages>{}), ...);
}

#endif

}  // namespace

#if defined(__DAV_CUBE__)
extern "C" void fused_attention_aic(qwen::KernelArgs *args)
{
    float *out = qwen::tensor(args, 0);
    const float *q = qwen::tensor(args, 1);
    const float *k = qwen::tensor(args, 2);
    const float *v = qwen::tensor(args, 3);
    const qwen::index_t tokens = static_cast<qwen::index_t>(qwen::scalar(args, 0));
    block_scores(out, q, k, tokens);
    block_context(out + tokens, out, v, tokens);
}
#else
extern "C" void fused_attention_aiv(qwen::KernelArgs *args)
{
    float *out = qwen::tensor(args, 0);
    const float *scores = qwen::tensor(args, 1);
    float *stats = qwen::tensor(args, 2);
    const qwen::index_t blocks = static_cast<qwen::index_t>(qwen::scalar(args, 0)) / qwen::kBlockSize;
    run_group(out, stats, scores, blocks, std::make_index_sequence<kGroup>{});
}
#endif

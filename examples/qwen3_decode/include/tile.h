// Tile helpers of the simulated AIV/AIC cores: argument access and a tiled loop.
#pragma once
#include "common/types.h"

namespace qwen {

#if defined(__DAV_CUBE__)
constexpr index_t kTile = 16;  // cube cores work on 16x16 fractals
#elif defined(__DAV_VEC__)
constexpr index_t kTile = 64;  // vector cores work on 256-byte repeats
#else
constexpr index_t kTile = 8;
#endif

inline float *tensor(KernelArgs *args, int i) { return args->tensors[i]; }
inline index_t extent(const KernelArgs *args, int i) { return args->extents[i]; }
inline float scalar(const KernelArgs *args, int i) { return args->scalars[i]; }

// Calls f(i) for i in [0, n), one tile at a time, as the hardware loops would.
template <typename F>
inline void for_each_tile(index_t n, F f)
{
    for (index_t base = 0; base < n; base += kTile) {
        const index_t end = base + kTile < n ? base + kTile : n;
        for (index_t i = base; i < end; i++)
            f(i);
    }
}

// exp(x) by range reduction and a short polynomial: no libm on the device.
inline float exp_approx(float x)
{
    if (x < -87.0f)
        return 0.0f;
    const float ln2 = 0.69314718f;
    const int k = static_cast<int>(x / ln2 - (x < 0 ? 1.0f : 0.0f));
    const float r = x - static_cast<float>(k) * ln2;
    float p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r / 120))));
    for (int i = 0; i < k && i < 127; i++)
        p *= 2.0f;
    for (int i = 0; i > k && i > -126; i--)
        p *= 0.5f;
    return p;
}

// 1/sqrt(x) by Newton iterations from a fixed start.
inline float rsqrt(float x)
{
    float y = x > 1.0f ? 1.0f / x : 1.0f;
    for (int i = 0; i < 24; i++)
        y = y * (1.5f - 0.5f * x * y * y);
    return y;
}

// The upper 16 bits of a float: its bf16 encoding, truncated.
inline std::uint16_t to_bf16_bits(float x)
{
    union {
        float f;
        std::uint32_t u;
    } v;
    v.f = x;
    return static_cast<std::uint16_t>(v.u >> 16);
}

}  // namespace qwen

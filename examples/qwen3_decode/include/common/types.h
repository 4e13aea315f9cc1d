// Basic types and model constants shared by every qwen3 decode unit.
#pragma once
#include <cstdint>

namespace qwen {

using index_t = std::int64_t;

// Qwen3-8B shapes, one decode token.
constexpr index_t kHidden = 4096;
constexpr index_t kNumHeads = 32;
constexpr index_t kNumKvHeads = 8;
constexpr index_t kHeadDim = 128;
constexpr index_t kIntermediate = 12288;
constexpr index_t kVocab = 151936;
constexpr index_t kBlockSize = 128;  // tokens per paged-cache block
constexpr float kRmsEps = 1e-6f;
constexpr float kNegInf = -3.0e38f;

constexpr int kMaxTensors = 8;
constexpr int kMaxScalars = 4;

// What the runtime hands to an incore: tensor pointers, their extents, scalars.
struct KernelArgs {
    float *tensors[kMaxTensors];
    index_t extents[kMaxTensors];
    float scalars[kMaxScalars];
};

}  // namespace qwen

// Shared by every unit of the minimal example.
#pragma once
#include <cstdint>

namespace minimal {

using index_t = std::int64_t;

// Arguments the runtime hands to a kernel: tensor pointers and scalars.
struct KernelArgs {
    float *tensors[4];
    index_t sizes[4];
    float scalar;
};

}  // namespace minimal

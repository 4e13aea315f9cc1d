// Shared by every unit of the distcc example: a little real C++ so that each
// compile preprocesses a header, instantiates a template and folds constants.
#pragma once

namespace farm {

constexpr long bias = 7;

template <int N>
constexpr long weigh(long x)
{
    return N * x + bias;
}

}  // namespace farm

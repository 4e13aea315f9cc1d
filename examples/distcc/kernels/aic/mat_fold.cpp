// AIC kernel: the sum of weigh<1..4>(x), folded at compile time where it can.
#include "farm.h"

template <int... N>
static long fold(long x)
{
    return (farm::weigh<N>(x) + ...);
}

extern "C" long kernel_entry(long x)
{
    return fold<1, 2, 3, 4>(x);
}

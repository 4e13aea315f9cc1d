// AIV kernel: x * x + bias.
#include "farm.h"

extern "C" long kernel_entry(long x)
{
    return x * x + farm::bias;
}

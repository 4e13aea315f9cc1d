// Orchestration: out = (a + b) * 2, as two tasks.
// kwarm-cost: 1.0
#include "kernel.h"

namespace {

struct Task {
    int func_id;
    minimal::KernelArgs args;
};

int submit(Task *queue, int n, const Task &t)
{
    queue[n] = t;
    return n + 1;
}

}  // namespace

extern "C" int aicpu_orchestration_entry(float *a, float *b, float *out,
                                         minimal::index_t n, void *queue_mem)
{
    Task *queue = static_cast<Task *>(queue_mem);
    int count = 0;
    Task add{0, {{a, b, out, nullptr}, {n, n, n, 0}, 0.0f}};
    Task scale{1, {{out, nullptr, nullptr, nullptr}, {n, 0, 0, 0}, 2.0f}};
    count = submit(queue, count, add);
    count = submit(queue, count, scale);
    return count;
}

// Orchestration (host-side on this machine): out = rowsum((a + b) * s) as tasks.
#include <cstdint>

namespace {

struct Task {
    int func_id;
    std::uint64_t args[4];
};

int submit(Task *queue, int n, const Task &t)
{
    queue[n] = t;
    return n + 1;
}

std::uint64_t addr(const void *p)
{
    return reinterpret_cast<std::uintptr_t>(p);
}

}  // namespace

extern "C" int aicpu_orchestration_entry(float *a, float *b, float *tmp, float *out,
                                         std::uint64_t rows, std::uint64_t cols,
                                         void *queue_mem)
{
    Task *queue = static_cast<Task *>(queue_mem);
    const std::uint64_t n = rows * cols;
    int count = 0;
    count = submit(queue, count, Task{0, {addr(a), addr(b), addr(tmp), n}});
    count = submit(queue, count, Task{1, {addr(tmp), n, 0x40000000u /* 2.0f */, 0}});
    count = submit(queue, count, Task{2, {addr(tmp), addr(out), rows, cols}});
    return count;
}

// Orchestration of the tensormap_and_ringbuffer runtime: tasks go into a ring
// of fixed slots, and a tensor map (tensor -> last producer) turns each task's
// inputs into dependencies as it is submitted.
// kwarm-cost: 6.6
#include <array>
#include <cstddef>
#include <new>

#include "orchestration.h"

namespace {

constexpr int kMaxDeps = 6;

struct RingTask {
    int func_id;
    int layer;
    int ndeps;
    int deps[kMaxDeps];  // slots this task waits for
};

class TaskRing {
public:
    TaskRing(void *memory, qwen::index_t bytes)
        : slots_(static_cast<RingTask *>(memory)),
          capacity_(static_cast<int>(bytes / static_cast<qwen::index_t>(sizeof(RingTask))))
    {
        producer_.fill(-1);
    }

    // Returns the slot of the new task, or -1 when the ring is full.
    int submit(const qwen::TaskDesc &desc, int layer)
    {
        if (count_ >= capacity_)
            return -1;
        const int slot = (head_ + count_) % capacity_;
        RingTask *task = new (&slots_[slot]) RingTask{desc.func_id, layer, 0, {}};
        for (int in : desc.inputs)
            if (in >= 0 && producer_[in] >= 0 && task->ndeps < kMaxDeps)
                task->deps[task->ndeps++] = producer_[in];
        for (int out : desc.outputs)
            if (out >= 0)
                producer_[out] = slot;
        count_++;
        return slot;
    }

    int count() const { return count_; }

private:
    RingTask *slots_;
    int capacity_;
    int head_ = 0;
    int count_ = 0;
    std::array<int, qwen::T_COUNT> producer_{};
};

}  // namespace

extern "C" int aicpu_orchestration_entry(qwen::OrchArgs *args)
{
    TaskRing ring(args->task_memory, args->task_memory_size);
    for (qwen::index_t layer = 0; layer < args->num_layers; layer++)
        for (const qwen::TaskDesc &desc : qwen::kLayerTasks)
            if (ring.submit(desc, static_cast<int>(layer)) < 0)
                return -1;
    return ring.count();
}

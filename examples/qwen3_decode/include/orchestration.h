// The task table both orchestrations submit: one decode layer as 37 incore
// tasks, named by func_id (the CoreCallable order of the spec).
#pragma once
#include "common/types.h"

namespace qwen {

// Tensors of one decode layer, indexed by the task table below.
enum Tensor : int {
    T_HIDDEN, T_NORMED, T_Q, T_K, T_V, T_ROPE_COS, T_ROPE_SIN, T_KV_CACHE, T_PAGES,
    T_SCORES, T_STATS, T_CONTEXT, T_ATTN_OUT, T_RESIDUAL, T_GATE, T_UP, T_MLP_OUT,
    T_LOGITS, T_TOKEN, T_WEIGHTS, T_COUNT
};

struct TaskDesc {
    int func_id;
    int outputs[2];  // -1 when unused
    int inputs[3];   // -1 when unused
};

// One decode layer, in submission order.
constexpr TaskDesc kLayerTasks[] = {
    {0, {T_HIDDEN, -1}, {T_RESIDUAL, -1, -1}},          // copy_hidden
    {1, {T_NORMED, -1}, {T_HIDDEN, T_WEIGHTS, -1}},     // rms_norm
    {2, {T_Q, -1}, {T_NORMED, T_WEIGHTS, -1}},          // q_proj
    {3, {T_K, -1}, {T_NORMED, T_WEIGHTS, -1}},          // k_proj
    {4, {T_V, -1}, {T_NORMED, T_WEIGHTS, -1}},          // v_proj
    {5, {T_Q, -1}, {T_Q, T_WEIGHTS, -1}},               // q_norm
    {6, {T_K, -1}, {T_K, T_WEIGHTS, -1}},               // k_norm
    {7, {T_Q, -1}, {T_Q, T_ROPE_COS, T_ROPE_SIN}},      // rope_q
    {8, {T_K, -1}, {T_K, T_ROPE_COS, T_ROPE_SIN}},      // rope_k
    {32, {T_K, T_V}, {T_K, T_V, -1}},                   // quant_kv
    {9, {T_KV_CACHE, -1}, {T_K, T_V, -1}},              // kv_cache_update
    {10, {T_PAGES, -1}, {T_KV_CACHE, -1, -1}},          // page_table_lookup
    {33, {T_K, T_V}, {T_PAGES, T_KV_CACHE, -1}},        // dequant_kv
    {13, {T_SCORES, -1}, {T_Q, T_K, -1}},               // qk_matmul
    {35, {T_SCORES, -1}, {T_SCORES, -1, -1}},           // attn_scale
    {14, {T_SCORES, -1}, {T_SCORES, T_PAGES, -1}},      // attn_mask
    {11, {T_SCORES, -1}, {T_Q, T_K, T_V}},              // fused_attention (cube half)
    {12, {T_CONTEXT, T_STATS}, {T_SCORES, -1, -1}},     // fused_attention (vector half)
    {15, {T_SCORES, -1}, {T_SCORES, -1, -1}},           // softmax
    {36, {T_CONTEXT, T_STATS}, {T_SCORES, -1, -1}},     // online_softmax_update
    {16, {T_CONTEXT, -1}, {T_SCORES, T_V, -1}},         // pv_matmul
    {17, {T_CONTEXT, -1}, {T_CONTEXT, T_STATS, -1}},    // attn_rescale
    {18, {T_ATTN_OUT, -1}, {T_CONTEXT, T_WEIGHTS, -1}}, // o_proj
    {19, {T_RESIDUAL, -1}, {T_RESIDUAL, T_ATTN_OUT, -1}}, // residual_add
    {20, {T_NORMED, -1}, {T_RESIDUAL, T_WEIGHTS, -1}},  // post_rms_norm
    {21, {T_GATE, -1}, {T_NORMED, T_WEIGHTS, -1}},      // gate_proj
    {22, {T_UP, -1}, {T_NORMED, T_WEIGHTS, -1}},        // up_proj
    {23, {T_GATE, -1}, {T_GATE, -1, -1}},               // silu
    {24, {T_GATE, -1}, {T_GATE, T_UP, -1}},             // gate_mul
    {25, {T_MLP_OUT, -1}, {T_GATE, T_WEIGHTS, -1}},     // down_proj
    {26, {T_RESIDUAL, -1}, {T_RESIDUAL, T_MLP_OUT, -1}}, // residual_add_mlp
    {27, {T_NORMED, -1}, {T_RESIDUAL, T_WEIGHTS, -1}},  // final_norm
    {28, {T_LOGITS, -1}, {T_NORMED, T_WEIGHTS, -1}},    // lm_head
    {29, {T_LOGITS, -1}, {T_LOGITS, -1, -1}},           // logits_softcap
    {30, {T_TOKEN, -1}, {T_LOGITS, -1, -1}},            // argmax
    {31, {T_HIDDEN, -1}, {T_RESIDUAL, -1, -1}},         // cast_bf16
    {34, {T_RESIDUAL, -1}, {T_HIDDEN, -1, -1}},         // copy_out
};

constexpr int kLayerTaskCount = sizeof(kLayerTasks) / sizeof(kLayerTasks[0]);
static_assert(kLayerTaskCount == 37, "one task per incore");

// What the host passes to an orchestration entry.
struct OrchArgs {
    float *tensors[T_COUNT];
    index_t extents[T_COUNT];
    index_t seq_len;
    index_t num_layers;
    void *task_memory;        // where the orchestration builds its tasks
    index_t task_memory_size; // bytes
};

}  // namespace qwen

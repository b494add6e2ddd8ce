#pragma once
// The argument checks of the backends' ops, one set for the CPU and the CUDA
// backend, so that a bad call fails the same way, with the same message, on
// either. Messages are built only when a check fails: these run on every call
// of a hot op.
#include <cstddef>
#include <string>

#include "engine/common/error.h"
#include "engine/common/host_device.h"
#include "engine/tensor/tensor.h"

namespace plab {
struct GemmSpec;
struct UpdateGate;
}

namespace plab::checks {

// `message` is a callable that builds the text.
template <typename MakeMessage>
void require(bool ok, MakeMessage&& message) {
    if (!ok) [[unlikely]]
        throw Error(message());
}

void require_same_shape(const Tensor& a, const Tensor& b, const char* op);

// `t` must hold FP32 (`what` names it: "the gradient").
void require_fp32(const Tensor& t, const char* op, const char* what);

// A GEMM's accumulation (GemmSpec::accumulate): FP32, or FP16 over FP16
// inputs only (compute FP16, no FP8 scales), whose products are exact in FP32.
void require_gemm_accumulation(const GemmSpec& spec);

// --- the loss scale kept by the backend: an FP32 state of kScalerStateWords, an FP32 {1, 1} flag ---
void require_scaler_state(const Tensor& state, const char* op);
// An FP32 tensor of kScalerRuleWords (scaler_rule.h's store_scaler_rule).
void require_scaler_rule(const Tensor& rule, const char* op);
void require_flag(const Tensor& flag, const char* op);
// `t` is one FP32 value (`what` names it: "the step count").
void require_scalar(const Tensor& t, const char* op, const char* what);
// An UpdateGate (backend.h) fit for `jobs` jobs: the settings of its kind, a
// step count, a count per job, a flag if it skips, and for AdamW a table of
// kAdamWTableWords columns.
void require_update_gate(const UpdateGate& gate, std::size_t jobs, bool adamw, const char* op);

// --- layer norm: gamma, beta, dgamma and dbeta are 1 x cols; mean and rstd rows x 1 FP32 ---
void require_row_vector(const Tensor& v, const Tensor& x, const char* op, const char* what);
void require_row_stats(const Tensor& s, const Tensor& x, const char* op, const char* what);
void require_columns(const Tensor& x, const char* op);
void require_eps(float eps, const char* op);
// All of layer_norm_forward's and layer_norm_backward's checks, in order.
void require_layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps, const Tensor& y,
                                const Tensor& mean, const Tensor& rstd);
void require_layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                                 const Tensor& dy, const Tensor& dx, const Tensor& dgamma, const Tensor& dbeta);

// --- batch norm: gamma, beta, the statistics and the parameter gradients are 1 x cols ---
// All of batch_norm_forward's, batch_norm_inference's and batch_norm_backward's checks, in order.
void require_batch_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps, float momentum,
                                const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& running_mean,
                                const Tensor& running_var);
void require_batch_norm_inference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                  const Tensor& running_mean, const Tensor& running_var, float eps, const Tensor& y);
void require_batch_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                                 const Tensor& dy, const Tensor& dx, const Tensor& dgamma, const Tensor& dbeta);

// --- attention: a rows x tokens*width token tensor and its rows x tokens^2 pairs ---
struct TokenShape {
    int rows, tokens, width;
    PLAB_HD std::size_t row_values() const { return static_cast<std::size_t>(tokens) * static_cast<std::size_t>(width); }
    PLAB_HD std::size_t row_pairs() const { return static_cast<std::size_t>(tokens) * static_cast<std::size_t>(tokens); }
};
TokenShape token_shape(const Tensor& x, int tokens, const char* op);
void require_pairs(const Tensor& pairs, const TokenShape& s, const char* op);
void require_groups(const Tensor& x, int group, const char* op);
// A causal softmax's rows hold whole group x group blocks.
void require_causal_blocks(const Tensor& x, int group, const char* op);

// --- a language model's embeddings and heads (math_ops.h) ---
struct EmbeddingShape {
    int rows, vocabulary, context, width;
};
// ids rows x 1, tokens vocabulary x width, positions context x width, out
// rows x width, rows a multiple of context. `dout` for the backward.
EmbeddingShape embedding_shape(const Tensor& ids, const Tensor& tokens, const Tensor& positions, const Tensor& out,
                               const char* op);
struct HeadShape {
    int sequences, context, heads, width;
    PLAB_HD std::size_t values() const {
        return static_cast<std::size_t>(sequences) * static_cast<std::size_t>(context) *
               static_cast<std::size_t>(heads) * static_cast<std::size_t>(width);
    }
};
// `by_token` is sequences*context x heads*width, `by_head` sequences*heads x
// context*width.
HeadShape head_shape(const Tensor& by_token, int context, int heads, const Tensor& by_head, const char* op);

}  // namespace plab::checks

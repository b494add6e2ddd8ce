#pragma once
// The math ops of a backend: the forward and backward arithmetic of the
// layers and losses, each one call over whole tensors (never per element),
// so that a GPU backend runs each as one kernel launch.
//
// Rounding contract (docs/DESIGN.md, "Mixed precision semantics"): an op computes
// in FP32 from its inputs and rounds its output to the output tensor's dtype;
// a GEMM first rounds its inputs to the compute format, multiplies them
// exactly, accumulates in FP32 (or, asked to, in FP16), then rounds to the
// output dtype.
#include <optional>

#include "engine/backend/activation.h"
#include "engine/tensor/tensor.h"

namespace plab {

struct GemmSpec {
    FormatId compute = FormatId::fp32;  // inputs are rounded to this before the multiply
    bool trans_a = false;
    bool trans_b = false;
    float alpha = 1.0f;
    float beta = 0.0f;  // c = alpha * op(a) op(b) + beta * c (+ bias)
    // 1 x n, added to every row in FP32 before the single rounding of c
    // (as a cuBLASLt bias epilogue does).
    const Tensor* row_bias = nullptr;
    // FP8 inputs with per-tensor scales (recipe fp8): when set, input a is
    // multiplied by a_input->scale and rounded to a_input->format (saturating)
    // instead of to `compute`, b likewise, and the FP32 product is divided by
    // both scales before the bias (cuBLASLt's A/B scale pointers). The scales
    // are powers of two: neither step rounds.
    struct ScaledInput {
        FormatId format = FormatId::fp32;
        float scale = 1.0f;
    };
    std::optional<ScaledInput> a_input = std::nullopt;
    std::optional<ScaledInput> b_input = std::nullopt;
    // What the k products of an output are summed in. FP32: a chain of fused
    // multiply-adds in k order from +0 (cpu/fixed_order_gemm.h). FP16 (only
    // with compute FP16 and no scaled input, else an Error): the same k
    // order from +0, each partial sum s' = FP16(s + a*b), where a*b is exact
    // in FP32 (two 11-bit significands), s + a*b is rounded once to FP32 and
    // that once to FP16 by the shared cast (scalar_cast.h; Inf past 65504).
    // The epilogue (alpha, beta, the bias, the rounding to c's dtype) then
    // reads the FP16 sum as FP32 as usual. Same bits on every backend.
    FormatId accumulate = FormatId::fp32;
};

class MathOps {
public:
    virtual void gemm(const Tensor& a, const Tensor& b, Tensor& c, const GemmSpec& spec) = 0;
    // sums[0, j] = sum over i of x[i, j], accumulated in FP32 in row order
    virtual void column_sums(const Tensor& x, Tensor& sums) = 0;
    virtual void activation_forward(Activation a, const Tensor& x, Tensor& y) = 0;
    // dx = dy * f'(x)
    virtual void activation_backward(Activation a, const Tensor& x, const Tensor& dy, Tensor& dx) = 0;

    // Softmax cross-entropy: probs = softmax(logits) row by row, and the mean
    // over rows of -log probs[i, label_i] left in `loss` ({1, 1} FP32 holding
    // a compute-format value) on the backend, for queue_download: no host
    // round trip on a GPU. `compute` is FP32 on autocast's FP32 list (FP32
    // throughout, probs rounded once to their dtype); off it, every step and
    // every partial sum, the rows' sum before the mean included, is rounded to
    // `compute` in index order (loss_math.h). `labels` is rows x 1 of class
    // indices; a bad one is an error, thrown here or, on a GPU, by the next
    // wait_for_queued().
    virtual void softmax_cross_entropy_into(const Tensor& logits, const Tensor& labels, FormatId compute,
                                            Tensor& probs, Tensor& loss) = 0;
    // dlogits = (probs - onehot(labels)) * scale / rows: the loss gradient,
    // multiplied by the loss scale, rounded to dlogits' dtype.
    virtual void softmax_cross_entropy_backward(const Tensor& probs, const Tensor& labels, float scale,
                                                Tensor& dlogits) = 0;

    // Mean squared error over all elements, mean((pred - target)^2), left in
    // `loss` ({1, 1} FP32) on the backend: in FP32 on autocast's FP32 list;
    // off it (`compute` not FP32), each difference, square and partial sum
    // rounded to `compute` in index order (loss_math.h).
    virtual void mse_loss_into(const Tensor& pred, const Tensor& target, FormatId compute, Tensor& loss) = 0;
    // dpred = 2 (pred - target) * scale / size, rounded to dpred's dtype.
    virtual void mse_loss_backward(const Tensor& pred, const Tensor& target, float scale, Tensor& dpred) = 0;

    // Layer normalisation over each row: y = (x - mean) * rstd * gamma + beta
    // with rstd = 1 / sqrt(var + eps) and the biased variance; y rounded to
    // its dtype. `compute` is FP32 on autocast's FP32 list; off it, every
    // intermediate and partial sum is rounded to `compute`
    // (layer_norm_math.h). mean and rstd (rows x 1, FP32 tensors holding
    // compute-format values) are kept for backward. gamma and beta are 1 x cols.
    virtual void layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                                    FormatId compute, Tensor& y, Tensor& mean, Tensor& rstd) = 0;
    // In `compute` as the forward; dx rounded to its dtype, dgamma and dbeta
    // (1 x cols) to theirs.
    virtual void layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                                     const Tensor& dy, FormatId compute, Tensor& dx, Tensor& dgamma,
                                     Tensor& dbeta) = 0;

    // Batch normalisation of each column (a feature across the batch's rows),
    // as PyTorch's BatchNorm1d in training mode: y = (x - mean) * rstd * gamma
    // + beta with the column's mean, its biased variance mean(x^2) - mean^2
    // (one pass: the sum and the sum of squares) and rstd = 1 / sqrt(var +
    // eps); y rounded to its dtype. A column's sums run in row order. `compute` is FP32 on autocast's FP32 list; off it, every
    // intermediate and partial sum is rounded to `compute`
    // (batch_norm_math.h). mean and rstd (1 x cols FP32 tensors holding
    // compute-format values) are kept for backward. running_mean and
    // running_var (1 x cols FP32) become (1 - momentum) * running + momentum *
    // batch in FP32, with the unbiased variance. x needs two rows at least.
    virtual void batch_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                                    float momentum, FormatId compute, Tensor& y, Tensor& mean, Tensor& rstd,
                                    Tensor& running_mean, Tensor& running_var) = 0;
    // BatchNorm in evaluation mode: each column normalised with the running
    // statistics instead, rstd = 1 / sqrt(running_var + eps), in `compute` as
    // the forward; y rounded to its dtype. Nothing is updated.
    virtual void batch_norm_inference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                      const Tensor& running_mean, const Tensor& running_var, float eps,
                                      FormatId compute, Tensor& y) = 0;
    // The full batch gradient, in `compute` as the forward: dx = rstd * (g -
    // mean(g) - xhat * mean(g * xhat)) with g = dy * gamma and the means over
    // the column, so the gradient flows through the batch's mean and variance;
    // dgamma = sum(dy * xhat), dbeta = sum(dy) over the column. dx rounded to
    // its dtype, dgamma and dbeta (1 x cols) to theirs.
    virtual void batch_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                                     const Tensor& dy, FormatId compute, Tensor& dx, Tensor& dgamma,
                                     Tensor& dbeta) = 0;

    // --- single-head self-attention over the tokens of a row (model/attention.h) ---
    // Each row of q, k, v, out (rows x tokens*width) holds `tokens` tokens of
    // `width` values; scores, probs and their gradients are rows x tokens^2,
    // entry i*tokens + j pairing query token i with key token j. The matmul
    // ops compute from their inputs as held, accumulate in FP32 in index order
    // and round once to the output's dtype.
    // scores[r, i, j] = sum_c q[r, i, c] k[r, j, c]
    virtual void token_scores(const Tensor& q, const Tensor& k, int tokens, Tensor& scores) = 0;
    // dq[r, i, :] = sum_j dscores[r, i, j] k[r, j, :];  dk[r, j, :] = sum_i dscores[r, i, j] q[r, i, :]
    virtual void token_scores_backward(const Tensor& q, const Tensor& k, const Tensor& dscores, int tokens, Tensor& dq,
                                       Tensor& dk) = 0;
    // out[r, i, :] = sum_j probs[r, i, j] v[r, j, :]
    virtual void token_mix(const Tensor& probs, const Tensor& v, int tokens, Tensor& out) = 0;
    // dprobs[r, i, j] = sum_c dout[r, i, c] v[r, j, c];  dv[r, j, :] = sum_i probs[r, i, j] dout[r, i, :]
    virtual void token_mix_backward(const Tensor& probs, const Tensor& v, const Tensor& dout, int tokens,
                                    Tensor& dprobs, Tensor& dv) = 0;
    // Scaled softmax over each run of `group` values of a row, the fused form
    // attention uses: z = x * scale, rounded to `compute` (FP32 when softmax
    // is on the policy's FP32 list; in FP16 a z beyond 65504 is Inf, and the
    // row max subtraction turns it into NaN), then exp(z - max) / sum in FP32,
    // rounded to probs' dtype.
    // With `causal` the runs are the query rows of group x group score blocks:
    // run k of the tensor is query i = k mod group, and its values j > i (keys
    // after the query) get probability 0 whatever they hold, as a -inf mask
    // gives; the max and the sum run over j <= i only.
    virtual void scaled_softmax(const Tensor& x, float scale, int group, FormatId compute, bool causal,
                                Tensor& probs) = 0;
    // dx = scale * p * (dp - sum_j p dp) per group, FP32, rounded to dx's dtype
    // (a masked value has p = 0, so its dx is 0 with no mask needed here).
    virtual void scaled_softmax_backward(const Tensor& probs, const Tensor& dprobs, float scale, int group,
                                         Tensor& dx) = 0;

    // --- a language model's embeddings and attention heads (model/tiny_gpt.h) ---
    // ids is rows x 1 of token indices, rows = sequences x context with
    // context = positions.rows(); tokens is vocabulary x width, positions
    // context x width. out[r, :] = tokens[ids[r], :] + positions[r mod
    // context, :], added in FP32 and rounded once to out's dtype. An id that is
    // not an integer in 0..vocabulary-1 is an Error on the CPU; on a GPU its
    // row is NaN (the trainer checks its data on the host before it uploads).
    virtual void embedding_forward(const Tensor& ids, const Tensor& tokens, const Tensor& positions, Tensor& out) = 0;
    // dtokens[v, :] = sum of dout[r, :] over the rows with ids[r] = v, and
    // dpositions[t, :] = sum over the rows with r mod context = t, each in
    // FP32 in row order and rounded once to its dtype (a bad id adds nothing).
    virtual void embedding_backward(const Tensor& ids, const Tensor& dout, Tensor& dtokens, Tensor& dpositions) = 0;
    // x (sequences*context x heads*width) into out (sequences*heads x
    // context*width): out[s*heads + h, t*width + c] = x[s*context + t, h*width + c],
    // rounded to out's dtype. Each row of out is then one head's tokens, the
    // layout of the token ops above.
    virtual void split_heads(const Tensor& x, int context, int heads, Tensor& out) = 0;
    // The inverse: x (sequences*heads x context*width) into out
    // (sequences*context x heads*width), rounded to out's dtype.
    virtual void merge_heads(const Tensor& x, int context, int heads, Tensor& out) = 0;

protected:
    ~MathOps() = default;  // owned and destroyed as a Backend
};

}  // namespace plab

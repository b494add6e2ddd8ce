#pragma once
// A tiny single-head self-attention block with a residual connection, for
// the lab's "large attention logits overflow FP16" lesson (docs/DESIGN.md, seed
// facts). A hidden vector of width d is read as `tokens` tokens of width
// d / tokens; per row:
//   Q = x Wq + bq, K = x Wk + bk, V = x Wv + bv     (d x d projections)
//   P = softmax(logit_scale * Q_i . K_j) over j     (per query token i)
//   y = x + (P V) Wo + bo
// The projections and token matmuls compute in the block's compute format;
// the scaled softmax runs in FP32 when the policy keeps `softmax` on its FP32
// list, otherwise in the compute format, where logit_scale * Q.K beyond 65504
// is Inf in FP16 and the row turns to NaN.
#include <string>
#include <vector>

#include "engine/amp/pass_formats.h"
#include "engine/backend/backend.h"
#include "engine/model/buffer_sets.h"
#include "engine/model/linear.h"
#include "engine/model/op_observer.h"

namespace plab {

class SelfAttention {
public:
    SelfAttention(Backend& backend, std::string name, int width, int tokens, float logit_scale,
                  FormatId weight_format, bool master_weights);

    const std::string& name() const { return name_; }
    int tokens() const { return tokens_; }
    float logit_scale() const { return logit_scale_; }

    // y (rows x width, y's dtype) = x + attention(x); keeps what backward needs.
    void forward(Backend& backend, const Tensor& x, Tensor& y, const AttentionFormats& formats,
                 OpObserver* observer = nullptr);
    // From dy: every parameter's grad (compute format, scaled like everything
    // in backward) and dx = dy + the attention path's input gradient, rounded
    // to dx's dtype. Call after forward() on the same x.
    void backward(Backend& backend, const Tensor& x, const Tensor& dy, Tensor& dx, float loss_scale,
                  OpObserver* observer = nullptr);

    // q, k, v, out: weight then bias of each.
    std::vector<Parameter*> parameters();
    // The four projections, for initialisation.
    std::vector<Linear*> projections() { return {&q_, &k_, &v_, &out_}; }
    // Of the last forward: scores Q.K (before logit_scale) and probabilities
    // (empty tensors before the first).
    const Tensor& scores() const;
    const Tensor& probs() const;

private:
    void notify(OpObserver* observer, Phase phase, std::string_view op, const Tensor& out, const Tensor* in,
                float scale) const;

    struct Key {
        int rows;
        AttentionFormats formats;
        bool operator==(const Key&) const = default;
    };
    struct Buffers {
        // Forward: projections, scores, probabilities, mixed values, output projection.
        Tensor q_x, k_x, v_x, scores, probs, mixed, projected;
        // Backward: their gradients, and one projection's share of dx.
        Tensor dq, dk, dv, dscores, dprobs, dmixed, dx_part;
    };
    Buffers make_buffers(Backend& backend, const Key& key) const;

    std::string name_;
    int tokens_;
    float logit_scale_;
    Linear q_, k_, v_, out_;
    BufferSets<Key, Buffers> buffers_;  // per batch rows and formats; the current one is the last forward's
};

}  // namespace plab

#pragma once
// One pre-LayerNorm decoder block of a GPT-style language model
// (tiny_gpt.h), on rows = sequences x context tokens of `width` values:
//   h = LN1(x);  q, k, v = h Wq + bq, h Wk + bk, h Wv + bv
//   per head: P = causal softmax(logit_scale * Q_h K_h^T);  O_h = P V_h
//   mid = x + O Wproj + bproj
//   out = mid + GELU(LN2(mid) Wfc + bfc) Wfc_proj + bfc_proj     (Wfc: width x 4 width)
//
// Formats follow autocast (docs/DESIGN.md, "Mixed precision semantics"): each
// Linear computes in its own format and stores its output and the gradient
// w.r.t. it there; the residual stream x, mid, out stays in the stream
// format (the weights' format: FP32 under AMP, FP16 in a pure FP16 run), so a
// branch's gradient is rounded to the branch's format on its way in and the
// residual's is not. LayerNorm computes in FP32 and stores in its output
// format; the softmax computes in its format (FP32 on the FP32 list; in FP16
// a logit beyond 65504 is Inf and its query row turns to NaN).
#include <array>
#include <string>
#include <vector>

#include "engine/amp/fp8_tensors.h"
#include "engine/backend/backend.h"
#include "engine/model/buffer_sets.h"
#include "engine/model/gpt_names.h"
#include "engine/model/layer_norm.h"
#include "engine/model/linear.h"
#include "engine/model/op_observer.h"

namespace plab {

// The block's Linears in forward order: what BlockFormats and the model's
// per-layer lists index.
enum class BlockLinear : std::uint8_t { q, k, v, proj, fc, fc_proj };
inline constexpr std::size_t kBlockLinears = 6;
static_assert(gpt_names::kBlockLinears.size() == kBlockLinears);

struct BlockFormats {
    std::array<FormatId, kBlockLinears> compute{};  // each Linear's (BlockLinear order)
    FormatId stream = FormatId::fp32;               // the residual stream's
    FormatId norm1 = FormatId::fp32, norm2 = FormatId::fp32;  // LN1's and LN2's outputs
    FormatId softmax = FormatId::fp32;                        // the scaled softmax computes and stores in it
    FormatId accumulate = FormatId::fp32;  // the Linears' sums where they compute in FP16 (matmul_formats)
    bool operator==(const BlockFormats&) const = default;

    FormatId of(BlockLinear l) const { return compute[static_cast<std::size_t>(l)]; }
    MatmulFormats matmul(BlockLinear l) const { return matmul_formats(of(l), accumulate); }
};

// Per Linear, its FP8 scales, or null for a Linear that is not in FP8.
using BlockFp8 = std::array<const Fp8Scales*, kBlockLinears>;

struct BlockShape {
    int width = 64;
    int heads = 4;
    int context = 32;
    float logit_scale = 0.25f;  // multiplies Q.K inside the softmax: 1/sqrt(width/heads) as usual
};

class TransformerBlock {
public:
    // Names its tensors "<name>.attn.q.weight", "<name>.ln1.gamma", ...
    TransformerBlock(Backend& backend, std::string name, const BlockShape& shape, FormatId weight_format,
                     bool master_weights);

    const std::string& name() const { return name_; }
    const BlockShape& shape() const { return shape_; }

    // out = the block of x (rows x width, both in formats.stream); keeps what backward needs.
    void forward(Backend& backend, const Tensor& x, Tensor& out, const BlockFormats& formats, const BlockFp8& fp8,
                 OpObserver* observer);
    // From dout (w.r.t. out): every parameter's grad (scaled by the loss
    // scale, as all of backward) and dx. Call after forward() on the same x.
    void backward(Backend& backend, const Tensor& x, const Tensor& dout, Tensor& dx, const BlockFp8& fp8,
                  float loss_scale, OpObserver* observer);

    std::vector<Linear*> linears();  // BlockLinear order
    std::vector<const Linear*> linears() const;
    // Forward order: ln1, q, k, v, proj, ln2, fc, fc_proj (weight then bias).
    std::vector<Parameter*> parameters();
    // Of the last forward, per Linear: its output (after GELU for fc) and
    // the gradient w.r.t. its output before any activation.
    const Tensor& input_of(BlockLinear l) const;
    const Tensor& output_of(BlockLinear l) const;
    const Tensor& output_grad_of(BlockLinear l) const;
    const Tensor& attention_probs() const;
    const LayerNorm& ln1() const { return ln1_; }
    const LayerNorm& ln2() const { return ln2_; }
    // f(tensor) for every buffer the kept passes hold and the norms' row statistics.
    void for_each_buffer(const std::function<void(const Tensor&)>& f) const;

private:
    struct Key {
        int rows;
        BlockFormats formats;
        bool operator==(const Key&) const = default;
    };
    struct Buffers {
        // Forward, in order.
        Tensor h1, q, k, v, qh, kh, vh, scores, probs, mixed_h, mixed, attn_out, mid, h2, fc, act, mlp_out;
        // Backward (empty until the first backward on this key): the gradient
        // w.r.t. each, and one projection's share of dh1.
        Tensor d_mlp_out, d_act, d_fc, d_h2, d_mid_part, d_mid, d_attn_out, d_mixed, d_mixed_h, d_probs, d_scores,
            d_qh, d_kh, d_vh, d_q, d_k, d_v, d_h1_part, d_h1, d_x_part;
        bool has_gradients() const { return !d_h1.empty(); }  // made together (make_gradient_buffers)
    };
    struct BufferShapes {
        Shape tokens, wide, heads, pairs;  // rows x width, x 4 width; per head: rows x d_head, scores
    };
    BufferShapes buffer_shapes(int rows) const;
    Buffers make_buffers(Backend& backend, const Key& key) const;
    void make_gradient_buffers(Backend& backend, const Key& key, Buffers& b) const;
    Buffers& current(const Tensor& x);
    void notify(OpObserver* observer, Phase phase, std::string_view part, std::string_view op, const Tensor& out,
                const Tensor* in, float scale) const;
    void attention_forward(Backend& backend, Buffers& b, const BlockFormats& f, const BlockFp8& fp8,
                           OpObserver* observer);
    void attention_backward(Backend& backend, Buffers& b, const BlockFormats& f, const BlockFp8& fp8,
                            float loss_scale, OpObserver* observer);
    void mlp_forward(Backend& backend, Buffers& b, const BlockFormats& f, const BlockFp8& fp8, OpObserver* observer);
    void mlp_backward(Backend& backend, Buffers& b, const BlockFormats& f, const BlockFp8& fp8, float loss_scale,
                      OpObserver* observer);
    Linear& linear(BlockLinear l) { return *linears()[static_cast<std::size_t>(l)]; }
    std::string linear_name(BlockLinear l) const {  // name_ is set first
        return gpt_names::block_linear(name_, static_cast<std::size_t>(l));
    }

    std::string name_;
    BlockShape shape_;
    LayerNorm ln1_;
    Linear q_, k_, v_, proj_;
    LayerNorm ln2_;
    Linear fc_, fc_proj_;
    BufferSets<Key, Buffers> buffers_;  // per batch rows and formats; the current one is the last forward's
};

}  // namespace plab

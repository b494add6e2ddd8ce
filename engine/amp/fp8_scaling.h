#pragma once
// Per-tensor scaling for the fp8 recipe, Transformer-Engine style delayed
// scaling (docs/DESIGN.md, "Mixed precision semantics"). Each FP8 tensor of each
// layer (forward input, weight, backward gradient) keeps the amax of its last
// `history_len` steps; the scale a step uses comes from the largest amax of
// the steps before it:
//     scale = 2^(floor(log2(fmt_max / amax)) - margin)
// so the largest recent value lands just under the format's largest finite
// value (E4M3 448, E5M2 57344), `margin` binades lower for headroom. Scales
// are powers of two: scaling and unscaling round nothing.
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/amp/fp8_tensors.h"

namespace plab {

enum class Fp8ScalingKind : std::uint8_t { none, delayed };  // none: every scale is 1
std::string_view fp8_scaling_name(Fp8ScalingKind k);        // "none", "delayed"
std::optional<Fp8ScalingKind> parse_fp8_scaling(std::string_view name);
std::string fp8_scaling_choices();  // "none|delayed"

inline constexpr int kFp8HistoryMin = 1, kFp8HistoryMax = 1024;
inline constexpr int kFp8MarginMin = 0, kFp8MarginMax = 8;
// Scale exponents stay within +-63: two scales multiply to at most 2^126, and
// the inverse of that product, which unscales a GEMM, is still an FP32 normal.
inline constexpr int kFp8ScaleExponentLimit = 63;

struct Fp8Config {
    Fp8ScalingKind scaling = Fp8ScalingKind::delayed;
    int history_len = 16;  // steps of amax history per tensor
    int margin = 0;        // binades of headroom below the format's max

    bool operator==(const Fp8Config&) const = default;
};

// Throws plab::Error naming "precision.fp8_history_len" / "precision.fp8_margin"
// and the allowed range.
void validate(const Fp8Config& config);

// The exponent e of the scale 2^e for a tensor of amax `amax` (> 0, finite)
// cast to `format`: the largest e with amax * 2^e <= max finite, minus
// margin, clamped to +-kFp8ScaleExponentLimit.
int fp8_scale_exponent(FormatId format, float amax, int margin);
float fp8_scale(FormatId format, float amax, int margin);

// The amaxes of one tensor's last `length` steps, oldest first.
class AmaxHistory {
public:
    explicit AmaxHistory(int length = 1) : length_(length) {}
    void push(float amax);       // drops the oldest once `length` are held
    float max() const;           // 0 when empty
    void resize(int length);     // keeps the newest
    const std::deque<float>& values() const { return values_; }
    bool operator==(const AmaxHistory&) const = default;

private:
    int length_;
    std::deque<float> values_;
};

// The delayed-scaling state of one model: per layer and FP8 tensor, the amax
// history, this step's running amax, and the scale the step uses.
class Fp8Scaling {
public:
    Fp8Scaling() = default;
    Fp8Scaling(const Fp8Config& config, int layers);

    // A new config (a live edit): histories keep their newest entries and the
    // scales are recomputed from them at once.
    void reconfigure(const Fp8Config& config);
    // The amax a pass of this step saw in a tensor (several micro-batches: the largest counts).
    void observe(int layer, Fp8Tensor tensor, float amax);
    // Closes the step: its amaxes join the histories and the scales of the next step follow from them.
    void end_step();

    const std::vector<Fp8Scales>& scales() const { return scales_; }  // for the current step
    const AmaxHistory& history(int layer, Fp8Tensor tensor) const;
    const Fp8Config& config() const { return config_; }
    bool operator==(const Fp8Scaling&) const = default;

private:
    struct TensorState {
        AmaxHistory history;
        float step_amax = 0;  // of the step under way
    };
    static std::size_t index(int layer, Fp8Tensor tensor);
    void update_scales();

    Fp8Config config_;
    std::vector<TensorState> tensors_;  // layer-major, kAllFp8Tensors order within a layer
    std::vector<Fp8Scales> scales_;
};

}  // namespace plab

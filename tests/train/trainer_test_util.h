#pragma once
// Shared helpers of the Trainer tests: small runs made from a library preset
// plus "path=value" edits, host copies of a model's tensors, and a bitwise
// comparison of StepRecords (every field, the per-layer statistics included)
// that names the first field that differs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"

namespace plab::trainer_test {

// A library preset with edits applied in order, then validated.
inline RunConfig preset_with(std::string_view preset, const std::vector<std::string>& settings) {
    RunConfig config = load_preset(preset);
    apply_settings(config, settings);
    return config;
}

inline std::uint32_t bits_of(float x) {
    std::uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

// Distance in representable FP32 values between two finite floats (0 when
// bit-identical or +0 vs -0).
inline std::int64_t ulp_distance(float a, float b) {
    auto ordered = [](float x) {
        const auto u = static_cast<std::int64_t>(bits_of(x));
        return (u & 0x80000000) ? -(u & 0x7fffffff) : u;
    };
    const std::int64_t d = ordered(a) - ordered(b);
    return d < 0 ? -d : d;
}

inline std::vector<float> host_values(Backend& backend, const Tensor& t) {
    std::vector<float> v(t.size());
    if (!v.empty()) backend.download(t, v.data());
    return v;
}

// Of x's values times `scale`, how many are non-zero and finite and how many
// of those FP16 rounds to zero: the flush count, by the cast itself.
struct FlushCount {
    std::int64_t nonzero = 0, flushed = 0;
};
inline FlushCount fp16_flushes(const std::vector<float>& x, float scale) {
    FlushCount c;
    for (float v : x) {
        if (v == 0.0f || !std::isfinite(v)) continue;
        ++c.nonzero;
        c.flushed += round_to(FormatId::fp16, v * scale) == 0.0f;
    }
    return c;
}

// A statistics fraction of `count` values back as a count.
inline std::int64_t counted(float fraction, std::int64_t count) {
    return std::llround(static_cast<double>(fraction) * static_cast<double>(count));
}
inline std::int64_t fp16_underflow_count(const TensorStats& s) { return counted(s.ranges[0].underflow, s.count); }

// The parameters of a model without layer norm, in the optimizer's order:
// fc1.weight, fc1.bias, fc2.weight, ...
inline std::vector<const Parameter*> parameters_of(const Mlp& model) {
    std::vector<const Parameter*> out;
    for (const Linear& l : model.linears()) {
        out.push_back(&l.weight);
        out.push_back(&l.bias);
    }
    return out;
}

// Host copies of one tensor of every parameter (e.g. &Parameter::target is
// not addressable on the overload set; pass a lambda picking the tensor).
template <typename Pick>
std::vector<std::vector<float>> param_tensors(Backend& backend, const Mlp& model, Pick pick) {
    std::vector<std::vector<float>> out;
    for (const Parameter* p : parameters_of(model)) out.push_back(host_values(backend, pick(*p)));
    return out;
}

inline std::vector<std::vector<float>> targets_of(Backend& backend, const Mlp& model) {
    return param_tensors(backend, model, [](const Parameter& p) -> const Tensor& { return p.target(); });
}
inline std::vector<std::vector<float>> values_of(Backend& backend, const Mlp& model) {
    return param_tensors(backend, model, [](const Parameter& p) -> const Tensor& { return p.value; });
}

// Whether two sets of host tensors hold the same bits everywhere.
inline bool same_bits(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].size() != b[i].size() || std::memcmp(a[i].data(), b[i].data(), a[i].size() * sizeof(float)) != 0)
            return false;
    return true;
}

// Collects the first difference between two records, field by field; floats
// are compared by their bits (so a NaN equals the same NaN, and -0 != +0).
class RecordDiff {
public:
    const std::string& first() const { return first_; }

    template <typename T>
    void value(const std::string& path, const T& a, const T& b) {
        if (!first_.empty() || a == b) return;
        std::ostringstream s;
        s << path << ": " << a << " vs " << b;
        first_ = s.str();
    }
    void value(const std::string& path, float a, float b) {
        if (!first_.empty() || bits_of(a) == bits_of(b)) return;
        std::ostringstream s;
        s.precision(9);
        s << path << ": " << a << " vs " << b;
        first_ = s.str();
    }
    void value(const std::string& path, const std::optional<float>& a, const std::optional<float>& b) {
        if (a.has_value() != b.has_value()) {
            value(path + ".has_value", a.has_value(), b.has_value());
            return;
        }
        if (a) value(path, *a, *b);
    }
    void stats(const std::string& path, const TensorStats& a, const TensorStats& b) {
        value(path + ".count", a.count, b.count);
        value(path + ".zeros", a.zeros, b.zeros);
        value(path + ".nans", a.nans, b.nans);
        value(path + ".pos_infs", a.pos_infs, b.pos_infs);
        value(path + ".neg_infs", a.neg_infs, b.neg_infs);
        value(path + ".amax", a.amax, b.amax);
        value(path + ".mean_abs", a.mean_abs, b.mean_abs);
        value(path + ".rms", a.rms, b.rms);
        for (std::size_t f = 0; f < a.ranges.size(); ++f) {
            const std::string r = path + ".ranges[" + std::to_string(f) + "]";
            value(r + ".underflow", a.ranges[f].underflow, b.ranges[f].underflow);
            value(r + ".subnormal", a.ranges[f].subnormal, b.ranges[f].subnormal);
            value(r + ".overflow", a.ranges[f].overflow, b.ranges[f].overflow);
        }
    }
    void histogram(const std::string& path, const Log2Histogram& a, const Log2Histogram& b) {
        for (int i = 0; i < Log2Histogram::kBins; ++i) {
            const auto u = static_cast<std::size_t>(i);
            value(path + ".bins[" + std::to_string(i) + "]", a.bins[u], b.bins[u]);
        }
        value(path + ".zeros", a.zeros, b.zeros);
        value(path + ".nans", a.nans, b.nans);
        value(path + ".pos_infs", a.pos_infs, b.pos_infs);
        value(path + ".neg_infs", a.neg_infs, b.neg_infs);
    }

private:
    std::string first_;
};

// "" when the records are identical in every field, else the first field
// that differs with both values.
inline std::string record_difference(const StepRecord& a, const StepRecord& b) {
    RecordDiff d;
    d.value("step", a.step, b.step);
    d.value("loss", a.loss, b.loss);
    d.value("loss_ref", a.loss_ref, b.loss_ref);
    d.value("scale", a.scale, b.scale);
    d.value("growth_tracker", a.growth_tracker, b.growth_tracker);
    d.value("scale_after", a.scale_after, b.scale_after);
    d.value("found_inf", a.found_inf, b.found_inf);
    d.value("skipped", a.skipped, b.skipped);
    d.value("backoff", a.backoff, b.backoff);
    d.value("growth", a.growth, b.growth);
    d.value("first_nonfinite_layer", a.first_nonfinite_layer, b.first_nonfinite_layer);
    d.value("grad_norm", a.grad_norm, b.grad_norm);
    d.value("clipped", a.clipped, b.clipped);
    d.value("lost_update_frac", a.lost_update_frac, b.lost_update_frac);
    d.value("lr", a.lr, b.lr);
    d.value("acc", a.acc, b.acc);
    d.value("acc_ref", a.acc_ref, b.acc_ref);
    d.value("test_loss", a.test_loss, b.test_loss);
    d.value("test_loss_ref", a.test_loss_ref, b.test_loss_ref);
    d.value("layers.size", a.layers.size(), b.layers.size());
    for (std::size_t i = 0; i < a.layers.size() && i < b.layers.size(); ++i) {
        const LayerRecord& x = a.layers[i];
        const LayerRecord& y = b.layers[i];
        const std::string p = "layers[" + std::to_string(i) + "]";
        d.stats(p + ".weight", x.weight, y.weight);
        d.stats(p + ".grad", x.grad, y.grad);
        d.stats(p + ".grad_unscaled", x.grad_unscaled, y.grad_unscaled);
        d.stats(p + ".act", x.act, y.act);
        d.stats(p + ".act_grad", x.act_grad, y.act_grad);
        d.stats(p + ".act_grad_unscaled", x.act_grad_unscaled, y.act_grad_unscaled);
        d.value(p + ".weight_rel_dist", x.weight_rel_dist, y.weight_rel_dist);
        d.value(p + ".grad_rel_dist", x.grad_rel_dist, y.grad_rel_dist);
        d.value(p + ".grad_cos", x.grad_cos, y.grad_cos);
    }
    return d.first();
}

// "" when both hold the same histograms (or none), else the first difference.
inline std::string histograms_difference(const std::vector<LayerHistograms>& a,
                                         const std::vector<LayerHistograms>& b) {
    RecordDiff d;
    d.value("size", a.size(), b.size());
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        const std::string p = "hist[" + std::to_string(i) + "]";
        d.histogram(p + ".weight", a[i].weight, b[i].weight);
        d.histogram(p + ".grad", a[i].grad, b[i].grad);
        d.histogram(p + ".grad_unscaled", a[i].grad_unscaled, b[i].grad_unscaled);
        d.histogram(p + ".act", a[i].act, b[i].act);
        d.histogram(p + ".act_grad", a[i].act_grad, b[i].act_grad);
        d.histogram(p + ".act_grad_unscaled", a[i].act_grad_unscaled, b[i].act_grad_unscaled);
    }
    return d.first();
}

// The message of the plab::Error `f` throws; fails the test when it throws
// nothing (or something else).
template <typename F>
std::string error_message(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected a plab::Error";
    return {};
}

}  // namespace plab::trainer_test

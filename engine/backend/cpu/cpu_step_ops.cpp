// The CPU backend's multi-tensor step ops (backend.h): they read the flags,
// counts and settings to the host and call the per-tensor references, so the
// CPU runs exactly the rule the GPU kernels follow, one tensor after another.
#include <algorithm>
#include <string>
#include <vector>

#include "engine/amp/scaler_rule.h"
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cpu/global_norm.h"
#include "engine/backend/op_checks.h"
#include "engine/backend/update_settings.h"
#include "engine/optim/update_math.h"

namespace plab {

namespace {

float read_scalar(Backend& backend, const Tensor& t) {
    float v = 0;
    backend.download(t, &v);
    return v;
}

std::vector<float> read_words(Backend& backend, const Tensor& t) {
    std::vector<float> words(t.size());
    backend.download(t, words.data());
    return words;
}

bool skipped(Backend& backend, const UpdateGate& gate) {
    if (!gate.skip || read_scalar(backend, *gate.skip) == 0.0f) return false;
    std::fill(gate.counts.begin(), gate.counts.end(), UpdateCount{});
    return true;
}

void advance(Backend& backend, const UpdateGate& gate, float count) {
    const float next = count + 1.0f;
    backend.upload(&next, *gate.step_count);
}

// The table's row for step `t` must be what adamw_scalars gives for t: the
// rows a GPU reads are checked on every CPU step.
void check_table_row(Backend& backend, const UpdateGate& gate, float count, const AdamWStep& step) {
    const Tensor& table = *gate.adamw_table;
    const int row = adamw_table_row(count, table.rows());
    // That row alone: the whole table is thousands of rows.
    const std::vector<float> words =
        read_words(backend, table.view(static_cast<std::size_t>(row) * kAdamWTableWords, {1, kAdamWTableWords}));
    const AdamWScalars wanted = adamw_scalars(step);
    AdamWScalars from_table = wanted;
    load_adamw_row(words.data(), from_table);
    checks::require(from_table.step_size == wanted.step_size &&
                        from_table.bias_correction2_sqrt == wanted.bias_correction2_sqrt,
                    [&] {
                        return "adamw_update_gated: the AdamW step table's row " + std::to_string(row) +
                               " is not step " + std::to_string(step.step) + "'s scalars";
                    });
}

}  // namespace

int CpuBackend::unscale_all(std::span<const UnscaleJob> jobs, float inv_scale) {
    int first = -1;
    for (std::size_t i = 0; i < jobs.size(); ++i)
        if (unscale_and_check(*jobs[i].src, inv_scale, *jobs[i].dst) && first < 0) first = static_cast<int>(i);
    return first;
}

void CpuBackend::unscale_all_flagged(std::span<const UnscaleJob> jobs, const Tensor& state, Tensor& found_inf) {
    checks::require_scaler_state(state, "unscale_all_flagged");
    checks::require_flag(found_inf, "unscale_all_flagged");
    float s[kScalerStateWords];
    download(state, s);
    const float flag = unscale_all(jobs, inverse_scale(s[0])) >= 0 ? 1.0f : 0.0f;
    upload(&flag, found_inf);
}

void CpuBackend::update_scaler(const Tensor& rule, const Tensor& found_inf, Tensor& state) {
    checks::require_scaler_rule(rule, "update_scaler");
    checks::require_scaler_state(state, "update_scaler");
    checks::require_flag(found_inf, "update_scaler");
    float r[kScalerRuleWords], s[kScalerStateWords], flag = 0;
    download(rule, r);
    download(state, s);
    download(found_inf, &flag);
    store_scaler_state(next_scaler_state(load_scaler_rule(r), load_scaler_state(s), flag != 0.0f), s);
    upload(s, state);
}

std::vector<float> CpuBackend::sum_of_squares_all(std::span<const Tensor* const> xs) {
    std::vector<float> sums;
    for (const Tensor* x : xs) sums.push_back(sum_of_squares(*x));
    return sums;
}

std::vector<UpdateCount> CpuBackend::sgd_update_all(std::span<const UpdateJob> jobs, const SgdStep& step) {
    std::vector<UpdateCount> counts;
    Tensor none;
    for (const UpdateJob& j : jobs) {
        counts.push_back(sgd_update(*j.w, *j.g, j.state_a ? *j.state_a : none, step));
        if (j.copy) convert(*j.w, *j.copy);
    }
    return counts;
}

std::vector<UpdateCount> CpuBackend::adamw_update_all(std::span<const UpdateJob> jobs, const AdamWStep& step) {
    std::vector<UpdateCount> counts;
    for (const UpdateJob& j : jobs) {
        counts.push_back(adamw_update(*j.w, *j.g, *j.state_a, *j.state_b, step));
        if (j.copy) convert(*j.w, *j.copy);
    }
    return counts;
}

void CpuBackend::norm_and_clip(std::span<Tensor* const> xs, const Tensor* max_norm, const Tensor* skip,
                                      Tensor& norm) {
    checks::require_scalar(norm, "norm_and_clip", "the norm");
    if (max_norm) checks::require_scalar(*max_norm, "norm_and_clip", "the max norm");
    if (skip) checks::require_scalar(*skip, "norm_and_clip", "the skip flag");
    const std::vector<const Tensor*> tensors(xs.begin(), xs.end());
    const float total = global_norm(*this, tensors);
    upload(&total, norm);
    const float limit = max_norm ? read_scalar(*this, *max_norm) : 0.0f;
    if (limit <= 0.0f || (skip && read_scalar(*this, *skip) != 0.0f)) return;
    clip_to_norm(*this, xs, limit, total);
}

void CpuBackend::sgd_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) {
    checks::require_update_gate(gate, jobs.size(), false, "sgd_update_gated");
    if (skipped(*this, gate)) return;
    const float count = read_scalar(*this, *gate.step_count);
    const SgdStep step = load_sgd_settings(read_words(*this, *gate.settings).data());
    const std::vector<UpdateCount> counts = sgd_update_all(jobs, step);
    std::copy(counts.begin(), counts.end(), gate.counts.begin());
    advance(*this, gate, count);
}

void CpuBackend::adamw_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) {
    checks::require_update_gate(gate, jobs.size(), true, "adamw_update_gated");
    if (skipped(*this, gate)) return;
    const float count = read_scalar(*this, *gate.step_count);
    AdamWStep at = load_adamw_settings(read_words(*this, *gate.settings).data());
    at.step = static_cast<int>(count) + 1;
    check_table_row(*this, gate, count, at);
    const std::vector<UpdateCount> counts = adamw_update_all(jobs, at);
    std::copy(counts.begin(), counts.end(), gate.counts.begin());
    advance(*this, gate, count);
}

}  // namespace plab

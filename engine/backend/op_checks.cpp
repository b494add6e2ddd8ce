#include "engine/backend/op_checks.h"

#include <cmath>

#include "engine/amp/scaler_rule.h"
#include "engine/backend/backend.h"
#include "engine/backend/update_settings.h"
#include "engine/common/field_check.h"
#include "engine/numeric/format.h"

namespace plab::checks {

void require_same_shape(const Tensor& a, const Tensor& b, const char* op) {
    require(a.shape() == b.shape(),
            [&] { return std::string(op) + ": shapes differ, " + shape_text(a.shape()) + " vs " + shape_text(b.shape()); });
}

void require_fp32(const Tensor& t, const char* op, const char* what) {
    require(t.dtype() == FormatId::fp32, [&] {
        return std::string(op) + ": " + what + " must be FP32, not " + std::string(format_display_name(t.dtype()));
    });
}

void require_gemm_accumulation(const GemmSpec& spec) {
    if (spec.accumulate == FormatId::fp32) return;
    const bool fp16_inputs = spec.compute == FormatId::fp16 && !spec.a_input && !spec.b_input;
    require(spec.accumulate == FormatId::fp16 && fp16_inputs, [&] {
        return "gemm: accumulation in " + std::string(format_display_name(spec.accumulate)) + " over " +
               std::string(format_display_name(spec.compute)) + (spec.a_input || spec.b_input ? " FP8-scaled" : "") +
               " inputs; only FP32, or FP16 over FP16 inputs (compute fp16, no FP8 scales), is defined";
    });
}

namespace {

// `t` holds `words` FP32 values, named `fields` in the message.
void require_words(const Tensor& t, int words, const char* op, const char* what, const char* fields) {
    require_fp32(t, op, what);
    require(t.size() == static_cast<std::size_t>(words), [&] {
        return std::string(op) + ": " + what + " holds " + std::to_string(words) + " floats (" + fields + "), not " +
               std::to_string(t.size());
    });
}

}  // namespace

void require_scaler_state(const Tensor& state, const char* op) {
    require_words(state, kScalerStateWords, op, "the scaler state", "scale, growth tracker, hysteresis left");
}

void require_scaler_rule(const Tensor& rule, const char* op) {
    require_words(rule, kScalerRuleWords, op, "the scaler rule",
                  "kind, growth factor, backoff factor, growth interval, hysteresis, min scale, max scale");
}

void require_flag(const Tensor& flag, const char* op) { require_scalar(flag, op, "the found_inf flag"); }

void require_scalar(const Tensor& t, const char* op, const char* what) {
    require_fp32(t, op, what);
    require(t.size() == 1, [&] {
        return std::string(op) + ": " + what + " is one float, not " + std::to_string(t.size());
    });
}

void require_update_gate(const UpdateGate& gate, std::size_t jobs, bool adamw, const char* op) {
    require(gate.settings != nullptr, [&] { return std::string(op) + ": the gate has no settings"; });
    if (adamw)
        require_words(*gate.settings, kAdamWSettingsWords, op, "the AdamW settings",
                      "lr, beta1, beta2, eps, weight decay");
    else
        require_words(*gate.settings, kSgdSettingsWords, op, "the SGD settings", "lr, momentum, weight decay");
    require(gate.step_count != nullptr, [&] { return std::string(op) + ": the gate has no step count"; });
    require_scalar(*gate.step_count, op, "the step count");
    if (gate.skip) require_scalar(*gate.skip, op, "the skip flag");
    require(gate.counts.size() == jobs, [&] {
        return std::string(op) + ": " + std::to_string(jobs) + " jobs but room for " +
               std::to_string(gate.counts.size()) + " counts";
    });
    if (!adamw) return;
    require(gate.adamw_table != nullptr, [&] { return std::string(op) + ": the gate has no AdamW step table"; });
    require_fp32(*gate.adamw_table, op, "the AdamW step table");
    require(gate.adamw_table->rows() >= 1 && gate.adamw_table->cols() == kAdamWTableWords, [&] {
        return std::string(op) + ": the AdamW step table is " + shape_text(gate.adamw_table->shape()) +
               ", want rows x " + std::to_string(kAdamWTableWords) + " with at least one row";
    });
}

void require_row_vector(const Tensor& v, const Tensor& x, const char* op, const char* what) {
    require(v.rows() == 1 && v.cols() == x.cols(), [&] {
        return std::string(op) + ": " + what + " " + shape_text(v.shape()) + " does not fit x " +
               shape_text(x.shape()) + " (want 1x" + std::to_string(x.cols()) + ")";
    });
}

void require_row_stats(const Tensor& s, const Tensor& x, const char* op, const char* what) {
    require(s.rows() == x.rows() && s.cols() == 1 && s.dtype() == FormatId::fp32, [&] {
        return std::string(op) + ": " + what + " " + shape_text(s.shape()) + " " +
               std::string(format_name(s.dtype())) + " does not fit x " + shape_text(x.shape()) + " (want " +
               std::to_string(x.rows()) + "x1 fp32)";
    });
}

void require_columns(const Tensor& x, const char* op) {
    require(x.rows() == 0 || x.cols() > 0,
            [&] { return std::string(op) + ": x " + shape_text(x.shape()) + " has no columns"; });
}

void require_eps(float eps, const char* op) {
    require(std::isfinite(eps) && eps >= 0.0f,
            [&] { return std::string(op) + ": eps " + shortest_number(eps) + " is not finite and >= 0"; });
}

namespace {

// x has columns and gamma and beta one value per column: both norms' parameters.
void require_column_params(const Tensor& x, const Tensor& gamma, const Tensor& beta, const char* op) {
    require_columns(x, op);
    require_row_vector(gamma, x, op, "gamma");
    require_row_vector(beta, x, op, "beta");
}

// What both norms' backward checks first, in order: the gradients' and the
// parameters' shapes against x.
void require_norm_backward_tensors(const Tensor& x, const Tensor& gamma, const Tensor& dy, const Tensor& dx,
                                   const Tensor& dgamma, const Tensor& dbeta, const char* op) {
    require_same_shape(x, dy, op);
    require_same_shape(x, dx, op);
    require_columns(x, op);
    require_row_vector(gamma, x, op, "gamma");
    require_row_vector(dgamma, x, op, "dgamma");
    require_row_vector(dbeta, x, op, "dbeta");
}

}  // namespace

void require_layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps, const Tensor& y,
                                const Tensor& mean, const Tensor& rstd) {
    constexpr const char* op = "layer_norm_forward";
    require_same_shape(x, y, op);
    require_column_params(x, gamma, beta, op);
    require_row_stats(mean, x, op, "mean");
    require_row_stats(rstd, x, op, "rstd");
    require_eps(eps, op);
}

void require_layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                                 const Tensor& dy, const Tensor& dx, const Tensor& dgamma, const Tensor& dbeta) {
    constexpr const char* op = "layer_norm_backward";
    require_norm_backward_tensors(x, gamma, dy, dx, dgamma, dbeta, op);
    require_row_stats(mean, x, op, "mean");
    require_row_stats(rstd, x, op, "rstd");
}

namespace {

// A BatchNorm statistic: one FP32 value per column of x.
void require_column_stats(const Tensor& s, const Tensor& x, const char* op, const char* what) {
    require(s.rows() == 1 && s.cols() == x.cols() && s.dtype() == FormatId::fp32, [&] {
        return std::string(op) + ": " + what + " " + shape_text(s.shape()) + " " +
               std::string(format_name(s.dtype())) + " does not fit x " + shape_text(x.shape()) + " (want 1x" +
               std::to_string(x.cols()) + " fp32)";
    });
}

}  // namespace

void require_batch_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps, float momentum,
                                const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& running_mean,
                                const Tensor& running_var) {
    constexpr const char* op = "batch_norm_forward";
    require_same_shape(x, y, op);
    // The unbiased variance the running statistics take divides by rows - 1.
    require(x.rows() >= 2, [&] {
        return std::string(op) + ": x " + shape_text(x.shape()) +
               " has fewer than 2 rows; batch statistics need a batch of 2 or more";
    });
    require_column_params(x, gamma, beta, op);
    require_column_stats(mean, x, op, "mean");
    require_column_stats(rstd, x, op, "rstd");
    require_column_stats(running_mean, x, op, "running_mean");
    require_column_stats(running_var, x, op, "running_var");
    require_eps(eps, op);
    require(momentum >= 0.0f && momentum <= 1.0f, [&] {
        return std::string(op) + ": momentum " + shortest_number(momentum) + " is not within [0, 1]";
    });
}

void require_batch_norm_inference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                  const Tensor& running_mean, const Tensor& running_var, float eps, const Tensor& y) {
    constexpr const char* op = "batch_norm_inference";
    require_same_shape(x, y, op);
    require_column_params(x, gamma, beta, op);
    require_column_stats(running_mean, x, op, "running_mean");
    require_column_stats(running_var, x, op, "running_var");
    require_eps(eps, op);
}

void require_batch_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                                 const Tensor& dy, const Tensor& dx, const Tensor& dgamma, const Tensor& dbeta) {
    constexpr const char* op = "batch_norm_backward";
    require_norm_backward_tensors(x, gamma, dy, dx, dgamma, dbeta, op);
    require_column_stats(mean, x, op, "mean");
    require_column_stats(rstd, x, op, "rstd");
}

TokenShape token_shape(const Tensor& x, int tokens, const char* op) {
    require(tokens >= 1 && x.cols() % tokens == 0, [&] {
        return std::string(op) + ": " + shape_text(x.shape()) + " does not split into " + std::to_string(tokens) +
               " tokens";
    });
    return {x.rows(), tokens, x.cols() / tokens};
}

void require_pairs(const Tensor& pairs, const TokenShape& s, const char* op) {
    require(pairs.rows() == s.rows && static_cast<std::size_t>(pairs.cols()) == s.row_pairs(), [&] {
        return std::string(op) + ": " + shape_text(pairs.shape()) + " is not " + std::to_string(s.rows) + "x" +
               std::to_string(s.row_pairs()) + " (token pairs)";
    });
}

void require_groups(const Tensor& x, int group, const char* op) {
    require(group >= 1 && x.cols() % group == 0, [&] {
        return std::string(op) + ": " + shape_text(x.shape()) + " does not split into groups of " +
               std::to_string(group);
    });
}

void require_causal_blocks(const Tensor& x, int group, const char* op) {
    require_groups(x, group, op);
    require(x.cols() % (group * group) == 0, [&] {
        return std::string(op) + ": causal rows of " + std::to_string(x.cols()) + " values do not hold whole " +
               std::to_string(group) + "x" + std::to_string(group) + " score blocks";
    });
}

EmbeddingShape embedding_shape(const Tensor& ids, const Tensor& tokens, const Tensor& positions, const Tensor& out,
                               const char* op) {
    const EmbeddingShape s{ids.rows(), tokens.rows(), positions.rows(), tokens.cols()};
    require(ids.cols() == 1, [&] { return std::string(op) + ": ids are " + shape_text(ids.shape()) + ", not rows x 1"; });
    require(s.context >= 1 && positions.cols() == s.width, [&] {
        return std::string(op) + ": positions " + shape_text(positions.shape()) + " do not match tokens " +
               shape_text(tokens.shape());
    });
    require(s.rows % s.context == 0, [&] {
        return std::string(op) + ": " + std::to_string(s.rows) + " ids are not whole sequences of " +
               std::to_string(s.context);
    });
    require(out.rows() == s.rows && out.cols() == s.width, [&] {
        return std::string(op) + ": output " + shape_text(out.shape()) + " is not " + std::to_string(s.rows) + "x" +
               std::to_string(s.width);
    });
    return s;
}

HeadShape head_shape(const Tensor& by_token, int context, int heads, const Tensor& by_head, const char* op) {
    require(context >= 1 && heads >= 1 && by_token.rows() % context == 0 && by_token.cols() % heads == 0, [&] {
        return std::string(op) + ": " + shape_text(by_token.shape()) + " does not split into sequences of " +
               std::to_string(context) + " tokens and " + std::to_string(heads) + " heads";
    });
    const HeadShape s{by_token.rows() / context, context, heads, by_token.cols() / heads};
    require(by_head.rows() == s.sequences * heads && by_head.cols() == context * s.width, [&] {
        return std::string(op) + ": " + shape_text(by_head.shape()) + " is not " + std::to_string(s.sequences * heads) +
               "x" + std::to_string(context * s.width) + " (one row per sequence and head)";
    });
    return s;
}

}  // namespace plab::checks

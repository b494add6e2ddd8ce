// Live edits and exact copies of a Trainer (the Session's forks and
// checkpoints).
#include <charconv>
#include <string>
#include <string_view>

#include "engine/amp/precision_policy.h"
#include "engine/common/error.h"
#include "engine/common/field_check.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"
#include "engine/train/trainer_side.h"

namespace plab {

namespace {

// The part of the config that defines the data, the model or the seed and
// differs between now and next ("" when none: the change can go live).
std::string_view fixed_part_changed(const RunConfig& now, const RunConfig& next) {
    if (next.seed != now.seed) return "seed";
    if (next.batch_size != now.batch_size) return "batch_size";
    if (!(next.data == now.data)) return "data";
    if (!(next.model == now.model)) return "model";
    if (recipe_weight_format(next.precision.recipe) != recipe_weight_format(now.precision.recipe))
        return "the weight format (precision.recipe to or from fp16-pure or bf16-pure)";
    if (next.precision.master_weights != now.precision.master_weights) return "precision.master_weights";
    if (next.twin && !now.twin) return "twin (a twin cannot start mid-run)";
    return {};
}

// Names the assignment's own key and value, and what it would change.
[[noreturn]] void reject_live(std::string_view assignment, std::string_view part) {
    const std::size_t eq = assignment.find('=');
    const std::string key(assignment.substr(0, eq));
    const std::string value(eq == std::string_view::npos ? "" : assignment.substr(eq + 1));
    throw Error(key + ": " + value + " cannot be set while a run is live: it changes " + std::string(part) +
                ", which the run and its twin were built from; reset the run with the new value, or fork from step 0 with it");
}

float parse_scale(std::string_view text) {
    float value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
        reject_field("scaler.scale", "\"" + std::string(text) + "\"", "a number, finite and > 0");
    return value;
}

}  // namespace

void Trainer::apply(std::string_view assignment) {
    // The live scale is state, not config: "scaler.scale=1024" sets it now.
    if (assignment.starts_with(kLiveScaleSetting) && assignment.substr(kLiveScaleSetting.size()).starts_with("=")) {
        scaler_.set_scale(parse_scale(assignment.substr(kLiveScaleSetting.size() + 1)));
        return;
    }
    RunConfig next = config_;
    apply_setting(next, assignment);
    validate(next);
    const std::string_view fixed = fixed_part_changed(config_, next);
    if (!fixed.empty()) reject_live(assignment, fixed);
    const bool new_init_scale = next.scaler.init_scale != config_.scaler.init_scale;
    apply_live(next);
    // A person who types a new init_scale into a live run means the scale to
    // train with from here: the scale restarts at it, as at step 0.
    if (new_init_scale) scaler_.set_scale(next.scaler.init_scale);
}

void Trainer::apply_live(const RunConfig& next) {
    if (!(next.scaler == config_.scaler)) scaler_.reconfigure(next.scaler);
    if (!(next.optimizer == config_.optimizer)) {
        mixed_->optimizer.reconfigure(next.optimizer);
        if (twin_) twin_->optimizer.reconfigure(next.optimizer);
    }
    mixed_->formats = mixed_pass_formats(next.precision, mixed_->model->layer_names());
    if (!(next.precision.fp8 == config_.precision.fp8)) mixed_->fp8.reconfigure(next.precision.fp8);
    if (!next.twin) twin_.reset();
    config_ = next;
}

std::unique_ptr<Run> Trainer::clone() const {
    auto copy = std::make_unique<Trainer>(given_backend_, config_, options_);
    copy->copy_state_from(*this);
    return copy;
}

// Everything that evolves during a run, copied tensor by tensor (tensors are
// handles: a plain copy would share storage).
void Trainer::copy_state_from(const Trainer& other) {
    auto copy_side = [this](Side& to, const Side& from) {
        for (std::size_t i = 0; i < to.params.size(); ++i) {
            backend_.convert(from.params[i]->value, to.params[i]->value);
            if (!to.params[i]->master.empty()) backend_.convert(from.params[i]->master, to.params[i]->master);
        }
        const std::vector<Tensor*> running = to.model->running_state();
        const std::vector<Tensor*> given = from.model->running_state();
        for (std::size_t i = 0; i < running.size(); ++i) backend_.convert(*given[i], *running[i]);
        to.optimizer.copy_state_from(backend_, from.optimizer);
        to.formats = from.formats;
        to.fp8 = from.fp8;
        to.model->set_fp8_scales(from.model->fp8_scales());
    };
    copy_side(*mixed_, *other.mixed_);
    if (twin_ && other.twin_) copy_side(*twin_, *other.twin_);
    if (!other.twin_) twin_.reset();
    sampler_ = other.sampler_;
    if (windows_ && other.windows_) windows_->follow(*other.windows_);
    scaler_ = other.scaler_;
    step_ = other.step_;
    if (tracer_ && other.tracer_) tracer_->restore(other.tracer_->first());
}

}  // namespace plab

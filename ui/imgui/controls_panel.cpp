#include "ui/imgui/controls_panel.h"

#include <cmath>
#include <string>

#include "engine/common/number_text.h"
#include "ui/imgui/plot.h"
#include "ui/present/play_pace.h"
#include "ui/present/scaler_snippet.h"

namespace plab::imgui {

namespace {

bool key_button(const char* label, const char* key) {
    const bool pressed = ImGui::Button(label);
    if (ImGui::IsItemHovered()) tooltip(std::string("key: ") + key);
    return pressed;
}


// Greys out the items until the next end_unused() when the kind ignores `what`.
struct Unused {
    Unused(const ScalerConfig& s, std::string_view field) : note(scaler_field_note(s.kind, field)) {
        if (!note.empty()) ImGui::BeginDisabled();
    }
    ~Unused() {
        if (note.empty()) return;
        ImGui::EndDisabled();
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) tooltip(note);
    }
    Unused(const Unused&) = delete;
    Unused& operator=(const Unused&) = delete;
    std::string note;  // why the kind ignores the field; empty when it reads it
};

}  // namespace

void ControlsPanel::number(const char* label, double shown, Field& field, bool whole,
                           const ScalerConfig& s, const LiveContext& context) {
    const Unused unused(s, label);
    if (!field.editing) field.value = shown;
    ImGui::SetNextItemWidth(ImGui::GetTextLineHeight() * 6);
    const bool entered = ImGui::InputDouble(label, &field.value, 0, 0, whole ? "%.0f" : "%.10g",
                                            ImGuiInputTextFlags_EnterReturnsTrue);
    field.editing = ImGui::IsItemActive();
    if (!entered) return;
    field.editing = false;
    const std::string value = whole ? std::to_string(std::llround(field.value)) : shortest_text(field.value);
    context.set(std::string("scaler.") + label + "=" + value);
}

void ControlsPanel::init_scale(const ScalerConfig& s, const LiveContext& context) {
    const Unused unused(s, "init_scale");
    if (!init_log2_.editing) init_log2_.value = std::round(std::log2(s.init_scale));
    ImGui::SetNextItemWidth(ImGui::GetTextLineHeight() * 6);
    if (ImGui::InputDouble("init_scale 2^", &init_log2_.value, 0, 0, "%.0f", ImGuiInputTextFlags_EnterReturnsTrue)) {
        init_log2_.editing = false;
        context.set("scaler.init_scale=" + shortest_text(std::ldexp(1.0, static_cast<int>(std::lround(init_log2_.value)))));
    } else {
        init_log2_.editing = ImGui::IsItemActive();
    }
}

void ControlsPanel::draw(const SessionSnapshot& snapshot, const Look& look, const LiveContext& context) {
    (void)look;
    const RunView& run = snapshot.main;
    if (!run.config) return;
    const RunConfig& config = *run.config;
    if (key_button(snapshot.playing ? "Pause" : "Play", "Space")) context.perform(live_action(LiveKey::space));
    ImGui::SameLine();
    if (key_button("Step", "S")) context.perform(live_action(LiveKey::s));
    ImGui::SameLine();
    if (key_button("Reset", "R")) context.perform(live_action(LiveKey::r));
    ImGui::SameLine();
    if (key_button("Fork", "F")) context.perform(live_action(LiveKey::f));
    if (context.pace) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetTextLineHeight() * 7);
        const auto choices = pace_choices();
        if (ImGui::BeginCombo("##pace", choices[*context.pace].label)) {
            for (std::size_t i = 0; i < choices.size(); ++i)
                if (ImGui::Selectable(choices[i].label, i == *context.pace)) *context.pace = i;
            ImGui::EndCombo();
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("How fast Play trains: steps a second, or as fast as the CPU can");
    }

    ImGui::TextDisabled("recipe (a new run):");
    for (std::size_t i = 0; i < std::size(kAllRecipes); ++i) {
        if (i % 3) ImGui::SameLine();
        const std::string label = std::to_string(i + 1) + " " + std::string(recipe_name(kAllRecipes[i]));
        // A PyTorch record's recipe is not the lab's to name.
        const bool known = !snapshot.record || snapshot.record->source.empty();
        if (ImGui::RadioButton(label.c_str(), known && config.precision.recipe == kAllRecipes[i]))
            context.perform({LiveCommand::recipe, kAllRecipes[i]});
    }
    ImGui::Separator();

    // A record's fields show its what-if once there is one: the settings being tried.
    const bool what_if = snapshot.record && snapshot.fork && snapshot.fork->config;
    const ScalerConfig& s = what_if ? snapshot.fork->config->scaler : config.scaler;
    ImGui::SetNextItemWidth(ImGui::GetTextLineHeight() * 6);
    if (ImGui::BeginCombo("kind", std::string(scaler_kind_name(s.kind)).c_str())) {
        for (ScalerKind k : kAllScalerKinds)
            if (ImGui::Selectable(std::string(scaler_kind_name(k)).c_str(), k == s.kind))
                context.set("scaler.kind=" + std::string(scaler_kind_name(k)));
        ImGui::EndCombo();
    }
    ImGui::Text("scale %s", power_of_two_text(live_loss_scale(run)).c_str());
    ImGui::SameLine();
    if (key_button("/2", "Down")) context.perform(live_action(LiveKey::down));
    ImGui::SameLine();
    if (key_button("x2", "Up")) context.perform(live_action(LiveKey::up));
    init_scale(s, context);
    number("growth_factor", s.growth_factor, growth_factor_, false, s, context);
    number("backoff_factor", s.backoff_factor, backoff_factor_, false, s, context);
    number("growth_interval", s.growth_interval, growth_interval_, true, s, context);
    ImGui::SameLine();
    if (key_button("/2##gi", "B")) context.perform(live_action(LiveKey::b));
    ImGui::SameLine();
    if (key_button("x2##gi", "G")) context.perform(live_action(LiveKey::g));
    number("hysteresis", s.hysteresis, hysteresis_, true, s, context);
    number("min_scale", s.min_scale, min_scale_, false, s, context);
    number("max_scale", s.max_scale, max_scale_, false, s, context);
    ImGui::SameLine();
    ImGui::TextDisabled("0: none");
    if (ImGui::Button("Copy as PyTorch GradScaler")) ImGui::SetClipboardText(pytorch_grad_scaler(s).code.c_str());
    if (ImGui::IsItemHovered()) tooltip(pytorch_grad_scaler(s).code);
}

}  // namespace plab::imgui

#include "ui/present/samples_view.h"

#include <algorithm>

#include "ui/present/record_notes.h"

namespace plab {

namespace {

SplitText split_at(std::string_view text, int at) {
    const std::size_t cut = at < 0 ? text.size() : std::min(text.size(), static_cast<std::size_t>(at));
    return {shown_text(text.substr(0, cut)), shown_text(text.substr(cut))};
}

SampleRow row_of(const TextSample& s, bool twin) {
    SampleRow row;
    row.prompt = shown_text(s.prompt);
    row.expected = shown_text(s.expected);
    const int differs = twin ? first_difference(s.model, s.twin) : -1;
    row.agreed = differs < 0 ? static_cast<int>(s.model.size()) : differs;
    row.model = split_at(s.model, differs);
    if (twin) row.twin = split_at(s.twin, differs);
    row.model_exact = !s.expected.empty() && s.model == s.expected;
    row.twin_exact = twin && !s.expected.empty() && s.twin == s.expected;
    return row;
}

std::string exact_count(const std::vector<SampleRow>& rows, bool SampleRow::*exact) {
    const auto n = std::count_if(rows.begin(), rows.end(), [&](const SampleRow& r) { return r.*exact; });
    return std::to_string(n) + "/" + std::to_string(rows.size());
}

std::string summary(const std::vector<SampleRow>& rows, bool answers, bool twin) {
    if (rows.empty()) return "no samples";
    if (answers)
        return "model " + exact_count(rows, &SampleRow::model_exact) + " exact" +
               (twin ? ", twin " + exact_count(rows, &SampleRow::twin_exact) : std::string());
    if (!twin) return std::to_string(rows.front().agreed) + " characters";
    const SampleRow& r = rows.front();
    if (r.model.departed.empty() && r.twin.departed.empty()) return "identical to the twin";
    return "departs at character " + std::to_string(r.agreed + 1);
}

// Why there is nothing to show, or "" when samples are due or here.
std::string missing_note(const RunConfig& c) {
    if (c.model.kind != ModelKind::gpt)
        return "Text samples come from a language model; this run trains an MLP (model.kind " +
               std::string(model_kind_name(c.model.kind)) + ").";
    if (c.telemetry.sample_every == 0)
        return "No text samples: telemetry.sample_every is 0. Set it (e.g. --set telemetry.sample_every=50) to see "
               "the model's text beside its twin's.";
    return "The first samples come at step " + std::to_string(std::min(c.telemetry.sample_every, c.steps)) + ".";
}

}  // namespace

int first_difference(std::string_view a, std::string_view b) {
    const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    if (ia == a.end() && ib == b.end()) return -1;
    return static_cast<int>(ia - a.begin());
}

std::string shown_text(std::string_view text) {
    std::string out;
    for (const char c : text) out += c == '\n' ? std::string_view("\u21b5") : std::string_view(&c, 1);
    return out;
}

SamplesView make_samples_view(const SessionSnapshot& snapshot) {
    SamplesView view;
    if (snapshot.record && !snapshot.record->source.empty()) {
        view.note = record_gap_text(RecordGap::samples, *snapshot.record);
        return view;
    }
    const RunView& run = snapshot.main;
    if (!run.config) return view;
    const RunConfig& c = *run.config;
    if (c.model.kind != ModelKind::gpt) {
        view.note = missing_note(c);
        return view;
    }
    view.answers = c.data.kind == DatasetKind::addition;
    view.twin = c.twin;
    view.title = view.answers
                     ? "Greedy answers to the first test problems (digits lowest first, as the data writes them)"
                     : "Greedy text after the test text's first " + std::to_string(c.model.gpt.context) + " characters";
    for (auto it = run.log.recent.rbegin(); it != run.log.recent.rend(); ++it) {
        const std::shared_ptr<const TextSamples>& s = (*it)->samples;
        if (!s) continue;
        SampleStep step;
        step.step = s->step;
        step.label = "step " + std::to_string(s->step);
        for (const TextSample& t : s->samples) step.rows.push_back(row_of(t, view.twin));
        step.summary = summary(step.rows, view.answers, view.twin);
        view.steps.push_back(std::move(step));
    }
    if (view.steps.empty()) view.note = missing_note(c);
    return view;
}

int picked_step_index(const SamplesView& view, std::int64_t picked) {
    if (view.steps.empty()) return -1;
    for (std::size_t i = 0; i < view.steps.size(); ++i)
        if (view.steps[i].step == picked) return static_cast<int>(i);
    return 0;
}

std::vector<std::size_t> line_starts(std::string_view text, int columns) {
    std::vector<std::size_t> starts{0};
    int on_line = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const bool continues = (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;  // inside a code point
        if (continues) continue;
        if (on_line == std::max(columns, 1)) {
            starts.push_back(i);
            on_line = 0;
        }
        ++on_line;
    }
    return starts;
}

}  // namespace plab

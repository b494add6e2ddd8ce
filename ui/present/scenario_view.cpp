#include "ui/present/scenario_view.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>
#include <utility>

#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"
#include "ui/present/lower_case.h"

namespace plab {

namespace {

constexpr std::array<std::string_view, 3> kHeadings = {"Look at", "Try", "What happens"};

std::string trimmed(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\n");
    if (first == std::string_view::npos) return {};
    const auto last = s.find_last_not_of(" \t\n");
    return std::string(s.substr(first, last - first + 1));
}

GuidePart part_of(std::string_view paragraph) {
    const std::string text = trimmed(paragraph);
    for (std::string_view h : kHeadings) {
        if (text.size() > h.size() && text.compare(0, h.size(), h) == 0 && text[h.size()] == ':')
            return {std::string(h), trimmed(std::string_view(text).substr(h.size() + 1))};
    }
    return {"", text};
}

// A preset setting, or the live loss scale (a fork's edit).
bool is_setting(std::string_view path) {
    if (path == kLiveScaleSetting) return true;
    static const std::vector<std::string> paths = setting_paths();
    for (const std::string& p : paths) {
        if (path == p) return true;
        // "precision.layer_overrides.fc4": a key under a map-valued setting.
        if (path.size() > p.size() + 1 && path.compare(0, p.size(), p) == 0 && path[p.size()] == '.' &&
            p == "precision.layer_overrides")
            return true;
    }
    return false;
}

bool path_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'; }

// The value after '=' at `at`: a bracketed list through its ']', else up to
// whitespace, a quote or a closing bracket, less trailing sentence punctuation.
std::size_t value_end(std::string_view text, std::size_t at) {
    if (at < text.size() && text[at] == '[') {
        const std::size_t close = text.find(']', at);
        return close == std::string_view::npos ? text.size() : close + 1;
    }
    std::size_t end = at;
    while (end < text.size() && std::string_view(" \t\n`'\")]").find(text[end]) == std::string_view::npos) ++end;
    while (end > at && std::string_view(",.;:").find(text[end - 1]) != std::string_view::npos) --end;
    return end;
}

struct Found {
    std::string assignment;
    std::size_t begin = 0, end = 0;  // where it sits in the text
};

std::vector<Found> assignments_in(std::string_view text) {
    std::vector<Found> found;
    for (std::size_t eq = text.find('='); eq != std::string_view::npos; eq = text.find('=', eq + 1)) {
        std::size_t begin = eq;
        while (begin > 0 && path_char(text[begin - 1])) --begin;
        const std::string_view path = text.substr(begin, eq - begin);
        if (path.empty() || !is_setting(path)) continue;
        const std::size_t end = value_end(text, eq + 1);
        if (end == eq + 1) continue;
        found.push_back({std::string(text.substr(begin, end - begin)), begin, end});
    }
    return found;
}

}  // namespace

std::vector<GuidePart> split_guide(const std::string& guide) {
    std::vector<GuidePart> parts;
    std::size_t start = 0;
    while (start <= guide.size()) {
        std::size_t end = guide.find("\n\n", start);
        if (end == std::string::npos) end = guide.size();
        GuidePart p = part_of(std::string_view(guide).substr(start, end - start));
        if (!p.text.empty() || !p.heading.empty()) parts.push_back(std::move(p));
        start = end + 2;
    }
    return parts;
}

std::vector<std::vector<std::string>> named_changes(const std::string& text) {
    std::vector<std::vector<std::string>> changes;
    const std::vector<Found> found = assignments_in(text);
    for (std::size_t i = 0; i < found.size(); ++i) {
        std::vector<std::string> change = {found[i].assignment};
        while (i + 1 < found.size()) {
            std::string between = text.substr(found[i].end, found[i + 1].begin - found[i].end);
            if (between.size() >= 6 && between.compare(between.size() - 6, 6, "--set ") == 0)
                between.resize(between.size() - 6);
            if (between != " with " && between != " and ") break;
            change.push_back(found[++i].assignment);
        }
        if (std::find(changes.begin(), changes.end(), change) == changes.end()) changes.push_back(std::move(change));
    }
    return changes;
}

ScenarioView make_scenario_view(const RunConfig& config) {
    ScenarioView v;
    v.title = config.name;
    v.description = config.description;
    v.parts = split_guide(config.guide);
    for (const GuidePart& p : v.parts)
        if (p.heading == "Try")
            for (std::vector<std::string>& change : named_changes(p.text))
                if (std::find(v.try_changes.begin(), v.try_changes.end(), change) == v.try_changes.end())
                    v.try_changes.push_back(std::move(change));
    if (v.parts.empty())
        v.no_guide = "This preset has no guided text. The scenario presets (plab scenario --list) each come with one: "
                     "what to look at, what to try, and what happens.";
    return v;
}

namespace {

// How guides name the panels (lower case); the counters are the histogram
// panel's. A panel's first mention decides its place.
struct PanelPhrase {
    std::string_view phrase, panel;
};
constexpr std::array<PanelPhrase, 15> kPanelPhrases = {{{"loss scale", "scale"},
                                                       {"loss curve", "loss"},
                                                       {"training loss", "loss"},
                                                       {"accuracy", "loss"},
                                                       {"histogram", "histograms"},
                                                       {"bit layout", "bits"},
                                                       {"divergence", "divergence"},
                                                       {"events", "events"},
                                                       {"nan panel", "nan"},
                                                       {"nan / overflow", "nan"},
                                                       {"nan diagnosis", "nan"},
                                                       {"decision", "decision"},
                                                       {"samples", "samples"},
                                                       {"speed", "speed"},
                                                       {"counters", "histograms"}}};

}  // namespace

namespace {

// The "Look at" paragraphs, lower case.
std::string look_at_text(const std::string& guide) {
    std::string look;
    for (const GuidePart& part : split_guide(guide))
        if (part.heading == "Look at") look += lower_case(part.text) + "\n";
    return look;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// Where `word` first stands alone in `text` (npos if nowhere).
std::size_t find_word(const std::string& text, const std::string& word) {
    for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
        const std::size_t end = at + word.size();
        const bool before = at == 0 || !word_char(text[at - 1]);
        const bool after = end == text.size() || !word_char(text[end]) ||
                           (text[end] == '.' && (end + 1 == text.size() || !word_char(text[end + 1])));
        if (before && after) return at;
    }
    return std::string::npos;
}

// How guides name the histogram panel's tensors, the more specific first.
struct TensorPhrase {
    std::string_view phrase;
    HistTensor tensor;
};
constexpr std::array<TensorPhrase, 6> kTensorPhrases = {{{"activation-gradient", HistTensor::act_grad},
                                                         {"activation gradient", HistTensor::act_grad},
                                                         {"weight-gradient", HistTensor::grad},
                                                         {"weight gradient", HistTensor::grad},
                                                         {"gradient histogram", HistTensor::grad},
                                                         {"activation histogram", HistTensor::act}}};

}  // namespace

HistogramFocus looked_at_histogram(const std::string& guide, const std::vector<std::string>& layers) {
    const std::string look = look_at_text(guide);
    HistogramFocus focus;
    for (const TensorPhrase& p : kTensorPhrases)
        if (look.find(p.phrase) != std::string::npos) {
            focus.tensor = p.tensor;
            break;
        }
    for (FormatId f : kRangeFormats) {
        const std::size_t at = look.find(lower_case(std::string(format_display_name(f))));
        if (at == std::string::npos) continue;
        const std::size_t band = look.find("band", at), stop = look.find_first_of(".\n", at);
        if (band != std::string::npos && band < stop) focus.bands.push_back(f);
    }
    std::size_t first = std::string::npos;
    for (const std::string& layer : layers) {
        const std::size_t at = find_word(look, lower_case(layer));
        if (at < first) {
            first = at;
            focus.layer = layer;
        }
    }
    return focus;
}

std::vector<std::string> looked_at_panels(const std::string& guide) {
    const std::string look = look_at_text(guide);
    std::vector<std::pair<std::size_t, std::string>> found;  // (first mention, panel)
    for (const PanelPhrase& p : kPanelPhrases) {
        const std::size_t at = look.find(p.phrase);
        if (at != std::string::npos) found.emplace_back(at, std::string(p.panel));
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> panels;
    for (const auto& [at, panel] : found)
        if (std::find(panels.begin(), panels.end(), panel) == panels.end()) panels.push_back(panel);
    return panels;
}

}  // namespace plab

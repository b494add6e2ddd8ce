#include "ui/present/scenario_view.h"

#include <algorithm>
#include <array>
#include <string_view>

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

// An assignment ends at whitespace, or at a closing quote, bracket or
// sentence punctuation that the guide's prose puts right after it.
std::string assignment_at(std::string_view text, std::size_t start) {
    std::size_t end = start;
    while (end < text.size() && std::string_view(" \t\n`'\")]").find(text[end]) == std::string_view::npos) ++end;
    std::string a(text.substr(start, end - start));
    while (!a.empty() && std::string_view(",.;:").find(a.back()) != std::string_view::npos) a.pop_back();
    return a;
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

std::vector<std::string> set_assignments(const std::string& text) {
    std::vector<std::string> out;
    constexpr std::string_view kSet = "--set ";
    for (std::size_t at = text.find(kSet); at != std::string::npos; at = text.find(kSet, at + kSet.size())) {
        std::string a = assignment_at(text, at + kSet.size());
        if (a.find('=') == std::string::npos || a.front() == '=') continue;
        if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(std::move(a));
    }
    return out;
}

ScenarioView make_scenario_view(const RunConfig& config) {
    ScenarioView v;
    v.title = config.name;
    v.description = config.description;
    v.parts = split_guide(config.guide);
    for (const GuidePart& p : v.parts)
        if (p.heading == "Try")
            for (std::string& a : set_assignments(p.text))
                if (std::find(v.try_changes.begin(), v.try_changes.end(), a) == v.try_changes.end())
                    v.try_changes.push_back(std::move(a));
    if (v.parts.empty())
        v.no_guide = "This preset has no guided text. The scenario presets (plab scenario --list) each come with one: "
                     "what to look at, what to try, and what happens.";
    return v;
}

}  // namespace plab

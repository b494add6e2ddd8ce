#include "ui/present/decision_view.h"

#include <algorithm>

#include "engine/amp/precision_config.h"
#include "engine/data/dataset.h"

namespace plab {

namespace {

std::string step_suffix(std::int64_t step) { return " · step " + std::to_string(step); }

// Confidence p of the predicted class, from chance (1/k) to certainty (1), as 0..1.
std::vector<float> shades(const std::vector<float>& confidence, int classes) {
    const double chance = 1.0 / classes;
    std::vector<float> out(confidence.size());
    std::transform(confidence.begin(), confidence.end(), out.begin(), [chance](float p) {
        return static_cast<float>(std::clamp((p - chance) / (1.0 - chance), 0.0, 1.0));
    });
    return out;
}

DecisionMap make_map(std::string title, const std::vector<std::uint8_t>& classes, const std::vector<float>& confidence,
                     int class_count) {
    return {std::move(title), classes, shades(confidence, class_count)};
}

}  // namespace

std::shared_ptr<const DecisionGrid> latest_boundary(const RunLogView& log) {
    for (auto it = log.recent.rbegin(); it != log.recent.rend(); ++it)
        if ((*it)->boundary) return (*it)->boundary;
    return nullptr;
}

std::string decision_placeholder(const RunConfig& config, const DecisionGrid* grid, int boundary_every) {
    if (dataset_num_classes(config.data) == 0)
        return "Decision boundary: needs a 2-D classification set (this run's data set is " +
               std::string(dataset_kind_name(config.data.kind)) + ", a regression)";
    if (grid) return {};
    if (boundary_every <= 0) return "Decision boundary: grids are off for this workbench";
    return "No grid yet: taken every " + std::to_string(boundary_every) + " steps";
}

std::string percent_text(std::int64_t part, std::int64_t whole) {
    if (part <= 0 || whole <= 0) return "0%";
    if (part >= whole) return "100%";
    // Tenths of a percent, rounded half up, in integers (no binary fractions to tip a half).
    const std::int64_t tenths = (2000 * part + whole) / (2 * whole);
    if (tenths == 0) return "< 0.1%";
    if (tenths == 1000) return "> 99.9%";
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "%";
}

DecisionView make_decision_view(const DecisionGrid& grid, Recipe recipe) {
    DecisionView v;
    v.step = grid.step;
    v.resolution = grid.resolution;
    v.classes = grid.classes;
    const std::string suffix = step_suffix(grid.step);
    v.amp = make_map("AMP (" + std::string(recipe_name(recipe)) + ")" + suffix, grid.amp, grid.amp_confidence,
                     grid.classes);
    v.has_twin = !grid.twin.empty();
    v.difference_title = "Difference" + suffix;
    const auto cells = static_cast<std::int64_t>(grid.amp.size());
    if (v.has_twin) {
        v.twin = make_map("FP32 twin" + suffix, grid.twin, grid.twin_confidence, grid.classes);
        v.differ.resize(grid.amp.size());
        for (std::size_t c = 0; c < grid.amp.size(); ++c) {
            v.differ[c] = grid.amp[c] != grid.twin[c];
            v.differing_cells += v.differ[c];
        }
        v.disagree_percent = cells > 0 ? 100.0 * static_cast<double>(v.differing_cells) / static_cast<double>(cells) : 0;
        v.summary = v.differing_cells == 0
                        ? "AMP and twin agree on every cell of the plane (" + std::to_string(cells) + " cells)"
                        : "AMP and twin disagree on " + percent_text(v.differing_cells, cells) + " of the plane (" +
                              std::to_string(v.differing_cells) + " of " + std::to_string(cells) + " cells)";
    } else {
        v.summary = "No FP32 twin in this run: nothing to compare the AMP boundary with";
    }
    const double width = grid.x_max - grid.x_min, height = grid.y_max - grid.y_min;
    for (const GridPoint& p : grid.points)
        v.points.push_back({(p.x - grid.x_min) / width, (p.y - grid.y_min) / height, p.label});
    return v;
}

}  // namespace plab

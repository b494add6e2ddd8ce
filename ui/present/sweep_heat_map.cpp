#include "ui/present/sweep_heat_map.h"

#include <algorithm>
#include <cmath>

#include "engine/common/number_text.h"
#include "engine/sweep/cell_summary.h"

namespace plab {

namespace {

std::string number(double x, int digits) {
    if (std::isnan(x)) return "NaN";
    if (std::isinf(x)) return x > 0 ? "Inf" : "-Inf";
    return significant_text(x, digits);
}
std::string count_text(double x) { return number(x, 4); }
std::string loss_text(double x) { return number(x, 4); }
std::string percent_text(double x) { return number(100.0 * x, 3) + "%"; }
std::string points_text(double x) { return number(100.0 * x, 3) + " pts"; }

// How a measure reads and which way is better. Losses are drawn on a log
// scale: a diverged cell's loss is orders of magnitude above a converged
// one's, and on a linear scale every converged cell would take one colour.
struct MetricRule {
    const char* name;
    bool lower_better;
    bool on_log;
    std::optional<Spread> (*of)(const CellSummary&);
    std::string (*text)(double);
};

MetricRule rule_of(SweepMetric m) {
    switch (m) {
        case SweepMetric::final_loss:
            return {"final loss", true, true, [](const CellSummary& c) { return std::optional(c.final_loss); }, loss_text};
        case SweepMetric::test_acc:
            return {"test accuracy", false, false, [](const CellSummary& c) { return c.acc; }, percent_text};
        case SweepMetric::acc_gap:
            return {"gap to FP32 twin", true, false, [](const CellSummary& c) { return c.acc_gap; }, points_text};
        case SweepMetric::test_loss:
            return {"test loss", true, true, [](const CellSummary& c) { return c.test_loss; }, loss_text};
        case SweepMetric::skipped:
            return {"skipped steps", true, false, [](const CellSummary& c) { return std::optional(c.skipped); },
                    count_text};
        case SweepMetric::grad_zeros:
            return {"grad zeros", true, false, [](const CellSummary& c) { return std::optional(c.grad_zero_share); },
                    percent_text};
        case SweepMetric::twin_flush:
            return {"true flush (twin)", true, false, [](const CellSummary& c) { return c.twin_flush_share; },
                    percent_text};
    }
    return rule_of(SweepMetric::final_loss);
}

// "12.4 [10..15]": the mean, and the range when the seeds differ.
std::string spread_text(const std::optional<Spread>& s, std::string (*format)(double)) {
    if (!s) return "-";
    std::string text = format(s->mean);
    if (s->min != s->max) text += " [" + format(s->min) + ".." + format(s->max) + "]";
    return text;
}

std::string hover_measures(const CellSummary& c, std::int64_t steps) {
    return "skipped steps: " + spread_text(c.skipped, count_text) + " of " + std::to_string(steps) +
           "\nat floor / ceiling: " + spread_text(c.floor_steps, count_text) + " / " +
           spread_text(c.ceiling_steps, count_text) + "\ngrad zeros: " + spread_text(c.grad_zero_share, percent_text) +
           "\ntrue flush (twin): " + spread_text(c.twin_flush_share, percent_text) +
           "\nfinal loss: " + spread_text(c.final_loss, loss_text) + "\ntest accuracy: " +
           spread_text(c.acc, percent_text) + "\ngap to FP32 twin: " + spread_text(c.acc_gap, points_text) +
           "\ntest loss: " + spread_text(c.test_loss, loss_text) + "\nfirst growth: " +
           (c.first_growth_step ? "step " + spread_text(c.first_growth_step, count_text) : std::string("none"));
}

std::string settings_text(const SweepCell& cell, const char* separator) {
    std::string text;
    for (const std::string& s : cell.settings) text += (text.empty() ? "" : separator) + s;
    return text;
}

// What the map needs of one cell beside its view: whether it may be the best.
struct CellFacts {
    std::optional<CellSummary> summary;  // when every run is done
    double worst_skipped_share = 0;      // over its seeds
};

CellFacts cell_facts(const SweepPlan& plan, const std::vector<std::optional<RunMeasures>>& runs, std::size_t c,
                     std::size_t& done, std::size_t& total) {
    std::vector<RunMeasures> finished;
    CellFacts f;
    total = 0;
    for (std::size_t i = 0; i < plan.runs.size(); ++i) {
        if (plan.runs[i].cell != c) continue;
        ++total;
        if (!runs[i]) continue;
        finished.push_back(*runs[i]);
        const double steps = static_cast<double>(std::max<std::int64_t>(1, runs[i]->steps));
        f.worst_skipped_share = std::max(f.worst_skipped_share, static_cast<double>(runs[i]->skipped) / steps);
    }
    done = finished.size();
    if (done == total) f.summary = summarise_cell(finished);
    return f;
}

// Where a value sits between the range's ends on the measure's scale, as
// 0 worst .. 1 best. Equal ends have no spread to show: the middle.
double colour_of(double v, double lo, double hi, const MetricRule& rule, bool log_scale) {
    if (!std::isfinite(v)) return 0;
    const auto f = [log_scale](double x) { return log_scale ? std::log(x) : x; };
    if (!(hi > lo)) return 0.5;
    const double t = (f(v) - f(lo)) / (f(hi) - f(lo));
    return rule.lower_better ? 1 - t : t;
}

// The last axis runs across (it varies fastest in the plan's cell order);
// the others, combined, run down: with one axis, a single unnamed row.
void fill_axes(const SweepPlan& plan, SweepHeatMap& v) {
    v.column_field = plan.axes.back().field;
    v.column_labels = plan.axes.back().values;
    for (std::size_t a = 0; a + 1 < plan.axes.size(); ++a) v.row_field += (a ? ", " : "") + plan.axes[a].field;
    for (std::size_t c = 0; c < plan.cells.size(); c += v.column_labels.size()) {
        std::string label;
        for (std::size_t a = 0; a + 1 < plan.axes.size(); ++a)
            label += (a ? ", " : "") + plan.cells[c].settings[a].substr(plan.axes[a].field.size() + 1);
        v.row_labels.push_back(label);
    }
}

void colour_cells(SweepHeatMap& v, const MetricRule& rule) {
    double lo = INFINITY, hi = -INFINITY;
    bool positive = true;
    for (const SweepCellView& c : v.cells)
        if (c.value && std::isfinite(*c.value)) {
            lo = std::min(lo, *c.value);
            hi = std::max(hi, *c.value);
            positive = positive && *c.value > 0;
        }
    if (lo > hi) return;  // nothing measured yet
    // A loss of 0 has no logarithm: the scale falls back to linear.
    v.log_scale = rule.on_log && positive;
    for (SweepCellView& c : v.cells)
        if (c.value) c.colour = colour_of(*c.value, lo, hi, rule, v.log_scale);
    v.worst_text = rule.text(rule.lower_better ? hi : lo);
    v.best_text = rule.text(rule.lower_better ? lo : hi);
}

bool better(double a, double b, const MetricRule& rule) { return rule.lower_better ? a < b : a > b; }

std::string limit_text(double percent) { return number(percent, 3) + "%"; }

}  // namespace

std::string_view sweep_metric_name(SweepMetric metric) { return rule_of(metric).name; }

SweepHeatMap make_heat_map(const SweepPlan& plan, const std::vector<std::optional<RunMeasures>>& runs,
                           const SweepHeatChoice& choice) {
    const MetricRule rule = rule_of(choice.metric);
    SweepHeatMap v;
    fill_axes(plan, v);
    std::vector<double> skipped_share(plan.cells.size(), 0);
    for (std::size_t c = 0; c < plan.cells.size(); ++c) {
        std::size_t done = 0, total = 0;
        const CellFacts f = cell_facts(plan, runs, c, done, total);
        SweepCellView& cell = v.cells.emplace_back();
        cell.hover = settings_text(plan.cells[c], "\n");
        skipped_share[c] = f.worst_skipped_share;
        if (!f.summary) {
            cell.text = "…";
            cell.hover += "\ntraining: " + std::to_string(done) + " of " + std::to_string(total) + " runs finished";
            continue;
        }
        cell.pending = false;
        ++v.finished;
        const std::optional<Spread> s = rule.of(*f.summary);
        if (s) cell.value = s->mean;
        cell.text = s ? rule.text(s->mean) : "-";
        cell.hover += "\n" + hover_measures(*f.summary, plan.runs.front().config.steps);
        if (total > 1) cell.hover += "\nover " + std::to_string(total) + " seeds: mean [min..max]";
    }
    colour_cells(v, rule);
    v.title = std::string(rule.name) + (v.log_scale ? " (log scale, " : " (") +
              (rule.lower_better ? "lower is better)" : "higher is better)");
    for (std::size_t c = 0; c < v.cells.size(); ++c) {
        const SweepCellView& cell = v.cells[c];
        if (!cell.value || !std::isfinite(*cell.value)) continue;
        if (100.0 * skipped_share[c] > choice.max_skipped_percent) continue;
        if (!v.best || better(*cell.value, *v.cells[*v.best].value, rule)) v.best = c;
    }
    const std::string limit = "at most " + limit_text(choice.max_skipped_percent) + " skipped steps";
    if (v.best) {
        v.cells[*v.best].best = true;
        v.best_line = "Best with " + limit + ": " + settings_text(plan.cells[*v.best], ", ") + " (" + rule.name +
                      " " + v.cells[*v.best].text + ")";
    } else {
        v.best_line = v.finished == 0 ? "No cell has finished yet." : "No finished cell has " + limit + ".";
    }
    return v;
}

}  // namespace plab

#include "ui/cli/sweep_output.h"

#include <algorithm>
#include <optional>

#include "engine/common/number_text.h"
#include "engine/sweep/cell_summary.h"
#include "ui/records/json_line.h"

namespace plab {

namespace {

std::string count_text(double x) { return significant_text(x, 4); }
std::string percent_text(double x) { return significant_text(100.0 * x, 3) + "%"; }
std::string points_text(double x) { return significant_text(100.0 * x, 3) + " pts"; }
std::string loss_text(double x) { return significant_text(x, 4); }

// "12.4 [10..15]": the mean, and the range when the seeds differ.
std::string spread_text(const std::optional<Spread>& s, std::string (*format)(double)) {
    if (!s) return "-";
    std::string text = format(s->mean);
    if (s->min != s->max) text += " [" + format(s->min) + ".." + format(s->max) + "]";
    return text;
}

// A cell's value on axis `axis`: what follows "field=" in its setting.
std::string axis_value(const SweepPlan& plan, const SweepCell& cell, std::size_t axis) {
    return cell.settings[axis].substr(plan.axes[axis].field.size() + 1);
}

// The runs of cell `c`, in seed order (the plan keeps each cell's runs together).
std::vector<RunMeasures> cell_runs(const SweepPlan& plan, const std::vector<RunMeasures>& measures, std::size_t c) {
    std::vector<RunMeasures> runs;
    for (std::size_t i = 0; i < plan.runs.size(); ++i)
        if (plan.runs[i].cell == c) runs.push_back(measures[i]);
    return runs;
}

// Every measure of a cell, in print order: its JSON key, its column title,
// and how a number of it reads.
struct Measure {
    const char* key;
    const char* title;
    std::optional<Spread> (*of)(const CellSummary&);
    std::string (*text)(double);
};

constexpr Measure kMeasures[] = {
    {"skipped", "skipped", [](const CellSummary& c) { return std::optional(c.skipped); }, count_text},
    {"floor_steps", "at floor", [](const CellSummary& c) { return std::optional(c.floor_steps); }, count_text},
    {"ceiling_steps", "at ceiling", [](const CellSummary& c) { return std::optional(c.ceiling_steps); }, count_text},
    {"grad_zero_share", "grad zeros", [](const CellSummary& c) { return std::optional(c.grad_zero_share); },
     percent_text},
    {"twin_flush_share", "twin flush", [](const CellSummary& c) { return c.twin_flush_share; }, percent_text},
    {"final_loss", "final loss", [](const CellSummary& c) { return std::optional(c.final_loss); }, loss_text},
    {"acc", "test acc", [](const CellSummary& c) { return c.acc; }, percent_text},
    {"acc_gap", "gap to twin", [](const CellSummary& c) { return c.acc_gap; }, points_text},
    {"test_loss", "test loss", [](const CellSummary& c) { return c.test_loss; }, loss_text},
    {"first_growth_step", "first growth", [](const CellSummary& c) { return c.first_growth_step; }, count_text},
};

std::string table_text(const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> widths(rows.front().size(), 0);
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
    std::string text;
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i)
            line += row[i] + (i + 1 < row.size() ? std::string(widths[i] - row[i].size() + 2, ' ') : "");
        text += line + "\n";
    }
    return text;
}

std::string seeds_text(const SweepPlan& plan) {
    if (plan.seeds.empty()) return "the preset's seed";
    if (plan.seeds.size() == 1) return "seed " + std::to_string(plan.seeds.front());
    return std::to_string(plan.seeds.size()) + " seeds (mean [min..max] over them)";
}

void write_spread(JsonLine& j, const char* key, const std::optional<Spread>& s) {
    if (!s) {
        j.null(key);
        return;
    }
    j.begin_object(key).number("mean", s->mean).number("min", s->min).number("max", s->max).integer("runs", s->runs);
    j.end_object();
}

template <typename T>
void write_optional(JsonLine& j, const char* key, const std::optional<T>& x) {
    if (!x)
        j.null(key);
    else if constexpr (std::is_integral_v<T>)
        j.integer(key, *x);
    else
        j.number(key, *x);
}

void write_run(JsonLine& j, const SweepRun& run, const RunMeasures& m) {
    j.begin_object().raw("seed", std::to_string(run.seed)).integer("steps", m.steps);
    j.integer("skipped", m.skipped).integer("floor_steps", m.floor_steps).integer("ceiling_steps", m.ceiling_steps);
    j.number("grad_zero_share", m.grad_zero_share);
    write_optional(j, "twin_flush_share", m.twin_flush_share);
    j.number("final_loss", m.final_loss);
    write_optional(j, "acc", m.acc);
    write_optional(j, "acc_ref", m.acc_ref);
    write_optional(j, "acc_gap", m.acc_gap());
    write_optional(j, "test_loss", m.test_loss);
    write_optional(j, "test_loss_ref", m.test_loss_ref);
    write_optional(j, "first_growth_step", m.first_growth_step);
    j.end_object();
}

void write_summary(JsonLine& j, const CellSummary& c) {
    j.begin_object("summary");
    for (const Measure& m : kMeasures) write_spread(j, m.key, m.of(c));
    j.end_object();
}

void write_cell(JsonLine& j, const SweepPlan& plan, const std::vector<RunMeasures>& measures, std::size_t c) {
    j.begin_object().begin_object("values");
    for (std::size_t a = 0; a < plan.axes.size(); ++a)
        j.string(plan.axes[a].field, axis_value(plan, plan.cells[c], a));
    j.end_object().begin_array("runs");
    for (std::size_t i = 0; i < plan.runs.size(); ++i)
        if (plan.runs[i].cell == c) write_run(j, plan.runs[i], measures[i]);
    j.end_array();
    write_summary(j, summarise_cell(cell_runs(plan, measures, c)));
    j.end_object();
}

}  // namespace

std::string sweep_table(const SweepPlan& plan, const std::vector<RunMeasures>& measures) {
    std::vector<std::vector<std::string>> rows(1);
    for (const SweepAxis& a : plan.axes) rows[0].push_back(a.field);
    for (const Measure& m : kMeasures) rows[0].emplace_back(m.title);
    for (std::size_t c = 0; c < plan.cells.size(); ++c) {
        std::vector<std::string>& row = rows.emplace_back();
        for (std::size_t a = 0; a < plan.axes.size(); ++a) row.push_back(axis_value(plan, plan.cells[c], a));
        const CellSummary summary = summarise_cell(cell_runs(plan, measures, c));
        for (const Measure& m : kMeasures) row.push_back(spread_text(m.of(summary), m.text));
    }
    const RunConfig& config = plan.runs.front().config;
    return config.name + ", " + std::to_string(config.steps) + " steps, " + seeds_text(plan) + "\n" +
           table_text(rows) +
           "at floor/ceiling: steps whose scale the scaler could not lower/raise; grad zeros: weight-gradient "
           "values held as zero (flushed, or zero in FP32 too); twin flush: the twin's true weight gradients the "
           "format flushes; gap: twin's test accuracy minus the run's; first "
           "growth: the step whose update first grew the scale\n";
}

std::string sweep_json(const SweepPlan& plan, const std::vector<RunMeasures>& measures) {
    std::string out;
    {
        JsonLine j(out);
        const RunConfig& config = plan.runs.front().config;
        j.string("preset", config.name).integer("steps", config.steps).string("spread", "min/max over the seeds");
        j.begin_array("seeds");
        for (std::uint64_t s : plan.seeds) j.raw("", std::to_string(s));  // past int64 too
        j.end_array().begin_array("axes");
        for (const SweepAxis& a : plan.axes) {
            j.begin_object().string("field", a.field).begin_array("values");
            for (const std::string& v : a.values) j.string("", v);
            j.end_array().end_object();
        }
        j.end_array().begin_array("cells");
        for (std::size_t c = 0; c < plan.cells.size(); ++c) write_cell(j, plan, measures, c);
        j.end_array();
    }
    return out;
}

}  // namespace plab

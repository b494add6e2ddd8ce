#include "engine/sweep/sweep_grid.h"

#include <algorithm>
#include <charconv>

#include "engine/amp/scaler_fields.h"
#include "engine/common/error.h"

namespace plab {

namespace {

// Splits at the commas outside brackets and quotes: a JSON list or a quoted
// name is one value.
std::vector<std::string> split_values(std::string_view text) {
    std::vector<std::string> values(1);
    int depth = 0;
    bool quoted = false;
    for (const char ch : text) {
        if (ch == '"') quoted = !quoted;
        if (!quoted && (ch == '[' || ch == '{')) ++depth;
        if (!quoted && (ch == ']' || ch == '}')) --depth;
        if (ch == ',' && depth == 0 && !quoted) {
            values.emplace_back();
            continue;
        }
        values.back() += ch;
    }
    return values;
}

std::uint64_t parse_seed(std::string_view text, std::string_view list) {
    std::uint64_t seed = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
        throw Error("--seeds: '" + std::string(list) + "' is not a seed list; allowed seeds 0..18446744073709551615 as "
                    "a range or a list, e.g. 1-5 or 1,3,7");
    return seed;
}

void add_seed_range(std::vector<std::uint64_t>& seeds, std::uint64_t first, std::uint64_t last, std::string_view list) {
    if (last < first)
        throw Error("--seeds: " + std::to_string(first) + "-" + std::to_string(last) +
                    " runs backwards; write the smaller seed first, e.g. 1-5");
    if (last - first >= kMaxSeeds || seeds.size() + (last - first) >= kMaxSeeds)
        throw Error("--seeds: '" + std::string(list) + "' holds more than " + std::to_string(kMaxSeeds) + " seeds");
    for (std::uint64_t s = first;; ++s) {
        seeds.push_back(s);
        if (s == last) break;
    }
}

void check_axes(const std::vector<SweepAxis>& axes, bool seeds_given) {
    if (axes.empty())
        throw Error("plab sweep: no --grid axis; give at least one, e.g. --grid scaler.init_scale=2^8,2^16");
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const SweepAxis& a = axes[i];
        if (a.values.empty()) throw Error("--grid " + a.field + ": the axis has no values; give FIELD=V1,V2,...");
        for (std::size_t j = 0; j < i; ++j)
            if (axes[j].field == a.field)
                throw Error("--grid " + a.field + ": the axis is given twice; give each field once, with all its "
                            "values in one --grid");
        if (seeds_given && a.field == "seed")
            throw Error("--grid seed: the seeds are given by --seeds too; give them one way");
        for (std::size_t j = 0; j < a.values.size(); ++j)
            if (std::find(a.values.begin(), a.values.begin() + static_cast<std::ptrdiff_t>(j), a.values[j]) !=
                a.values.begin() + static_cast<std::ptrdiff_t>(j))
                throw Error("--grid " + a.field + ": the value " + a.values[j] + " is listed twice");
    }
}

// Each value on its own, on the edited preset: the field's own message
// (unknown key with the allowed keys, or the value with its allowed range)
// under the axis it came from.
void check_values(const RunConfig& edited, const SweepAxis& axis) {
    for (const std::string& value : axis.values) {
        const std::string assignment = axis.field + "=" + value;
        try {
            RunConfig config = edited;
            apply_settings(config, {assignment});
        } catch (const Error& e) {
            throw Error("--grid " + assignment + ": " + e.what());
        }
    }
}

std::vector<SweepCell> expand_cells(const std::vector<SweepAxis>& axes) {
    std::vector<SweepCell> cells(1);
    for (const SweepAxis& axis : axes) {
        std::vector<SweepCell> longer;
        longer.reserve(cells.size() * axis.values.size());
        for (const SweepCell& cell : cells)
            for (const std::string& value : axis.values) {
                longer.push_back(cell);
                longer.back().settings.push_back(axis.field + "=" + value);
            }
        cells = std::move(longer);
    }
    return cells;
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
    return out;
}

// One run's config: the sweep's edits, then the cell's values, then the seed.
RunConfig run_config(const RunConfig& base, const PresetEdits& edits, const SweepCell& cell,
                     std::optional<std::uint64_t> seed) {
    PresetEdits run = edits;
    run.settings.insert(run.settings.end(), cell.settings.begin(), cell.settings.end());
    if (seed) run.seed = seed;
    try {
        return edited_config(base, run);
    } catch (const Error& e) {
        throw Error("--grid: the cell " + joined(cell.settings) + " is refused: " + e.what());
    }
}

// A scaler field that no run of the plan reads (the preset has no scaler
// and no axis gives it one) would sweep identical runs: refused, naming the
// --set or the axis.
void require_read_settings(const SweepPlan& plan, const PresetEdits& edits) {
    std::vector<ScalerKind> kinds;
    for (const SweepRun& run : plan.runs) kinds.push_back(run.config.scaler.kind);
    require_read_scaler_settings("--set", edits.settings, kinds);
    for (const SweepAxis& axis : plan.axes)
        require_read_scaler_settings("--grid", {axis.field + "=" + joined(axis.values)}, kinds);
}

}  // namespace

SweepAxis parse_sweep_axis(std::string_view text) {
    const std::size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0)
        throw Error("--grid: '" + std::string(text) +
                    "' is not an axis; allowed FIELD=V1,V2,..., e.g. scaler.init_scale=2^8,2^16 (fields: plab "
                    "presets --help)");
    SweepAxis axis{std::string(text.substr(0, eq)), {}};
    if (eq + 1 == text.size()) return axis;  // no values: check_axes names it
    axis.values = split_values(text.substr(eq + 1));
    for (const std::string& value : axis.values)
        if (value.empty())
            throw Error("--grid " + axis.field + ": '" + std::string(text.substr(eq + 1)) +
                        "' has an empty value; separate values with single commas, e.g. 50,200");
    return axis;
}

std::vector<std::uint64_t> parse_seed_list(std::string_view text) {
    std::vector<std::uint64_t> seeds;
    for (const std::string& part : split_values(text)) {
        const std::size_t dash = part.find('-', 1);
        if (dash == std::string::npos) {
            add_seed_range(seeds, parse_seed(part, text), parse_seed(part, text), text);
            continue;
        }
        const std::string_view p = part;
        add_seed_range(seeds, parse_seed(p.substr(0, dash), text), parse_seed(p.substr(dash + 1), text), text);
    }
    for (std::size_t i = 0; i < seeds.size(); ++i)
        if (std::find(seeds.begin(), seeds.begin() + static_cast<std::ptrdiff_t>(i), seeds[i]) !=
            seeds.begin() + static_cast<std::ptrdiff_t>(i))
            throw Error("--seeds: seed " + std::to_string(seeds[i]) + " is listed twice in '" + std::string(text) + "'");
    return seeds;
}

SweepPlan plan_sweep(const RunConfig& base, const PresetEdits& edits, const std::vector<SweepAxis>& axes,
                     const std::vector<std::uint64_t>& seeds) {
    check_axes(axes, !seeds.empty());
    const RunConfig edited = edited_config(base, edits);
    for (const SweepAxis& axis : axes) check_values(edited, axis);
    SweepPlan plan{axes, expand_cells(axes), seeds, {}};
    std::vector<std::optional<std::uint64_t>> run_seeds(seeds.begin(), seeds.end());
    if (run_seeds.empty()) run_seeds.push_back(std::nullopt);
    plan.runs.reserve(plan.cells.size() * run_seeds.size());
    for (std::size_t c = 0; c < plan.cells.size(); ++c)
        for (const std::optional<std::uint64_t>& seed : run_seeds) {
            RunConfig config = run_config(base, edits, plan.cells[c], seed);
            const std::uint64_t run_seed = config.seed;
            plan.runs.push_back({c, run_seed, std::move(config)});
        }
    require_read_settings(plan, edits);
    return plan;
}

std::string sweep_run_name(const SweepPlan& plan, std::size_t run) {
    const SweepRun& r = plan.runs.at(run);
    std::string name = joined(plan.cells[r.cell].settings);
    if (!plan.seeds.empty()) name += ",seed=" + std::to_string(r.seed);
    for (char& ch : name) {
        const bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                           std::string_view("._-=,^+").find(ch) != std::string_view::npos;
        if (!plain) ch = '_';
    }
    // File systems take 255 bytes a name; the run's index keeps a cut name unique.
    constexpr std::size_t kLongest = 200;
    if (name.size() > kLongest) name.resize(kLongest);
    std::string index = std::to_string(run + 1);
    const std::size_t width = std::to_string(plan.runs.size()).size();
    index.insert(0, width - index.size(), '0');
    return index + "_" + name;
}

std::vector<std::string> cell_run_settings(const SweepPlan& plan, std::size_t cell) {
    const auto first = std::find_if(plan.runs.begin(), plan.runs.end(), [&](const SweepRun& r) { return r.cell == cell; });
    if (cell >= plan.cells.size() || first == plan.runs.end())
        throw Error("sweep cell " + std::to_string(cell) + ": the grid has " + std::to_string(plan.cells.size()) +
                    " cells");
    std::vector<std::string> settings = plan.cells[cell].settings;
    if (!plan.seeds.empty()) settings.push_back("seed=" + std::to_string(first->seed));
    settings.push_back("steps=" + std::to_string(first->config.steps));
    return settings;
}

std::string grid_size_text(const SweepPlan& plan) {
    std::string shape;
    for (const SweepAxis& a : plan.axes) shape += (shape.empty() ? "" : " x ") + std::to_string(a.values.size());
    shape += plan.axes.size() == 1 && plan.cells.size() == 1 ? " cell" : " cells";
    if (!plan.seeds.empty()) shape += " x " + std::to_string(plan.seeds.size()) + (plan.seeds.size() == 1 ? " seed" : " seeds");
    return std::to_string(plan.runs.size()) + (plan.runs.size() == 1 ? " run (" : " runs (") + shape + ")";
}

}  // namespace plab

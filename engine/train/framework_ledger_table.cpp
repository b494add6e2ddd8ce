#include "engine/train/framework_ledger_table.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "engine/common/number_text.h"

namespace plab {

namespace {

std::string bytes(std::int64_t b) { return decimal_bytes_text(static_cast<double>(b)); }

std::string percent(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f%%", 100.0 * fraction);
    return text;
}

}  // namespace

std::vector<FrameworkLedger> framework_ledgers(const ModelShape& shape, const RunConfig& config) {
    std::vector<FrameworkLedger> out;
    for (const Recipe r : kAllRecipes) {
        PrecisionConfig p = config.precision;
        p.recipe = r;
        out.push_back(framework_ledger(shape, p, config.optimizer));
    }
    return out;
}

std::string held_bytes_text(const FrameworkLedger& ledger, HeldClass c, std::string_view joiner) {
    std::vector<std::pair<FormatId, std::int64_t>> by_format;
    for (const HeldLine& line : ledger.lines) {
        if (line.held_class != c) continue;
        auto it = std::find_if(by_format.begin(), by_format.end(), [&](const auto& f) { return f.first == line.format; });
        if (it == by_format.end())
            by_format.emplace_back(line.format, line.bytes());
        else
            it->second += line.bytes();
    }
    std::string cell;
    for (const auto& [format, b] : by_format)
        cell += (cell.empty() ? "" : std::string(joiner)) + bytes(b) + " " + std::string(format_display_name(format));
    return cell.empty() ? "-" : cell;
}

std::vector<std::vector<std::string>> framework_ledger_rows(const std::vector<FrameworkLedger>& ledgers,
                                                            std::string_view joiner) {
    std::vector<std::vector<std::string>> rows{{"recipe"}};
    for (const HeldClass c : kHeldClasses) rows[0].emplace_back(held_class_name(c));
    rows[0].insert(rows[0].end(), {"total", "vs fp32"});
    const auto fp32 = std::find_if(ledgers.begin(), ledgers.end(), [](const FrameworkLedger& l) { return l.recipe == Recipe::fp32; });
    for (const FrameworkLedger& l : ledgers) {
        std::vector<std::string> row{std::string(recipe_name(l.recipe))};
        for (const HeldClass c : kHeldClasses) row.push_back(held_bytes_text(l, c, joiner));
        row.push_back(bytes(l.total_bytes()));
        row.push_back(fp32 == ledgers.end() || fp32->total_bytes() == 0
                          ? "-"
                          : percent(static_cast<double>(l.total_bytes()) / static_cast<double>(fp32->total_bytes())));
        rows.push_back(std::move(row));
    }
    return rows;
}

std::string framework_ledger_title(const ModelShape& shape, const RunConfig& config) {
    return shape.name + ", " + grouped_text(shape.parameter_count()) + " parameters, " +
           std::string(optimizer_kind_name(config.optimizer.kind));
}

}  // namespace plab

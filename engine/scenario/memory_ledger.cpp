// memory-ledger: what mixed precision saves in memory, counted the way a
// framework holds it (train/framework_ledger.h) for the preset's model and
// for BERT-Large, beside the first seed article's "about half" and its own
// BERT-Large sums (9.36 GB -> 6.04 GB). Everything here is arithmetic on
// shapes: nothing trains. The saving is in the activations; with AdamW the
// parameter side grows under autocast, by the 16-bit copies of what the
// matmuls read.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/common/number_text.h"
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"
#include "engine/train/framework_ledger.h"
#include "engine/train/framework_ledger_table.h"
#include "engine/train/model_shape.h"

namespace plab {

namespace {

// The article's BERT-Large example (000_0bed5ce411c40f1d.txt, section 2.1).
constexpr double kArticleParameters = 340e6;
constexpr double kArticleActivations = 8e9;  // bytes, in FP32
constexpr double kArticleFp32Total = 9.36e9, kArticleMixedTotal = 6.04e9;
constexpr double kArticleRounding = 5e6;  // its figures have two decimals in GB
// BERT's pre-training sequence length for most of its steps; the batch is
// the one whose FP32 activations come nearest the article's 8 GB.
constexpr int kBertTokens = 128;

using I = std::int64_t;

std::string bytes(double b) { return decimal_bytes_text(b); }

struct RecipeLedgers {
    ModelShape shape;
    std::string optimizer;                 // "adamw", "sgd"
    std::vector<FrameworkLedger> ledgers;  // kAllRecipes' order
    const FrameworkLedger& of(Recipe r) const {
        return *std::find_if(ledgers.begin(), ledgers.end(), [r](const FrameworkLedger& l) { return l.recipe == r; });
    }
};

RecipeLedgers every_recipe(ModelShape shape, const RunConfig& config) {
    std::vector<FrameworkLedger> ledgers = framework_ledgers(shape, config);
    return {std::move(shape), std::string(optimizer_kind_name(config.optimizer.kind)), std::move(ledgers)};
}

I fp32_activation_bytes(int sequences, const RunConfig& config) {
    return every_recipe(bert_large_shape(sequences, kBertTokens), config).of(Recipe::fp32).bytes(HeldClass::activations);
}

// Activations are linear in the batch, so one sequence's bytes give it.
int bert_batch_nearest_article(const RunConfig& config) {
    const double per_sequence = static_cast<double>(fp32_activation_bytes(1, config));
    return std::max(1, static_cast<int>(std::lround(kArticleActivations / per_sequence)));
}

void append_aligned(std::vector<std::string>& out, const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> width(rows.front().size(), 0);
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    for (const auto& row : rows) {
        std::string line = "  ";
        for (std::size_t i = 0; i < row.size(); ++i)
            line += row[i] + (i + 1 < row.size() ? std::string(width[i] - row[i].size() + 2, ' ') : "");
        out.push_back(line);
    }
}

void append_table(std::vector<std::string>& out, const RecipeLedgers& m, const RunConfig& config) {
    out.push_back(framework_ledger_title(m.shape, config) + ":");
    append_aligned(out, framework_ledger_rows(m.ledgers));
    out.emplace_back();
}

void append_lines(std::vector<std::string>& out, const RecipeLedgers& m, Recipe r) {
    out.push_back("The " + std::string(recipe_name(r)) + " row's lines for BERT-Large:");
    std::vector<std::vector<std::string>> rows{{"class", "format", "what", "elements", "bytes"}};
    for (const HeldLine& l : m.of(r).lines)
        rows.push_back({std::string(held_class_name(l.held_class)), std::string(format_display_name(l.format)), l.what,
                        std::to_string(l.elements), bytes(static_cast<double>(l.bytes()))});
    append_aligned(out, rows);
    out.emplace_back();
}

Verdict article_accounting() {
    const double full = storage_bytes(FormatId::fp32), half = storage_bytes(FormatId::fp16);
    const double p = kArticleParameters, a = kArticleActivations;
    // As the article counts: weights and activations only.
    const double fp32_total = p * full + a;
    const double mixed_total = p * half + p * full + a * half / full;
    const double saving = 1 - mixed_total / fp32_total;
    const bool sums = std::abs(fp32_total - kArticleFp32Total) < kArticleRounding &&
                      std::abs(mixed_total - kArticleMixedTotal) < kArticleRounding;
    return make_verdict(sums && saving < 0.4,
                        "the article's own sums, BERT-Large with 340M parameters: FP32 " + bytes(p * full) +
                            " weights + " + bytes(a) + " activations = " + bytes(fp32_total) + "; mixed " +
                            bytes(p * half) + " FP16 + " + bytes(p * full) + " FP32 master + " + bytes(a * half / full) +
                            " activations = " + bytes(mixed_total) + ": " + percent_text(saving) +
                            " saved, not the headline's 50%, and the weights grow (" + bytes(p * full) + " -> " +
                            bytes(p * (full + half)) + "): the activations carry the whole saving");
}

// Under autocast the parameter side is FP32's plus one 16-bit copy of what
// the matmuls read: exactly 2 bytes for each such parameter.
Verdict parameter_side_grows(const RecipeLedgers& m, std::string_view label) {
    const I n = m.shape.parameter_count();
    const I cast = m.shape.parameter_count(ParameterUse::matmul_weight) + m.shape.parameter_count(ParameterUse::matmul_bias);
    const I fp32 = m.of(Recipe::fp32).parameter_side_bytes();
    bool holds = cast > 0;
    std::string amp_text;
    for (const Recipe r : {Recipe::amp_fp16, Recipe::amp_bf16}) {
        const I amp = m.of(r).parameter_side_bytes();
        holds = holds && amp - fp32 == 2 * cast;
        amp_text += ", " + std::string(recipe_name(r)) + " " + bytes(static_cast<double>(amp)) + " (" +
                    significant_text(static_cast<double>(amp) / static_cast<double>(n), 4) + ")";
    }
    return make_verdict(holds, std::string(label) + ", parameter side with " +
                               m.optimizer +
                                   " (weights, copies, gradients, optimizer state; bytes per parameter): fp32 " +
                                   bytes(static_cast<double>(fp32)) + " (" +
                                   significant_text(static_cast<double>(fp32) / static_cast<double>(n), 4) + ")" +
                                   amp_text + ": larger under AMP by 2 bytes for each of the " + grouped_text(cast) +
                                   " weights and biases the matmuls read, which autocast casts (needs exactly 2 x " +
                                   grouped_text(cast) + " bytes more)");
}

// The activations stored in 16 bits are exactly half their FP32 bytes; those
// autocast's FP32 list keeps stay as they are.
Verdict activations_halve(const RecipeLedgers& m, std::string_view label) {
    const FrameworkLedger& fp32 = m.of(Recipe::fp32);
    const FrameworkLedger& amp = m.of(Recipe::amp_fp16);
    I halved_from = 0, halved_to = 0, kept = 0;
    bool holds = true;
    for (const HeldLine& line : amp.lines) {
        if (line.held_class != HeldClass::activations) continue;
        const auto base = std::find_if(fp32.lines.begin(), fp32.lines.end(), [&](const HeldLine& l) {
            return l.held_class == HeldClass::activations && l.what == line.what;
        });
        if (base == fp32.lines.end()) return make_verdict(false, std::string(label) + ": no FP32 line for " + line.what);
        if (line.format == FormatId::fp32) {
            kept += line.bytes();
            holds = holds && line.bytes() == base->bytes();
        } else {
            halved_from += base->bytes();
            halved_to += line.bytes();
            holds = holds && 2 * line.bytes() == base->bytes();
        }
    }
    const double before = static_cast<double>(fp32.bytes(HeldClass::activations));
    const double after = static_cast<double>(amp.bytes(HeldClass::activations));
    return make_verdict(holds && halved_to > 0,
                        std::string(label) + ", activations: fp32 " + bytes(before) + " -> amp-fp16 " + bytes(after) +
                            " (" + percent_text(after / before) + "): the " + bytes(static_cast<double>(halved_from)) +
                            " stored in the compute format halve to " + bytes(static_cast<double>(halved_to)) +
                            "; the " + bytes(static_cast<double>(kept)) +
                            " of ops on the FP32 list (LayerNorm, softmax, the loss) and LayerNorm's statistics stay "
                            "FP32 (needs exactly half, and exactly the same)");
}

Verdict total_saving(const RecipeLedgers& m, std::string_view label, std::string_view batch_note) {
    const double fp32 = static_cast<double>(m.of(Recipe::fp32).total_bytes());
    const double amp = static_cast<double>(m.of(Recipe::amp_fp16).total_bytes());
    const double saving = 1 - amp / fp32;
    return make_verdict(saving > 0 && saving < 0.5,
                        std::string(label) + std::string(batch_note) + ", in all: fp32 " + bytes(fp32) + " -> amp-fp16 " +
                            bytes(amp) + ", " + percent_text(saving) +
                            " saved: what the activations' halving is worth once the parameter side grows (the "
                            "headline's \"about half\" needs > 0 and < 50%: it is not half)");
}

}  // namespace

ScenarioReport check_memory_ledger(Backend&, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("memory-ledger");
    ScenarioReport report{config.name, {}};
    const RecipeLedgers preset = every_recipe(preset_model_shape(config), config);
    const int batch = bert_batch_nearest_article(config);
    const RecipeLedgers bert = every_recipe(bert_large_shape(batch, kBertTokens), config);
    if (progress) progress(1, "ledgers");

    append_table(report.table, preset, config);
    append_table(report.table, bert, config);
    append_lines(report.table, bert, Recipe::amp_fp16);
    report.table.push_back("The article: \"about half\" (减少显存占用50%); its own BERT-Large: 9.36 GB -> 6.04 GB.");

    const std::string batch_note = " (batch " + std::to_string(batch) + " x " + std::to_string(kBertTokens) +
                                   " tokens: FP32 activations " +
                                   bytes(static_cast<double>(bert.of(Recipe::fp32).bytes(HeldClass::activations))) +
                                   ", nearest the article's 8 GB)";
    report.verdicts.push_back(article_accounting());
    report.verdicts.push_back(parameter_side_grows(bert, "BERT-Large"));
    report.verdicts.push_back(activations_halve(bert, "BERT-Large"));
    report.verdicts.push_back(total_saving(bert, "BERT-Large", batch_note));
    report.verdicts.push_back(parameter_side_grows(preset, "the preset's GPT"));
    report.verdicts.push_back(total_saving(preset, "the preset's GPT", ""));
    return report;
}

}  // namespace plab

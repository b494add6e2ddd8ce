#include "ui/present/recipe_comparison_view.h"

#include <algorithm>
#include <cstdio>

#include "engine/common/number_text.h"

namespace plab {

namespace {

std::string model_text(const RunConfig& c, const std::vector<int>& layer_widths) {
    std::string widths;
    for (int w : layer_widths) widths += (widths.empty() ? "" : "-") + std::to_string(w);
    return widths + " MLP, batch " + std::to_string(c.batch_size) + ", " +
           (c.optimizer.kind == OptimizerKind::adamw ? "AdamW" : "SGD") + (c.twin ? ", with its FP32 twin" : "");
}

// Bytes in the unit that keeps three significant digits readable: "36.4 KiB", "2337 MiB".
std::string bytes_text(std::int64_t bytes) {
    if (bytes == 0) return "0";
    if (bytes < (std::int64_t{1} << 20)) return significant_text(bytes / 1024.0, 3) + " KiB";
    return mib_text(static_cast<std::size_t>(bytes)) + " MiB";
}

std::string ratio(double r) { return significant_text(r, 3) + "x"; }

const RecipeFigures* find(const std::vector<RecipeFigures>& figures, Recipe r) {
    for (const RecipeFigures& f : figures)
        if (f.recipe == r) return &f;
    return nullptr;
}

std::string claim_text(const std::vector<RecipeFigures>& figures) {
    std::string out = "The seeds: mixed precision is \"2-3x faster, about half the memory\".";
    const RecipeFigures* fp32 = find(figures, Recipe::fp32);
    const RecipeFigures* amp = find(figures, Recipe::amp_fp16);
    if (!fp32 || !amp || fp32->ledger.total_bytes() == 0) return out;
    auto of = [&](TensorClass c) {
        const std::int64_t base = fp32->ledger.bytes(c);
        return base > 0 ? ratio(static_cast<double>(amp->ledger.bytes(c)) / base) : std::string("-");
    };
    // The lab's layout is not a framework's: beside the seeds' claim it must
    // say so, or its smaller AMP parameter side would read as PyTorch's.
    out += " In the lab's own buffers (three gradient tensors per parameter in every recipe, for its telemetry; what "
           "PyTorch holds: plab scenario memory-ledger) AMP-FP16 holds " +
           ratio(static_cast<double>(amp->ledger.total_bytes()) / fp32->ledger.total_bytes()) +
           " FP32's bytes: activations " + of(TensorClass::activations) + ", gradients " +
           of(TensorClass::gradients) + ", weights " + of(TensorClass::weights) + " and optimizer state " +
           of(TensorClass::optimizer_state) + " (FP32 masters and moments stay FP32)";
    if (fp32->step_seconds && amp->step_seconds)
        out += ", and runs " + ratio(*fp32->step_seconds / *amp->step_seconds) + " FP32's speed";
    return out + ".";
}

}  // namespace

RecipeComparisonView recipe_comparison_view(const std::vector<RecipeFigures>& figures, const RunConfig& base,
                                            const std::string& device, const std::string& why_no_times) {
    RecipeComparisonView v;
    v.title = model_text(base, figures.empty() ? std::vector<int>{} : figures.front().ledger.widths);
    v.columns = {"recipe"};
    for (TensorClass c : kTensorClasses) v.columns.emplace_back(tensor_class_name(c));
    v.columns.insert(v.columns.end(), {"total", "vs FP32", "step", "accuracy"});
    const RecipeFigures* fp32 = find(figures, Recipe::fp32);
    for (const RecipeFigures& f : figures) {
        std::vector<std::string> row{std::string(recipe_name(f.recipe))};
        for (TensorClass c : kTensorClasses) row.push_back(bytes_text(f.ledger.bytes(c)));
        row.push_back(bytes_text(f.ledger.total_bytes()));
        row.push_back(fp32 && fp32->ledger.total_bytes() > 0
                          ? ratio(static_cast<double>(f.ledger.total_bytes()) / fp32->ledger.total_bytes())
                          : "-");
        row.push_back(f.step_seconds ? significant_text(*f.step_seconds * 1e3, 3) + " ms" : "-");
        row.push_back(f.accuracy ? significant_text(100.0 * *f.accuracy, 3) + "%" : "-");
        v.rows.push_back(std::move(row));
    }
    v.claim = claim_text(figures);
    v.times = device.empty() ? "Step times and accuracy need a GPU: " + why_no_times +
                                   ". On one: plab bench --compare-recipes --backend cuda."
                             : "Step: the mean of " + std::to_string(std::max(base.steps - 2, 0)) +
                                   " steps on " + device + " after two untimed ones; accuracy on the test set after " +
                                   std::to_string(base.steps) + " steps.";
    if (!figures.empty())
        v.storage = "Bytes at each format's width, as the CUDA backend holds them (FP16 and BF16 in 16 bits); "
                    "the CPU emulation keeps FP32 words (" + bytes_text(figures.front().ledger.total_stored_bytes()) +
                    " for every recipe).";
    return v;
}

std::vector<std::string> recipe_comparison_lines(const RecipeComparisonView& view) {
    std::vector<std::size_t> width(view.columns.size());
    for (std::size_t c = 0; c < view.columns.size(); ++c) width[c] = view.columns[c].size();
    for (const auto& row : view.rows)
        for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
    auto line = [&](const std::vector<std::string>& cells) {
        std::string s;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string pad(width[c] - cells[c].size(), ' ');
            s += (c == 0 ? cells[c] + pad : pad + cells[c]) + (c + 1 < cells.size() ? "  " : "");
        }
        return s;
    };
    std::vector<std::string> out{view.title, line(view.columns)};
    for (const auto& row : view.rows) out.push_back(line(row));
    for (const std::string* note : {&view.claim, &view.times, &view.storage})
        if (!note->empty()) out.push_back(*note);
    return out;
}

}  // namespace plab

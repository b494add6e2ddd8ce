#include "ui/present/speed_memory_view.h"

#include "engine/train/framework_ledger_table.h"
#include "engine/train/model_shape.h"
#include "engine/train/recipe_comparison.h"

namespace plab {

namespace {

LedgerTableView framework_table(const RunConfig& config) {
    const ModelShape shape = preset_model_shape(config);
    std::vector<std::vector<std::string>> rows = framework_ledger_rows(framework_ledgers(shape, config), "\n");
    LedgerTableView v;
    v.title = framework_ledger_title(shape, config);
    v.columns = std::move(rows.front());
    v.rows.assign(std::make_move_iterator(rows.begin() + 1), std::make_move_iterator(rows.end()));
    v.note = "What PyTorch (eager) holds for one training step of this model, by class and format: autocast's "
             "16-bit copies of what the matmuls read, gradients in their parameter's format, the activations "
             "autograd saves in the format their op stores (FP32 for ops on the preset's FP32 list). Not counted: "
             "the batch, backward's transient buffers, workspace, the allocator's rounding, the CUDA context "
             "(plab scenario memory-ledger sets it beside BERT-Large).";
    return v;
}

}  // namespace

SpeedMemoryView speed_memory_view(const RunConfig& config) {
    SpeedMemoryView v;
    v.framework = framework_table(config);
    if (config.model.kind == ModelKind::gpt || config.model.attention_tokens > 0) {
        v.no_lab = "Counted for MLPs only (the lab keeps extra gradient tensors for its telemetry, and the "
                   "twin's); this model has attention blocks.";
        return v;
    }
    v.lab = recipe_comparison_view(compare_recipes(config, nullptr), config, "", "the workbench measures memory only");
    return v;
}

}  // namespace plab

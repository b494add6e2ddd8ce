#include "ui/present/sweep_snippets.h"

#include "ui/present/scaler_snippet.h"

namespace plab {

namespace {

std::string with_note(const std::string& heading, const ScalerSnippet& s) {
    return heading + "\n" + s.code + (s.note.empty() ? "" : "Note: " + s.note + "\n");
}

}  // namespace

std::string sweep_cell_snippets(const SweepPlan& plan, std::size_t cell) {
    for (const SweepRun& run : plan.runs)
        if (run.cell == cell) {
            const ScalerConfig& s = run.config.scaler;
            return with_note("# PyTorch", pytorch_grad_scaler(s)) + "\n" +
                   with_note("DeepSpeed config, \"fp16\" block:", deepspeed_fp16_block(s));
        }
    return "";
}

}  // namespace plab

// plab bench --compare-recipes: one model under FP32, TF32, AMP-FP16 and
// AMP-BF16 (engine/train/recipe_comparison.h), as a table or one JSON object.
#include <iostream>
#include <string>

#include "engine/common/error.h"
#include "engine/train/preset_io.h"
#include "ui/cli/commands.h"
#include "ui/records/json_line.h"
#include "ui/present/recipe_comparison_view.h"

namespace plab {

namespace {

void write_json(const std::vector<RecipeFigures>& figures, const RecipeComparisonView& view, const std::string& device,
                int steps, std::ostream& out) {
    std::string line;
    {
        JsonLine j(line);
        j.string("model", view.title);
        if (device.empty())
            j.null("backend");
        else
            j.string("backend", device);
        j.integer("steps", steps);
        j.begin_array("recipes");
        for (const RecipeFigures& f : figures) {
            j.begin_object().string("recipe", recipe_name(f.recipe));
            j.begin_object("bytes");
            for (TensorClass c : kTensorClasses) j.integer(tensor_class_name(c), f.ledger.bytes(c));
            j.end_object();
            j.integer("total_bytes", f.ledger.total_bytes()).integer("stored_bytes", f.ledger.total_stored_bytes());
            if (f.step_seconds)
                j.number("step_ms", *f.step_seconds * 1e3);
            else
                j.null("step_ms");
            if (f.accuracy)
                j.number("accuracy", *f.accuracy);
            else
                j.null("accuracy");
            j.end_object();
        }
        j.end_array();
    }
    out << line;
}

}  // namespace

void run_recipe_comparison(const BenchOptions& o, std::ostream& out, std::ostream& log) {
    if (o.steps < 3 || o.steps > 100000)
        throw Error("--steps: " + std::to_string(o.steps) + " is out of range; allowed 3..100000 with --compare-recipes");
    RunConfig base = o.preset.empty() ? seeds_wide_mlp() : load_preset(o.preset);
    base.steps = o.steps;
    if (base.model.kind == ModelKind::gpt || base.model.attention_tokens > 0)
        throw Error("--preset " + o.preset + ": --compare-recipes counts the lab's own buffers, for MLPs only, and this "
                    "model has attention blocks; what PyTorch holds for it under every recipe is in the workbench's "
                    "Speed & memory panel (plab scenario memory-ledger for the tiny GPT beside BERT-Large)");
    std::string device, why;
    std::unique_ptr<Backend> backend;
    if (o.backend == "cpu") {
        why = "--backend cpu asks for none";
    } else if (!cuda_unavailable_reason().empty() && o.backend == "auto") {
        why = "none here (" + cuda_unavailable_reason() + ")";
    } else {
        backend = make_run_backend(o.backend);  // cuda without a device: plab::Error, exit 2
        device = backend->name();
    }
    const auto progress = [&](const std::string& text) {
        if (!o.json) log << "\r" << text << "   " << std::flush;
    };
    const std::vector<RecipeFigures> figures = compare_recipes(base, backend.get(), progress);
    if (backend && !o.json) log << '\n';
    const RecipeComparisonView view = recipe_comparison_view(figures, base, device, why);
    if (o.json) return write_json(figures, view, device, base.steps, out);
    for (const std::string& l : recipe_comparison_lines(view)) out << l << '\n';
}

}  // namespace plab

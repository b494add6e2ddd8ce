#pragma once
// A short run of a preset trained on the CPU and written as a JSON Lines
// record (and its index), kept beside the records it wrote: what the reader's tests read back.
#include <sstream>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"
#include "ui/records/run_writer.h"

namespace plab {

struct WrittenRun {
    std::string text;
    std::string index;  // the record's index (record_index.h)
    std::vector<StepRecord> steps;
    RunHeader header;
};

inline WrittenRun train_and_write(const std::string& preset, int steps, const std::vector<std::string>& settings = {}) {
    RunConfig config = load_preset(preset);
    config.steps = steps;
    apply_settings(config, settings);
    CpuBackend backend;
    Trainer trainer(backend, config);
    WrittenRun run;
    run.header = make_run_header(trainer, backend);
    std::ostringstream out, index;
    {
        auto writer = make_run_writer(RecordFormat::jsonl, out, &index);
        writer->header(run.header);
        for (int i = 0; i < steps; ++i) {
            run.steps.push_back(trainer.step());
            writer->step(run.steps.back());
            write_step_extras(*writer, run.steps.back());
        }
        writer->flush();
    }
    run.text = out.str();
    run.index = index.str();
    return run;
}

}  // namespace plab

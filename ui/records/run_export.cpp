#include "ui/records/run_export.h"


#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/train/trainer.h"
#include "ui/records/record_files.h"

namespace plab {

namespace {

StepRecord write_replay(const RunExport& e, std::ostream& out, std::ostream* index, const ExportProgress& progress) {
    CpuBackend backend;
    Trainer trainer(backend, e.initial);
    const auto writer = make_run_writer(e.format, out, index);
    writer->header(make_run_header(trainer, backend));
    std::size_t next_edit = 0;
    const std::size_t edit_count = e.edits ? e.edits->size() : 0;
    StepRecord last;
    for (std::int64_t done = 0; done < e.steps; ++done) {
        // Edits logged after step `done` apply before step done + 1, in order.
        for (; next_edit < edit_count && (*e.edits)[next_edit].step <= done; ++next_edit) {
            const LiveEdit& edit = (*e.edits)[next_edit];
            trainer.apply(edit.assignment);
            writer->edit(edit.step, edit.assignment);
        }
        last = trainer.step();
        writer->step(last);
        write_step_extras(*writer, last);
        if (progress && !progress(last.step)) throw Error("export cancelled");
    }
    writer->flush();
    return last;
}

}  // namespace

// The same care as plab run --out (output_file.h): the path checked first,
// the file replaced whole or not at all.
StepRecord export_run(const RunExport& e, const ExportProgress& progress) {
    RecordFiles file(e.path, e.format == RecordFormat::jsonl, "export");
    const StepRecord last = write_replay(e, file.stream(), file.index(), progress);
    file.commit();
    return last;
}

}  // namespace plab

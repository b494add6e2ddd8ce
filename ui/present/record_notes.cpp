#include "ui/present/record_notes.h"

#include "ui/present/loss_curves.h"

namespace plab {

namespace {

std::string writer(const RecordOrigin& origin) {
    return origin.source.empty() ? "the lab's own record" : "a PyTorch record (" + origin.source + ")";
}

}  // namespace

std::string record_gap_text(RecordGap gap, const RecordOrigin& origin) {
    switch (gap) {
        case RecordGap::decision:
            return "No decision boundary in " + writer(origin) +
                   ": it is drawn from the model's weights while a run trains here. Choose a preset to see one.";
        case RecordGap::twin:
            return "No FP32 twin in " + writer(origin) +
                   ": the lab trains a twin in lock-step only beside its own runs (twin=true), so there is "
                   "nothing to measure the drift against.";
        case RecordGap::speed:
            return "No speed or memory figures for " + writer(origin) +
                   ": they are the lab's own model's, measured as it trains here.";
        case RecordGap::samples:
            return "No text samples in " + writer(origin) +
                   ": they are the greedy text of the lab's own language model, written as it trains "
                   "(telemetry.sample_every).";
        case RecordGap::remedies:
            return "This is a recorded run: it cannot be rewound or forked here. Try other loss-scale settings in "
                   "the Loss scale panel (they replay the record's scaler on its gradients, dashed), or run "
                   "`plab replay " + origin.file + " --search` for a proposal.";
    }
    return {};
}

std::string record_status_text(const SessionSnapshot& s) {
    const RecordOrigin& r = *s.record;
    const std::string name = r.file.substr(r.file.find_last_of('/') + 1);
    std::string text = name + " · " + (r.source.empty() ? r.backend : r.source + " on " + r.backend) + " · " +
                       std::to_string(s.step) + " steps recorded";
    if (const StepRecord* last = s.main.log.latest()) text += " · loss " + loss_text(last->loss, 4);
    if (s.fork) text += " · what-if: " + r.replayed;
    return text;
}

std::vector<std::string> what_if_with(std::vector<std::string> edits, const std::string& assignment) {
    constexpr std::string_view kLiveScale = "scaler.scale=";
    const std::string edit = assignment.starts_with(kLiveScale)
                                 ? "scaler.init_scale=" + assignment.substr(kLiveScale.size())
                                 : assignment;
    auto setting = [](const std::string& e) { return e.substr(0, e.find('=')); };
    std::erase_if(edits, [&](const std::string& e) { return setting(e) == setting(edit); });
    edits.push_back(edit);
    return edits;
}

}  // namespace plab

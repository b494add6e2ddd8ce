// scaler-sawtooth: the dynamic scaler's overflow / backoff / growth cycles.
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

ScenarioReport check_scaler_sawtooth(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("scaler-sawtooth", {"telemetry.hist_every=0"});
    const RunResult run = run_to_end(backend, config, run_options(progress, 0, 1, "training"));
    const auto& r = run.records;
    const std::int64_t found_inf = count_steps(r, [](const StepRecord& s) { return s.found_inf; });
    const std::int64_t skipped = count_steps(r, [](const StepRecord& s) { return s.skipped; });
    const std::int64_t backoffs = count_steps(r, [](const StepRecord& s) { return s.found_inf && s.backoff; });
    const std::int64_t growths = count_steps(r, [](const StepRecord& s) { return s.growth; });
    const std::string steps = std::to_string(r.size()) + " steps";
    ScenarioReport report{config.name, {}};
    report.verdicts.push_back(make_verdict(skipped == found_inf, std::to_string(skipped) + " skipped steps, " +
                                                                     std::to_string(found_inf) +
                                                                     " steps with an overflow (needs equal)"));
    report.verdicts.push_back(make_verdict(backoffs >= 3, std::to_string(backoffs) + " overflows backed the scale off in " +
                                                              steps + " (needs >= 3)"));
    report.verdicts.push_back(
        make_verdict(growths >= 3, std::to_string(growths) + " growths of the scale in " + steps + " (needs >= 3)"));
    // A cycle is a growth that the scaler had to take back: an overflow
    // backoff before the next growth. The backoffs of the first descent
    // from a too-high start come before any growth and are no cycle.
    std::int64_t cycles = 0;
    bool grown = false;
    for (const auto& s : r) {
        if (s.growth) grown = true;
        if (grown && s.found_inf && s.backoff) {
            ++cycles;
            grown = false;
        }
    }
    report.verdicts.push_back(make_verdict(cycles >= 3, std::to_string(cycles) +
                                                            " sawtooth cycles: a growth, then an overflow that backs it "
                                                            "off before the next growth (needs >= 3)"));
    return report;
}

}  // namespace plab

#include "engine/train/step_graph_cache.h"

#include "engine/numeric/scalar_cast.h"

namespace plab {

RunConfig recorded_part(RunConfig config) {
    OptimizerConfig& o = config.optimizer;
    o.lr = o.beta1 = o.beta2 = o.eps = o.weight_decay = 0.0f;
    o.momentum = o.momentum != 0.0f ? 1.0f : 0.0f;
    o.clip_norm = o.clip_norm > 0.0f ? 1.0f : 0.0f;
    ScalerConfig& s = config.scaler;  // the kind stays: none never skips a step
    s.init_scale = s.growth_factor = s.backoff_factor = s.min_scale = s.max_scale = 0.0f;
    s.growth_interval = s.hysteresis = 0;
    return config;
}

StepGraphKey step_graph_key(const RunConfig& config, float scale, bool histograms, bool twin) {
    return StepGraphKey{recorded_part(config), float_bits(scale), histograms, twin};
}

std::unique_ptr<StepGraph> StepGraphCache::record(Backend& backend, const std::function<void()>& ops) {
    try {
        std::unique_ptr<StepGraph> graph = backend.capture(ops);
        if (graph) ++counts_.recorded;
        return graph;
    } catch (const CaptureRefused&) {
        ++counts_.refused;
        return nullptr;
    }
}

void StepGraphCache::run(Backend& backend, const StepGraphKey& key, const std::function<void()>& ops) {
    if (backend.allocations() != allocations_) {
        graphs_.clear();
        allocations_ = backend.allocations();
    }
    const std::unique_ptr<StepGraph>& graph =
        graphs_.use(key, [&](const StepGraphKey&) { return record(backend, ops); });
    if (!graph) {
        ops();
        return;
    }
    graph->replay();
    ++counts_.replayed;
}

}  // namespace plab

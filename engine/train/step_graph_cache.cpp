#include "engine/train/step_graph_cache.h"

#include <algorithm>

namespace plab {

namespace {
// A dynamic scaler moves between a few scales for long stretches; more than
// this many keys in turn is a run whose scale keeps moving (then recording
// costs more than it saves, and graphs are dropped oldest first).
constexpr std::size_t kMaxGraphs = 4;
}  // namespace

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

StepGraphCache::Entry* StepGraphCache::find(const StepGraphKey& key) {
    for (Entry& e : entries_)
        if (e.key == key) return &e;
    return nullptr;
}

StepGraphCache::Entry& StepGraphCache::record(Backend& backend, const StepGraphKey& key,
                                              const std::function<void()>& ops) {
    if (entries_.size() >= kMaxGraphs)
        entries_.erase(std::min_element(entries_.begin(), entries_.end(),
                                        [](const Entry& a, const Entry& b) { return a.last_use < b.last_use; }));
    Entry e{key, nullptr, 0};
    try {
        e.graph = backend.capture(ops);
        if (e.graph) ++counts_.recorded;
    } catch (const CaptureRefused&) {
        ++counts_.refused;
    }
    entries_.push_back(std::move(e));
    return entries_.back();
}

void StepGraphCache::run(Backend& backend, const StepGraphKey& key, const std::function<void()>& ops) {
    if (backend.allocations() != allocations_) {
        entries_.clear();
        allocations_ = backend.allocations();
    }
    Entry* e = find(key);
    if (!e) e = &record(backend, key, ops);
    e->last_use = ++clock_;
    if (!e->graph) {
        ops();
        return;
    }
    e->graph->replay();
    ++counts_.replayed;
}

}  // namespace plab

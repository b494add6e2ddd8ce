#include "engine/train/run_log.h"

#include <cmath>
#include <string>
#include <utility>

#include "engine/common/error.h"
#include "engine/common/field_check.h"

namespace plab {

namespace {

// make_shared puts the control block (vtable pointer, two counts) next to the object.
constexpr std::size_t kControlBlockBytes = 16;

// Heap a string holds beyond its own object (0 while it fits the small-string buffer).
std::size_t heap_bytes(const std::string& s) {
    return s.capacity() > std::string().capacity() ? s.capacity() + 1 : 0;
}

std::size_t samples_bytes(const TextSamples& samples) {
    std::size_t bytes = kControlBlockBytes + sizeof(TextSamples) + samples.samples.capacity() * sizeof(TextSample);
    for (const TextSample& t : samples.samples)
        bytes += heap_bytes(t.prompt) + heap_bytes(t.expected) + heap_bytes(t.model) + heap_bytes(t.twin);
    return bytes;
}

std::size_t held_bytes(const StepRecord& record) {
    const std::size_t histograms =
        record.histograms ? kControlBlockBytes + sizeof(*record.histograms) +
                                record.histograms->capacity() * sizeof(LayerHistograms)
                          : 0;
    const std::size_t samples = record.samples ? samples_bytes(*record.samples) : 0;
    const std::size_t twin_view =
        record.twin_view ? kControlBlockBytes + sizeof(TwinView) +
                               record.twin_view->layers.capacity() * sizeof(LayerRecord) +
                               record.twin_view->histograms.capacity() * sizeof(LayerHistograms)
                         : 0;
    return kControlBlockBytes + sizeof(StepRecord) + record.layers.capacity() * sizeof(LayerRecord) + histograms +
           samples + twin_view;
}

void keep_last(std::optional<float>& into, const std::optional<float>& later) {
    if (later) into = later;
}

SeriesPoint point_of(const StepRecord& r) {
    SeriesPoint p;
    p.first_step = p.last_step = r.step;
    p.records = 1;
    p.loss.add(r.loss);
    p.loss_ref.add(r.loss_ref);
    p.scale.add(r.scale);
    p.grad_norm.add(r.grad_norm);
    p.found_inf = r.found_inf;
    p.skipped = r.skipped;
    p.backoffs = r.backoff;
    p.growths = r.growth;
    p.acc = r.acc;
    p.acc_ref = r.acc_ref;
    p.test_loss = r.test_loss;
    p.test_loss_ref = r.test_loss_ref;
    return p;
}

// `later` covers the steps right after `into`'s.
void merge_into(SeriesPoint& into, const SeriesPoint& later) {
    into.last_step = later.last_step;
    into.records += later.records;
    into.loss.merge(later.loss);
    into.loss_ref.merge(later.loss_ref);
    into.scale.merge(later.scale);
    into.grad_norm.merge(later.grad_norm);
    into.found_inf += later.found_inf;
    into.skipped += later.skipped;
    into.backoffs += later.backoffs;
    into.growths += later.growths;
    keep_last(into.acc, later.acc);
    keep_last(into.acc_ref, later.acc_ref);
    keep_last(into.test_loss, later.test_loss);
    keep_last(into.test_loss_ref, later.test_loss_ref);
}

// Binary search over records held oldest first (steps increase).
template <typename At>
const StepRecord* find_step(std::size_t n, const At& at, std::int64_t step) {
    std::size_t lo = 0;
    std::size_t hi = n;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (at(mid)->step < step) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < n && at(lo)->step == step ? at(lo).get() : nullptr;
}

void check_limits(const RunLogLimits& limits) {
    check_int_field("run_log.recent", static_cast<long long>(limits.recent), 1, 1LL << 40);
    if (limits.series < 2 || limits.series % 2 != 0 || limits.series > (std::size_t{1} << 40)) {
        reject_field("run_log.series", std::to_string(limits.series), "an even number >= 2");
    }
}

}  // namespace

void MinMax::add(float x) { merge(MinMax{x, x}); }

void MinMax::merge(const MinMax& other) {
    min = std::fmin(min, other.min);  // fmin/fmax pass over a NaN operand
    max = std::fmax(max, other.max);
}

DecimatedSeries::DecimatedSeries(std::size_t capacity) : capacity_(capacity) { points_.reserve(capacity_); }

void DecimatedSeries::add(const StepRecord& record) {
    if (!points_.empty() && points_.back().records < stride_) {
        merge_into(points_.back(), point_of(record));
        return;
    }
    if (points_.size() == capacity_) halve();
    points_.push_back(point_of(record));
}

void DecimatedSeries::halve() {
    const std::size_t half = points_.size() / 2;
    for (std::size_t i = 0; i < half; ++i) {
        SeriesPoint merged = points_[2 * i];
        merge_into(merged, points_[2 * i + 1]);
        points_[i] = merged;
    }
    points_.resize(half);
    stride_ *= 2;
}

const LiveEdit& EditList::operator[](std::size_t i) const {
    const std::size_t sealed_count = sealed_.size() * kChunk;
    return i < sealed_count ? (*sealed_[i / kChunk])[i % kChunk] : tail_[i - sealed_count];
}

void EditList::push_back(LiveEdit edit) {
    if (tail_.size() == kChunk) {
        sealed_.push_back(std::make_shared<const std::vector<LiveEdit>>(std::move(tail_)));
        tail_ = {};
    }
    text_bytes_ += heap_bytes(edit.assignment);
    tail_.push_back(std::move(edit));
}

std::size_t EditList::memory_bytes() const {
    const std::size_t chunk_bytes = kControlBlockBytes + sizeof(std::vector<LiveEdit>) + kChunk * sizeof(LiveEdit);
    return sealed_.capacity() * sizeof(sealed_[0]) + sealed_.size() * chunk_bytes +
           tail_.capacity() * sizeof(LiveEdit) + text_bytes_;
}

const StepRecord* RunLogView::find(std::int64_t step) const {
    return find_step(recent.size(), [this](std::size_t i) -> const auto& { return recent[i]; }, step);
}

RunLog::RunLog(RunLogLimits limits) : limits_(limits), series_((check_limits(limits), limits.series)) {
    ring_.reserve(limits_.recent);
}

void RunLog::append(StepRecord record) {
    if (const StepRecord* last = latest(); last != nullptr && record.step <= last->step) {
        throw Error("run log: step " + std::to_string(record.step) + " reported after step " +
                    std::to_string(last->step) + "; steps must increase");
    }
    count(record);
    series_.add(record);
    auto held = std::make_shared<const StepRecord>(std::move(record));
    record_bytes_ += held_bytes(*held);
    if (ring_.size() < limits_.recent) {
        ring_.push_back(std::move(held));
        return;
    }
    record_bytes_ -= held_bytes(*ring_[oldest_]);
    ring_[oldest_] = std::move(held);
    oldest_ = (oldest_ + 1) % ring_.size();
}

void RunLog::count(const StepRecord& r) {
    ++totals_.steps;
    totals_.overflows += r.found_inf;
    totals_.skipped += r.skipped;
    totals_.backoffs += r.backoff;
    totals_.growths += r.growth;
    if (totals_.first_nonfinite_step < 0 && (r.found_inf || !std::isfinite(r.loss))) {
        totals_.first_nonfinite_step = r.step;
    }
}

void RunLog::require_edit_room() const {
    if (edits_full()) {
        throw Error("live edits: " + std::to_string(limits_.edits) +
                    " are recorded, the most one run keeps (an exact replay needs every one); "
                    "reset the run to edit further");
    }
}

void RunLog::add_edit(std::int64_t step, std::string assignment) {
    require_edit_room();
    edits_.push_back(LiveEdit{step, std::move(assignment)});
}

const std::shared_ptr<const StepRecord>& RunLog::at(std::size_t i) const {
    return ring_[(oldest_ + i) % ring_.size()];
}

std::vector<std::shared_ptr<const StepRecord>> RunLog::recent() const {
    std::vector<std::shared_ptr<const StepRecord>> out;
    out.reserve(ring_.size());
    for (std::size_t i = 0; i < ring_.size(); ++i) out.push_back(at(i));
    return out;
}

const StepRecord* RunLog::find(std::int64_t step) const {
    return find_step(ring_.size(), [this](std::size_t i) -> const auto& { return at(i); }, step);
}

const StepRecord* RunLog::latest() const { return ring_.empty() ? nullptr : at(ring_.size() - 1).get(); }

std::size_t RunLog::memory_bytes() const {
    return sizeof(RunLog) + ring_.capacity() * sizeof(ring_[0]) + record_bytes_ +
           series_.capacity() * sizeof(SeriesPoint) + edits_.memory_bytes();
}

RunLogView RunLog::view() const { return RunLogView{recent(), series(), series_stride(), totals_, edits_}; }

}  // namespace plab

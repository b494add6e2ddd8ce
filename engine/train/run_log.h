#pragma once
// RunLog: what one run reported, in memory that stays flat however long the
// run goes (docs/DESIGN.md, "Data flow"):
//   - the most recent K full StepRecords (a ring);
//   - a decimated history of per-step scalars over the whole run, for plots:
//     at most N points, adjacent points merged pairwise when full, keeping
//     extremes and event counts so no overflow ever disappears from view;
//   - every live edit with its step, so the run can be replayed exactly;
//   - running totals.
// Not thread-safe: the Session's worker owns it and hands readers a
// RunLogView, an immutable copy that shares the records.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/train/step_record.h"

namespace plab {

struct RunLogLimits {
    std::size_t recent = 1024;   // full StepRecords kept (>= 1)
    std::size_t series = 4096;   // decimated points kept (even, >= 2)
    std::size_t edits = 100000;  // live edits kept; past it add_edit refuses the edit
                                 // (a replay that missed an edit would not be exact)
};

// Smallest and largest value of a scalar over a bucket of steps. NaN values
// are passed over (a NaN loss shows as found_inf in the same point); both are
// NaN only when every value was NaN. Infinities are kept.
struct MinMax {
    float min = std::numeric_limits<float>::quiet_NaN();
    float max = std::numeric_limits<float>::quiet_NaN();

    void add(float x);
    void merge(const MinMax& other);
};

// One point of the decimated history: the steps first_step..last_step.
// An event count > 0 is the OR of that flag over the bucket.
struct SeriesPoint {
    std::int64_t first_step = 0;
    std::int64_t last_step = 0;
    std::int64_t records = 0;  // steps merged into this point
    MinMax loss;
    MinMax loss_ref;
    MinMax scale;  // the scale each step used
    MinMax grad_norm;
    std::int64_t found_inf = 0;
    std::int64_t skipped = 0;
    std::int64_t backoffs = 0;
    std::int64_t growths = 0;
    // The last evaluation in the bucket, when it held one.
    std::optional<float> acc;
    std::optional<float> acc_ref;
    std::optional<float> test_loss;
    std::optional<float> test_loss_ref;
};

// Fixed-capacity history of SeriesPoints. Every point covers stride() steps
// (a power of two) except the last, which may hold fewer; when the capacity
// is reached the stride doubles and adjacent points merge.
class DecimatedSeries {
public:
    explicit DecimatedSeries(std::size_t capacity);  // even, >= 2 (RunLog checks)

    void add(const StepRecord& record);
    const std::vector<SeriesPoint>& points() const { return points_; }
    std::int64_t stride() const { return stride_; }
    std::size_t capacity() const { return capacity_; }

private:
    void halve();

    std::size_t capacity_;
    std::int64_t stride_ = 1;
    std::vector<SeriesPoint> points_;  // reserved to capacity once: never reallocates
};

struct RunTotals {
    std::int64_t steps = 0;  // records appended
    std::int64_t overflows = 0;  // found_inf
    std::int64_t skipped = 0;
    std::int64_t backoffs = 0;
    std::int64_t growths = 0;
    std::int64_t first_nonfinite_step = -1;  // first found_inf or non-finite loss; -1 if none
};

// An edit applied at a step boundary: after step `step` (0 = before the
// first), so it acts from step + 1 on.
struct LiveEdit {
    std::int64_t step = 0;
    std::string assignment;  // "scaler.growth_interval=100"
};

// Append-only list of LiveEdits whose copies share storage: full chunks are
// immutable and shared, so copying the list costs at most one partial chunk
// plus a pointer per chunk, however many edits it holds.
class EditList {
public:
    static constexpr std::size_t kChunk = 256;

    std::size_t size() const { return sealed_.size() * kChunk + tail_.size(); }
    bool empty() const { return size() == 0; }
    const LiveEdit& operator[](std::size_t i) const;
    void push_back(LiveEdit edit);
    std::size_t memory_bytes() const;

private:
    std::vector<std::shared_ptr<const std::vector<LiveEdit>>> sealed_;  // each exactly kChunk edits
    std::vector<LiveEdit> tail_;
    std::size_t text_bytes_ = 0;  // heap held by the assignment strings
};

// An immutable copy of a RunLog for readers on other threads: the records
// are shared (never modified once appended), the rest copied.
struct RunLogView {
    std::vector<std::shared_ptr<const StepRecord>> recent;  // oldest first
    std::vector<SeriesPoint> series;
    std::int64_t series_stride = 1;
    RunTotals totals;
    EditList edits;

    const StepRecord* latest() const { return recent.empty() ? nullptr : recent.back().get(); }
    const StepRecord* find(std::int64_t step) const;  // nullptr once it left the ring
};

class RunLog {
public:
    explicit RunLog(RunLogLimits limits = {});  // throws plab::Error on bad limits

    // Record steps must increase (throws plab::Error otherwise).
    void append(StepRecord record);
    // Throws plab::Error once limits().edits are held.
    void add_edit(std::int64_t step, std::string assignment);
    bool edits_full() const { return edits_.size() >= limits_.edits; }
    // The same check alone, for callers that must refuse an edit before making it.
    void require_edit_room() const;

    const RunLogLimits& limits() const { return limits_; }
    std::vector<std::shared_ptr<const StepRecord>> recent() const;  // oldest first
    const StepRecord* find(std::int64_t step) const;  // nullptr once it left the ring
    const StepRecord* latest() const;
    const std::vector<SeriesPoint>& series() const { return series_.points(); }
    std::int64_t series_stride() const { return series_.stride(); }
    const RunTotals& totals() const { return totals_; }
    const EditList& edits() const { return edits_; }

    // Heap and object bytes held, approximately (allocator overhead aside).
    std::size_t memory_bytes() const;
    RunLogView view() const;

private:
    const std::shared_ptr<const StepRecord>& at(std::size_t i) const;  // i-th oldest held
    void count(const StepRecord& record);

    RunLogLimits limits_;
    std::vector<std::shared_ptr<const StepRecord>> ring_;  // reserved to limits_.recent
    std::size_t oldest_ = 0;                                // index in ring_ once it is full
    std::size_t record_bytes_ = 0;                          // held by the records in ring_
    DecimatedSeries series_;
    RunTotals totals_;
    EditList edits_;
};

}  // namespace plab

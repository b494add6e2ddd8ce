#include "ui/present/event_table.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/common/number_text.h"

namespace plab {

namespace {

// An event before its texts are made: the events are sorted and capped
// first, so that only the rows shown cost any formatting.
struct Pending {
    EventKind kind = EventKind::overflow;
    std::int64_t first_step = 0;
    std::int64_t last_step = 0;         // sort key, with the kind's phase
    std::int64_t count = 1;
    std::int64_t skipped = 0;           // series overflow rows
    const SeriesPoint* point = nullptr;  // series rows: the point, when the row covers all of it
    bool from_series = false;
    const StepRecord* record = nullptr;  // rows of a recent step
    const LiveEdit* edit = nullptr;      // edit rows
};

// Order of the kinds within one step, oldest first: the loss is computed,
// the gradients checked, the scale updated, and edits apply after the step.
int phase(EventKind k) {
    switch (k) {
        case EventKind::nonfinite: return 0;
        case EventKind::overflow: return 1;
        case EventKind::backoff: return 2;
        case EventKind::growth: return 3;
        case EventKind::edit: return 4;
    }
    return 0;
}

bool older(const Pending& a, const Pending& b) {
    if (a.last_step != b.last_step) return a.last_step < b.last_step;
    return phase(a.kind) < phase(b.kind);
}

std::string count_text(std::int64_t n, std::string_view singular, std::string_view plural) {
    return std::to_string(n) + " " + std::string(n == 1 ? singular : plural);
}

std::string scale_text(float scale) {
    const std::string power = power_of_two_text(scale);
    return power.rfind("2^", 0) == 0 ? power : shortest_text(scale);
}

std::string layer_text(int layer, const std::vector<std::string>& names) {
    const auto i = static_cast<std::size_t>(layer);
    return i < names.size() ? names[i] : "layer " + std::to_string(layer);
}

// The per-kind counts of a series point.
struct Counts {
    std::int64_t found_inf = 0, skipped = 0, backoffs = 0, growths = 0;
};

Counts counts_of(const SeriesPoint& p) { return {p.found_inf, p.skipped, p.backoffs, p.growths}; }

void subtract(Counts& c, const StepRecord& r) {
    c.found_inf -= r.found_inf;
    c.skipped -= r.skipped;
    c.backoffs -= r.backoff;
    c.growths -= r.growth;
}

class Collector {
public:
    explicit Collector(EventKindMask kinds) : kinds_(kinds) {}

    void add(Pending p) {
        if ((kinds_ & event_bit(p.kind)) != 0) pending_.push_back(p);
    }

    // Series points (or the part of one) older than the first recent step.
    // A point reaching into the recent window has that window's events taken
    // off its counts: those rows come from the records, with their detail.
    void add_series(const std::vector<SeriesPoint>& series, const std::vector<std::shared_ptr<const StepRecord>>& recent) {
        const std::int64_t window = recent.empty() ? std::numeric_limits<std::int64_t>::max() : recent.front()->step;
        for (const SeriesPoint& p : series) {
            if (p.first_step >= window) break;
            Counts c = counts_of(p);
            const bool whole = p.last_step < window;
            for (std::size_t i = 0; !whole && i < recent.size() && recent[i]->step <= p.last_step; ++i)
                subtract(c, *recent[i]);
            Pending base;
            base.first_step = p.first_step;
            base.last_step = whole ? p.last_step : window - 1;
            base.point = whole ? &p : nullptr;
            base.from_series = true;
            add_counted(base, EventKind::overflow, c.found_inf, c.skipped);
            add_counted(base, EventKind::backoff, c.backoffs, 0);
            add_counted(base, EventKind::growth, c.growths, 0);
        }
    }

    void add_record(const StepRecord& r) {
        Pending base;
        base.first_step = base.last_step = r.step;
        base.record = &r;
        auto add_if = [&](bool happened, EventKind kind) {
            if (!happened) return;
            Pending p = base;
            p.kind = kind;
            add(p);
        };
        add_if(!std::isfinite(r.loss), EventKind::nonfinite);
        add_if(r.found_inf, EventKind::overflow);
        add_if(r.backoff, EventKind::backoff);
        add_if(r.growth, EventKind::growth);
    }

    void add_edit(const LiveEdit& e) {
        Pending p;
        p.kind = EventKind::edit;
        p.first_step = p.last_step = e.step;
        p.edit = &e;
        add(p);
    }

    // Newest first. Edits the log holds at one step keep their order (the
    // later one newer): a stable sort oldest first, then reversed.
    std::vector<Pending> newest_first() {
        std::stable_sort(pending_.begin(), pending_.end(), older);
        std::reverse(pending_.begin(), pending_.end());
        return std::move(pending_);
    }

private:
    void add_counted(Pending base, EventKind kind, std::int64_t count, std::int64_t skipped) {
        if (count <= 0) return;
        base.kind = kind;
        base.count = count;
        base.skipped = skipped;
        add(base);
    }

    EventKindMask kinds_;
    std::vector<Pending> pending_;
};

std::string steps_text(std::int64_t first, std::int64_t last) {
    return first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
}

std::string event_text(const Pending& p) {
    switch (p.kind) {
        case EventKind::overflow: return p.count == 1 ? "overflow" : count_text(p.count, "overflow", "overflows");
        case EventKind::backoff: return p.count == 1 ? "backoff" : count_text(p.count, "backoff", "backoffs");
        case EventKind::growth: return p.count == 1 ? "growth" : count_text(p.count, "growth", "growths");
        case EventKind::edit: return "edit";
        case EventKind::nonfinite: return "non-finite loss";
    }
    return {};
}

std::string record_detail(const StepRecord& r, EventKind kind, const std::vector<std::string>& layer_names) {
    const std::string at = " at scale " + scale_text(r.scale);
    switch (kind) {
        case EventKind::nonfinite: return "loss " + (std::isnan(r.loss) ? "nan" : shortest_text(r.loss)) + at;  // no "-nan"
        case EventKind::overflow: {
            const std::string where = r.first_nonfinite_layer >= 0
                                          ? "first non-finite gradient in " + layer_text(r.first_nonfinite_layer, layer_names)
                                          : "non-finite gradient";
            return where + at + (r.skipped ? ", step skipped" : ", step applied");
        }
        case EventKind::backoff:
        case EventKind::growth: return "scale " + scale_text(r.scale) + " -> " + scale_text(r.scale_after);
        case EventKind::edit: break;
    }
    return {};
}

// What became of a bucket's overflowed steps ("all skipped", "2 skipped, 1 applied").
std::string fate_text(std::int64_t count, std::int64_t skipped) {
    if (count == 1) return skipped == 1 ? "step skipped" : "step applied";
    if (skipped == count) return "all skipped";
    if (skipped == 0) return "all applied";
    return std::to_string(skipped) + " skipped, " + std::to_string(count - skipped) + " applied";
}

// Counts only; the range of scales used is added when the row covers the
// whole point (the point's extremes cannot be split at the window).
std::string series_detail(const Pending& p) {
    std::string detail = p.kind == EventKind::overflow ? fate_text(p.count, p.skipped) : "";
    if (p.point == nullptr) return detail;
    const MinMax& s = p.point->scale;
    const std::string range =
        s.min == s.max ? "scale " + scale_text(s.min) : "scale " + scale_text(s.min) + " .. " + scale_text(s.max);
    return detail.empty() ? range : detail + "; " + range;
}

EventRow make_row(const Pending& p, const std::vector<std::string>& layer_names) {
    EventRow row;
    row.kind = p.kind;
    row.step = p.first_step;
    row.last_step = p.last_step;
    row.step_text = steps_text(p.first_step, p.last_step);
    row.event = event_text(p);
    row.count = p.count;
    row.from_series = p.from_series;
    if (p.edit != nullptr)
        row.detail = p.edit->assignment;
    else if (p.record != nullptr)
        row.detail = record_detail(*p.record, p.kind, layer_names);
    else
        row.detail = series_detail(p);
    return row;
}

std::int64_t nonfinite_losses(const std::vector<std::shared_ptr<const StepRecord>>& recent) {
    return std::count_if(recent.begin(), recent.end(), [](const auto& r) { return !std::isfinite(r->loss); });
}

// "7 overflows (6 skipped) · 5 backoffs · 2 growths · 5 edits · 1 non-finite
// loss in the last 4 steps · first non-finite at step 2".
std::string summary_text(const EventTable& t, const RunLogView& log) {
    if (log.totals.steps == 0 && log.edits.empty()) return "no steps yet";
    auto n = [&t](EventKind k) { return t.counts[static_cast<std::size_t>(k)]; };
    std::string s = count_text(n(EventKind::overflow), "overflow", "overflows");
    if (n(EventKind::overflow) > 0) s += " (" + std::to_string(t.skipped) + " skipped)";
    s += " · " + count_text(n(EventKind::backoff), "backoff", "backoffs");
    s += " · " + count_text(n(EventKind::growth), "growth", "growths");
    s += " · " + count_text(n(EventKind::edit), "edit", "edits");
    if (n(EventKind::nonfinite) > 0) {
        s += " · " + count_text(n(EventKind::nonfinite), "non-finite loss", "non-finite losses");
        if (static_cast<std::int64_t>(log.recent.size()) < log.totals.steps)
            s += " in the last " + std::to_string(log.recent.size()) + " steps";
    }
    if (t.first_nonfinite_step >= 0) s += " · first non-finite at step " + std::to_string(t.first_nonfinite_step);
    return s;
}

}  // namespace

std::string_view event_kind_name(EventKind k) {
    switch (k) {
        case EventKind::overflow: return "overflow";
        case EventKind::backoff: return "backoff";
        case EventKind::growth: return "growth";
        case EventKind::edit: return "edit";
        case EventKind::nonfinite: return "non-finite loss";
    }
    return "";
}

EventTable make_event_table(const RunLogView& log, const std::vector<std::string>& layer_names, std::size_t max_rows,
                            EventKindMask kinds) {
    Collector events(kinds);
    events.add_series(log.series, log.recent);
    for (const auto& r : log.recent) events.add_record(*r);
    for (std::size_t i = 0; i < log.edits.size(); ++i) events.add_edit(log.edits[i]);
    const std::vector<Pending> pending = events.newest_first();

    EventTable t;
    t.matching = pending.size();
    const std::size_t shown = std::min(max_rows, pending.size());
    t.rows.reserve(shown);
    for (std::size_t i = 0; i < shown; ++i) t.rows.push_back(make_row(pending[i], layer_names));

    auto count = [&t](EventKind k) -> std::int64_t& { return t.counts[static_cast<std::size_t>(k)]; };
    count(EventKind::overflow) = log.totals.overflows;
    count(EventKind::backoff) = log.totals.backoffs;
    count(EventKind::growth) = log.totals.growths;
    count(EventKind::edit) = static_cast<std::int64_t>(log.edits.size());
    count(EventKind::nonfinite) = nonfinite_losses(log.recent);
    t.skipped = log.totals.skipped;
    t.first_nonfinite_step = log.totals.first_nonfinite_step;
    t.summary = summary_text(t, log);
    return t;
}

}  // namespace plab

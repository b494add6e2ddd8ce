#include "ui/present/loss_curves.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "engine/common/number_text.h"
#include "ui/present/series_axes.h"

namespace plab {

namespace {

constexpr const char* kAmpName = " (AMP)";
constexpr const char* kTwinName = " (FP32 twin)";

Curve empty_curve(const char* what, bool twin, bool test) {
    return {std::string(what) + (twin ? kTwinName : kAmpName), twin, test, {}};
}

// The loss as plotted on a log axis: NaN (left out) unless finite and > 0.
double plotted_loss(float loss) {
    return std::isfinite(loss) && loss > 0 ? static_cast<double>(loss) : std::numeric_limits<double>::quiet_NaN();
}

double plotted_accuracy(float acc) {
    return std::isfinite(acc) ? static_cast<double>(acc) : std::numeric_limits<double>::quiet_NaN();
}

// One point per evaluation the series kept (the last of each bucket), at the
// bucket's x like every other series value; at most one per pixel column
// (the column's last), since a long run keeps thousands and each is a
// stroke of a dashed line to draw.
template <typename Map>
std::vector<XY> evaluation_points(const std::vector<SeriesPoint>& series, std::optional<float> SeriesPoint::*field,
                                  Map map, const StepAxis& axis, int columns) {
    std::vector<XY> points;
    long last_column = -1;
    for (const SeriesPoint& p : series) {
        if (!(p.*field)) continue;
        const double y = map(*(p.*field));
        if (std::isnan(y)) continue;
        const double x = series_x(p);
        const long column = static_cast<long>((x - axis.min) / (axis.max - axis.min) * columns);
        if (column == last_column) points.back() = {x, y};
        else points.push_back({x, y});
        last_column = column;
    }
    return points;
}

// Powers of ten around every plotted loss; the defaults when there is none.
void set_loss_bounds(LossCurves& c) {
    Extent decades;
    for (const Curve& curve : c.loss) {
        for (const XY& p : curve.points) decades.add(std::log10(p.y));
    }
    if (decades.empty()) return;
    const Bounds b = integer_bounds(decades);
    c.loss_min = std::pow(10.0, b.lo);
    c.loss_max = std::pow(10.0, b.hi);
}

std::string short_loss_text(float loss) { return loss_text(loss); }

// What a series point's loss was, when the log axis cannot show it.
enum class OffAxis { none, nan, inf, zero, negative };

OffAxis off_axis(const MinMax& m) {
    if (std::isnan(m.min)) return OffAxis::nan;  // every loss of the bucket was NaN
    if (std::isinf(m.min) || std::isinf(m.max)) return OffAxis::inf;
    if (m.min == 0) return OffAxis::zero;
    if (m.min < 0) return OffAxis::negative;
    return OffAxis::none;
}

const char* off_axis_text(OffAxis o) {
    switch (o) {
        case OffAxis::nan: return "NaN";
        case OffAxis::inf: return "Inf";
        case OffAxis::negative: return "< 0";
        default: return "0";
    }
}

std::string steps_text(std::int64_t first, std::int64_t last) {
    return first == last ? "step " + std::to_string(first)
                         : "steps " + std::to_string(first) + "-" + std::to_string(last);
}

// One mark per run of consecutive points whose loss is off the axis the same way.
void add_marks(std::vector<LossMark>& marks, const std::vector<SeriesPoint>& series, MinMax SeriesPoint::*field,
               bool twin) {
    for (std::size_t i = 0; i < series.size();) {
        const OffAxis o = off_axis(series[i].*field);
        std::size_t end = i + 1;
        while (end < series.size() && off_axis(series[end].*field) == o) ++end;
        if (o != OffAxis::none) {
            const std::string what = std::string(twin ? "twin: " : "") + off_axis_text(o) + " at ";
            const bool finite = o == OffAxis::zero || o == OffAxis::negative;
            marks.push_back({static_cast<double>(series[i].first_step), !finite, twin, finite,
                             what + steps_text(series[i].first_step, series[end - 1].last_step)});
        }
        i = end;
    }
}

}  // namespace

LossAxes loss_axes(const LossCurves& run, const std::optional<LossCurves>& fork) {
    LossAxes a{run.step_min, run.step_max, run.loss_min, run.loss_max};
    const bool drawn = fork && std::any_of(fork->loss.begin(), fork->loss.end(),
                                           [](const Curve& c) { return !c.points.empty(); });
    if (!drawn) return a;
    a.step_max = std::max(a.step_max, fork->step_max);
    a.loss_min = std::min(a.loss_min, fork->loss_min);
    a.loss_max = std::max(a.loss_max, fork->loss_max);
    return a;
}

std::vector<LossMark> marks_with_fork(std::vector<LossMark> main, const std::vector<LossMark>& fork) {
    for (LossMark m : fork) {
        m.fork = true;
        m.text = "fork: " + m.text;
        main.push_back(std::move(m));
    }
    return main;
}

namespace {

std::string percent_text(float fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * static_cast<double>(fraction));
    return buf;
}

// " (twin X)" when the twin reported a value.
std::string twin_part(bool twin, const std::optional<float>& value, std::string (*text)(float)) {
    return twin && value ? " (twin " + text(*value) + ")" : "";
}

// The latest evaluation kept in the series that holds `field`, or null.
const SeriesPoint* last_evaluation(const std::vector<SeriesPoint>& series, std::optional<float> SeriesPoint::*field) {
    for (auto it = series.rbegin(); it != series.rend(); ++it) {
        if ((*it).*field) return &*it;
    }
    return nullptr;
}

// "loss 0.0412 (twin 0.0398) · acc 97.1% (twin 96.7%)": the latest step's
// train loss and the latest evaluation; a regression run, which reports test
// loss instead of accuracy, shows "test loss ...".
std::string perplexity_text(float test_loss) { return loss_text(std::exp(test_loss)); }

std::string loss_summary(const RunLogView& log, bool twin, bool language_model) {
    const StepRecord* latest = log.latest();
    if (latest == nullptr) return "no steps yet";
    std::string text = "loss " + loss_text(latest->loss) + twin_part(twin, latest->loss_ref, short_loss_text);
    if (const SeriesPoint* p = last_evaluation(log.series, &SeriesPoint::acc)) {
        text += " · acc " + percent_text(*p->acc) + twin_part(twin, p->acc_ref, percent_text);
        if (language_model && p->test_loss)
            text += " · test ppl " + perplexity_text(*p->test_loss) + twin_part(twin, p->test_loss_ref, perplexity_text);
    } else if (const SeriesPoint* q = last_evaluation(log.series, &SeriesPoint::test_loss)) {
        text += " · test loss " + loss_text(*q->test_loss) + twin_part(twin, q->test_loss_ref, short_loss_text);
    }
    return text;
}

// A column polyline broken where the loss left the axis: between two drawn
// columns with a column between them that held only losses off the axis, a
// column of two NaN points, so that the line does not join the losses on
// either side of a stretch it cannot show. (Columns empty for want of
// steps, on a short run, are no gap.)
std::vector<XY> break_at_off_axis(const std::vector<XY>& line, const std::vector<SeriesPoint>& series,
                                  MinMax SeriesPoint::*field, const StepAxis& axis, int columns) {
    const double range = axis.max - axis.min;
    auto column_of = [&](double x) { return std::min(columns - 1, static_cast<int>((x - axis.min) * columns / range)); };
    std::vector<int> off;  // increasing: the series is in step order
    for (const SeriesPoint& p : series)
        if (off_axis(p.*field) != OffAxis::none) off.push_back(column_of(series_x(p)));
    if (off.empty()) return line;
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<XY> out;
    out.reserve(line.size() + 2 * off.size());
    int last = -1;  // the previous drawn column
    for (std::size_t i = 0; i < line.size(); i += 2) {
        const int column = column_of(line[i].x);
        const auto between = std::upper_bound(off.begin(), off.end(), last);
        if (last >= 0 && between != off.end() && *between < column) out.insert(out.end(), {{nan, nan}, {nan, nan}});
        out.insert(out.end(), line.begin() + static_cast<std::ptrdiff_t>(i),
                   line.begin() + static_cast<std::ptrdiff_t>(std::min(i + 2, line.size())));
        last = column;
    }
    return out;
}

void fill_curves(LossCurves& c, const std::vector<SeriesPoint>& series, bool twin, int columns) {
    const StepAxis axis = step_axis(series);
    c.step_min = axis.min;
    c.step_max = axis.max;
    const auto train = [&](MinMax SeriesPoint::*field) {
        return break_at_off_axis(column_polyline(series_columns(series, field, plotted_loss, axis, columns)), series,
                                 field, axis, columns);
    };
    std::size_t i = 0;
    c.loss[i++].points = train(&SeriesPoint::loss);
    if (twin) c.loss[i++].points = train(&SeriesPoint::loss_ref);
    const auto test = [&](std::optional<float> SeriesPoint::*field, double (*map)(float)) {
        return evaluation_points(series, field, map, axis, columns);
    };
    c.loss[i++].points = test(&SeriesPoint::test_loss, plotted_loss);
    if (twin) c.loss[i].points = test(&SeriesPoint::test_loss_ref, plotted_loss);
    c.accuracy[0].points = test(&SeriesPoint::acc, plotted_accuracy);
    if (twin) c.accuracy[1].points = test(&SeriesPoint::acc_ref, plotted_accuracy);
}

}  // namespace

LossCurves make_loss_curves(const RunLogView& log, bool twin, int columns, bool language_model) {
    LossCurves c;
    c.loss.push_back(empty_curve("train", false, false));
    if (twin) c.loss.push_back(empty_curve("train", true, false));
    c.loss.push_back(empty_curve("test", false, true));
    if (twin) c.loss.push_back(empty_curve("test", true, true));
    c.accuracy.push_back(empty_curve("test", false, true));
    if (twin) c.accuracy.push_back(empty_curve("test", true, true));
    c.summary = loss_summary(log, twin, language_model);
    if (log.series.empty()) return c;
    fill_curves(c, log.series, twin, columns);
    set_loss_bounds(c);
    add_marks(c.marks, log.series, &SeriesPoint::loss, false);
    if (twin) add_marks(c.marks, log.series, &SeriesPoint::loss_ref, true);
    return c;
}

std::string loss_text(float loss, int digits) {
    if (std::isnan(loss)) return "NaN";
    if (std::isinf(loss)) return loss > 0 ? "Inf" : "-Inf";
    return significant_text(loss, digits);
}

}  // namespace plab

#include "ui/imgui/plot.h"

#include <algorithm>
#include <cmath>

namespace plab::imgui {

namespace {

// Labels `label_pixels` apart at ease, `crowded` times that when crowded,
// and at least three where they fit at all.
TickRoom room_for(float pixels, float label_pixels, float crowded = 0.75f) {
    return {std::max(2, static_cast<int>(pixels / label_pixels)),
            std::max(2, static_cast<int>(pixels / (label_pixels * crowded))), 3};
}

std::vector<AxisTick> ticks_of(const Axis& a, const TickRoom& room) {
    switch (a.kind) {
        case AxisKind::steps: return readable_linear_ticks(a.lo, a.hi, room, 1.0);
        case AxisKind::linear: return ticked_range(a.lo, a.hi, room).ticks;
        case AxisKind::log2: return readable_exponent_ticks(a.lo, a.hi, room, 2);
        case AxisKind::log10: return readable_exponent_ticks(a.lo, a.hi, room, 10);
        case AxisKind::none: return {};
    }
    return {};
}

float widest(const std::vector<AxisTick>& ticks) {
    float w = 0;
    for (const AxisTick& t : ticks) w = std::max(w, ImGui::CalcTextSize(t.text.c_str()).x);
    return w;
}

struct FittedAxis {
    Axis axis;
    std::vector<AxisTick> ticks;
};

// A linear axis widened to its ticks, then any axis widened by its pads, for
// a length of `pixels`; with its ticks (a linear axis's from before the pads,
// which only add room).
FittedAxis fitted(Axis a, float pixels, const TickRoom& room) {
    std::vector<AxisTick> ticks;
    if (a.kind == AxisKind::linear) {
        TickedRange r = ticked_range(a.lo, a.hi, room);
        a.lo = r.lo;
        a.hi = r.hi;
        ticks = std::move(r.ticks);
    }
    const float inner = pixels - a.pad_lo - a.pad_hi;
    if (inner > 1 && a.hi > a.lo) {
        const double per_pixel = (a.hi - a.lo) / inner;
        a.lo -= a.pad_lo * per_pixel;
        a.hi += a.pad_hi * per_pixel;
    }
    if (a.kind != AxisKind::linear) ticks = ticks_of(a, room);
    return {a, std::move(ticks)};
}

// The x title's height: one line, or more when it is wider than the plot.
float title_height(const char* title, float width) {
    return *title ? ImGui::CalcTextSize(title, nullptr, false, width).y : 0.0f;
}

void draw_x_title(const PlotArea& a, const char* title, float left, float width, float y) {
    const ImVec2 ts = ImGui::CalcTextSize(title);
    if (ts.x <= width) {
        const float centred = std::clamp((a.min.x + a.max.x - ts.x) * 0.5f, left, left + width - ts.x);
        a.draw->AddText({centred, y}, colour::dim_text, title);
    } else {
        a.draw->AddText(nullptr, 0.0f, {left, y}, colour::dim_text, title, nullptr, width);
    }
}

void draw_y_ticks(const PlotArea& a, const std::vector<AxisTick>& ticks, float pad, const Look& look) {
    for (const AxisTick& t : ticks) {
        const float py = a.py(t.value);
        a.draw->AddLine({a.min.x, py}, {a.max.x, py}, colour::grid, look.thin());
        const ImVec2 ts = ImGui::CalcTextSize(t.text.c_str());
        a.draw->AddText({a.min.x - pad - ts.x, py - ts.y * 0.5f}, colour::dim_text, t.text.c_str());
    }
}

void draw_x_ticks(const PlotArea& a, const std::vector<AxisTick>& ticks, float pad, float left, float right,
                  const Look& look) {
    for (const AxisTick& t : ticks) {
        const float px = a.px(t.value);
        a.draw->AddLine({px, a.min.y}, {px, a.max.y}, colour::grid, look.thin());
        const ImVec2 ts = ImGui::CalcTextSize(t.text.c_str());
        const float left_x = std::clamp(px - ts.x * 0.5f, left, right - ts.x);
        a.draw->AddText({left_x, a.max.y + pad}, colour::dim_text, t.text.c_str());
    }
}

}  // namespace

float PlotArea::px(double v) const {
    const double t = x.hi > x.lo ? (v - x.lo) / (x.hi - x.lo) : 0.5;
    return min.x + static_cast<float>(t) * (max.x - min.x);
}

float PlotArea::py(double v) const {
    const double t = y.hi > y.lo ? (v - y.lo) / (y.hi - y.lo) : 0.5;
    return max.y - static_cast<float>(t) * (max.y - min.y);
}

double PlotArea::x_at(float pixel) const {
    return x.lo + (x.hi - x.lo) * static_cast<double>((pixel - min.x) / std::max(1.0f, max.x - min.x));
}

int line_columns(float pixels, const Look& look) {
    // column_line() draws a column a line wide: columns closer than that
    // only paint over each other. A column per pixel made the lines most of
    // a frame's triangles and a large share of its GL time under llvmpipe
    // (docs/perf.md).
    return std::max(16, static_cast<int>(pixels / std::max(1.0f, std::round(look.line()))));
}

bool PlotArea::hovered() const { return ImGui::IsMouseHoveringRect(min, max) && ImGui::IsWindowHovered(); }

PlotArea begin_plot(const char* id, ImVec2 size, const Axis& x, const Axis& y, const Look& look) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (size.x <= 0) size.x = avail.x;
    if (size.y <= 0) size.y = avail.y;
    size = {std::max(size.x, 60.0f), std::max(size.y, 60.0f)};
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(id, size);
    const float text_h = ImGui::GetTextLineHeight();
    const float pad = 4.0f * look.scale;

    // The y labels' width decides the left margin; the rows of text below
    // (x labels, x title) the bottom one.
    const float bottom = text_h + pad * 2 + title_height(x.title, size.x - pad * 2);
    const float top = (*y.title ? text_h + pad : pad) + text_h * 0.5f;
    const float inner_h = size.y - bottom - top;
    PlotArea a;
    const FittedAxis fy = fitted(y, inner_h, room_for(inner_h, text_h * 1.5f));
    a.y = fy.axis;
    const float left = (y.kind == AxisKind::none ? 0.0f : widest(fy.ticks)) + pad * 3;
    a.min = {origin.x + left, origin.y + top};
    a.max = {origin.x + size.x - pad * 3, origin.y + size.y - bottom};
    const float inner_w = a.max.x - a.min.x;
    const float label_w = std::max(ImGui::CalcTextSize("000000").x, widest(ticks_of(x, room_for(inner_w, 80))) * 1.6f);
    // x labels are spaced at 1.6 times the widest: crowded, 0.6 of that still leaves a gap.
    const FittedAxis fx = fitted(x, inner_w, room_for(inner_w, label_w, 0.6f));
    a.x = fx.axis;
    a.draw = ImGui::GetWindowDrawList();

    // No fill of its own: the frame and the grid set the plot apart from the
    // panel, whose colour (the GL clear) shows through. A darker fill covered
    // a large share of a frame's pixels, at a cost in GL time under llvmpipe
    // (docs/perf.md).
    draw_y_ticks(a, fy.ticks, pad, look);
    draw_x_ticks(a, fx.ticks, pad, origin.x, origin.x + size.x, look);
    a.draw->AddRect(a.min, a.max, colour::axis, 0.0f, 0, look.thin());
    if (*x.title) draw_x_title(a, x.title, origin.x + pad, size.x - pad * 2, a.max.y + pad + text_h);
    if (*y.title) a.draw->AddText({origin.x + pad, origin.y}, colour::dim_text, y.title);
    a.draw->PushClipRect(a.min, a.max, true);
    return a;
}

void end_plot(const PlotArea& area) { area.draw->PopClipRect(); }

void column_line(const PlotArea& a, const std::vector<XY>& columns, ImU32 colour, float thickness) {
    // A whole number of pixels: ImGui then draws the anti-aliased line from
    // its texture, 2 triangles a segment instead of 6, the same to the eye.
    thickness = std::round(thickness);
    const float half = thickness * 0.5f;
    // A column whose values spread wider than the line is a bar one line
    // wide (its edges are pixel columns: no anti-aliasing needed); a line
    // through the columns' middles joins them. Drawn as one polyline up and
    // down each column's spread, the line turned back at every column, where
    // ImGui's joins pinch to nothing (a noisy loss showed as broken strokes,
    // not the band between its extremes), and each of its segments was as
    // tall as the spread: llvmpipe pays for a thin triangle by its length.
    std::vector<ImVec2> middles;
    middles.reserve(columns.size() / 2 + 1);
    // A column of NaN points is a gap in the line: the part before it is drawn alone.
    auto draw_middles = [&] {
        if (middles.size() == 1) a.draw->AddCircleFilled(middles[0], thickness * 1.5f, colour);
        if (middles.size() >= 2)
            a.draw->AddPolyline(middles.data(), static_cast<int>(middles.size()), colour, ImDrawFlags_None, thickness);
        middles.clear();
    };
    for (std::size_t i = 0; i < columns.size(); i += 2) {
        const std::size_t j = std::min(i + 1, columns.size() - 1);
        if (std::isnan(columns[i].y) || std::isnan(columns[j].y)) {
            draw_middles();
            continue;
        }
        const ImVec2 p = a.at(columns[i].x, columns[i].y), q = a.at(columns[j].x, columns[j].y);
        const float top = std::min(p.y, q.y), bottom = std::max(p.y, q.y);
        if (bottom - top > thickness) a.draw->AddRectFilled({p.x - half, top - half}, {p.x + half, bottom + half}, colour);
        // A middle within half a pixel of the last adds nothing to see.
        const ImVec2 m = {p.x, (top + bottom) * 0.5f};
        if (middles.empty() || std::fabs(m.x - middles.back().x) >= 0.5f || std::fabs(m.y - middles.back().y) >= 0.5f)
            middles.push_back(m);
    }
    draw_middles();
}

void dashed_polyline(const PlotArea& a, const std::vector<XY>& points, ImU32 colour, float thickness, float dash) {
    // Walks the line and draws every other `dash` pixels of it, whole pixels
    // thick like column_line().
    thickness = std::round(thickness);
    bool on = true;
    float left = dash;
    for (std::size_t i = 1; i < points.size(); ++i) {
        ImVec2 p = a.at(points[i - 1].x, points[i - 1].y);
        const ImVec2 q = a.at(points[i].x, points[i].y);
        float length = std::hypot(q.x - p.x, q.y - p.y);
        while (length > 0) {
            const float take = std::min(left, length);
            const float t = take / length;
            const ImVec2 r = {p.x + (q.x - p.x) * t, p.y + (q.y - p.y) * t};
            if (on) a.draw->AddLine(p, r, colour, thickness);
            p = r;
            length -= take;
            left -= take;
            if (left <= 0) {
                on = !on;
                left = dash;
            }
        }
    }
    if (points.size() == 1) a.draw->AddCircleFilled(a.at(points[0].x, points[0].y), thickness * 1.5f, colour);
}

void x_band(const PlotArea& a, double x0, double x1, ImU32 fill) {
    const float l = std::max(a.px(x0), a.min.x), r = std::min(a.px(x1), a.max.x);
    if (r > l) a.draw->AddRectFilled({l, a.min.y}, {r, a.max.y}, fill);
}

void hatched_x_band(const PlotArea& a, double x0, double x1, ImU32 line, float spacing, float thickness) {
    const float l = std::max(a.px(x0), a.min.x), r = std::min(a.px(x1), a.max.x);
    if (r <= l) return;
    const float height = a.max.y - a.min.y;
    a.draw->PushClipRect({l, a.min.y}, {r, a.max.y}, true);
    // Lines rising to the right, from below-left of the band to past its right edge.
    for (float x = l - height; x < r; x += spacing) a.draw->AddLine({x, a.max.y}, {x + height, a.min.y}, line, thickness);
    a.draw->PopClipRect();
}

void bar(const PlotArea& a, double x0, double x1, double top, ImU32 fill) {
    const float l = a.px(x0), r = a.px(x1);
    // At least a pixel wide and, when non-empty, a pixel tall: a bin holding a
    // handful of values among millions must still show.
    const float y0 = a.py(0.0);
    float y1 = a.py(top);
    if (top > 0 && y0 - y1 < 1.0f) y1 = y0 - 1.0f;
    a.draw->AddRectFilled({l, y1}, {std::max(r - 1.0f, l + 1.0f), y0}, fill);
}

void marker(const PlotArea& a, double x, double y, MarkerShape shape, ImU32 colour, float h) {
    draw_marker(a.draw, a.at(x, y), shape, colour, h);
}

void draw_marker(ImDrawList* d, ImVec2 c, MarkerShape shape, ImU32 colour, float h) {
    switch (shape) {
        case MarkerShape::circle: d->AddCircleFilled(c, h, colour); break;
        case MarkerShape::square: d->AddRectFilled({c.x - h, c.y - h}, {c.x + h, c.y + h}, colour); break;
        case MarkerShape::triangle_up:
            d->AddTriangleFilled({c.x, c.y - h * 1.2f}, {c.x + h, c.y + h * 0.8f}, {c.x - h, c.y + h * 0.8f}, colour);
            break;
        case MarkerShape::triangle_down:
            d->AddTriangleFilled({c.x - h, c.y - h * 0.8f}, {c.x + h, c.y - h * 0.8f}, {c.x, c.y + h * 1.2f}, colour);
            break;
        case MarkerShape::diamond:
            d->AddQuadFilled({c.x, c.y - h * 1.3f}, {c.x + h, c.y}, {c.x, c.y + h * 1.3f}, {c.x - h, c.y}, colour);
            break;
    }
}

namespace {

// The room a key symbol takes before its name, in line heights.
constexpr float kSymbolWidth = 1.3f;

void draw_symbol(ImDrawList* d, ImVec2 at, float h, const KeyEntry& e) {
    const ImVec2 centre = {at.x + h * 0.55f, at.y + h * 0.5f};
    const float half = h * 0.3f;
    switch (e.symbol) {
        case KeySymbol::line: d->AddLine({at.x, centre.y}, {at.x + h * 1.1f, centre.y}, e.colour, h * 0.15f); break;
        case KeySymbol::dashed_line:
            d->AddLine({at.x, centre.y}, {at.x + h * 0.4f, centre.y}, e.colour, h * 0.15f);
            d->AddLine({at.x + h * 0.7f, centre.y}, {at.x + h * 1.1f, centre.y}, e.colour, h * 0.15f);
            break;
        case KeySymbol::square: draw_marker(d, centre, MarkerShape::square, e.colour, half); break;
        case KeySymbol::circle: draw_marker(d, centre, MarkerShape::circle, e.colour, half); break;
        case KeySymbol::triangle_up: draw_marker(d, centre, MarkerShape::triangle_up, e.colour, half); break;
        case KeySymbol::triangle_down: draw_marker(d, centre, MarkerShape::triangle_down, e.colour, half); break;
        case KeySymbol::diamond: draw_marker(d, centre, MarkerShape::diamond, e.colour, half); break;
    }
}

}  // namespace

void key_line(const std::vector<KeyEntry>& entries) {
    const float h = ImGui::GetTextLineHeight();
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        // Wraps to a new line rather than running past the panel's edge.
        const float width = h * kSymbolWidth + ImGui::CalcTextSize(entries[i].name).x;
        if (i) {
            ImGui::SameLine(0, h);
            if (ImGui::GetCursorScreenPos().x + width > right) ImGui::NewLine();
        }
        draw_symbol(ImGui::GetWindowDrawList(), ImGui::GetCursorScreenPos(), h, entries[i]);
        ImGui::Dummy({h * kSymbolWidth, h});
        ImGui::SameLine(0, 0);
        ImGui::TextUnformatted(entries[i].name);
    }
}

int key_lines(const std::vector<KeyEntry>& entries, float width) {
    const float h = ImGui::GetTextLineHeight();
    int lines = 1;
    float x = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const float w = h * kSymbolWidth + ImGui::CalcTextSize(entries[i].name).x;
        if (i && x + h + w > width) {
            ++lines;
            x = w;
        } else {
            x += (i ? h : 0.0f) + w;
        }
    }
    return lines;
}

void tooltip(const std::string& text) {
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(text.c_str());
    ImGui::EndTooltip();
}

}  // namespace plab::imgui

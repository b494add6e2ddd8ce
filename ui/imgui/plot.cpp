#include "ui/imgui/plot.h"

#include <algorithm>
#include <cmath>

namespace plab::imgui {

namespace {

std::vector<AxisTick> ticks_of(const Axis& a, float pixels, float label_pixels) {
    const int room = std::max(2, static_cast<int>(pixels / label_pixels));
    switch (a.kind) {
        case AxisKind::steps: return linear_ticks(a.lo, a.hi, room, 1.0);
        case AxisKind::linear: return linear_ticks(a.lo, a.hi, room);
        case AxisKind::log2: return exponent_ticks(a.lo, a.hi, room, 2);
        case AxisKind::log10: return exponent_ticks(a.lo, a.hi, room, 10);
        case AxisKind::none: return {};
    }
    return {};
}

float widest(const std::vector<AxisTick>& ticks) {
    float w = 0;
    for (const AxisTick& t : ticks) w = std::max(w, ImGui::CalcTextSize(t.text.c_str()).x);
    return w;
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

int PlotArea::columns() const { return std::max(16, static_cast<int>(max.x - min.x)); }

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
    const float bottom = text_h + pad * 2 + (*x.title ? text_h : 0.0f);
    const float top = (*y.title ? text_h + pad : pad) + text_h * 0.5f;
    const std::vector<AxisTick> y_ticks = ticks_of(y, size.y - bottom - top, text_h * 1.8f);
    const float left = (y.kind == AxisKind::none ? 0.0f : widest(y_ticks)) + pad * 3;
    PlotArea a;
    a.x = x;
    a.y = y;
    a.min = {origin.x + left, origin.y + top};
    a.max = {origin.x + size.x - pad * 3, origin.y + size.y - bottom};
    a.draw = ImGui::GetWindowDrawList();
    ImDrawList* d = a.draw;
    const float label_w = std::max(ImGui::CalcTextSize("000000").x, widest(ticks_of(x, a.max.x - a.min.x, 80)) * 1.6f);
    const std::vector<AxisTick> x_ticks = ticks_of(x, a.max.x - a.min.x, label_w);

    d->AddRectFilled(a.min, a.max, colour::plot_background);
    for (const AxisTick& t : y_ticks) {
        const float py = a.py(t.value);
        d->AddLine({a.min.x, py}, {a.max.x, py}, colour::grid, look.thin());
        const ImVec2 ts = ImGui::CalcTextSize(t.text.c_str());
        d->AddText({a.min.x - pad - ts.x, py - ts.y * 0.5f}, colour::dim_text, t.text.c_str());
    }
    for (const AxisTick& t : x_ticks) {
        const float px = a.px(t.value);
        d->AddLine({px, a.min.y}, {px, a.max.y}, colour::grid, look.thin());
        const ImVec2 ts = ImGui::CalcTextSize(t.text.c_str());
        const float left_x = std::clamp(px - ts.x * 0.5f, origin.x, origin.x + size.x - ts.x);
        d->AddText({left_x, a.max.y + pad}, colour::dim_text, t.text.c_str());
    }
    d->AddRect(a.min, a.max, colour::axis, 0.0f, 0, look.thin());
    if (*x.title) {
        const ImVec2 ts = ImGui::CalcTextSize(x.title);
        d->AddText({(a.min.x + a.max.x - ts.x) * 0.5f, a.max.y + pad + text_h}, colour::dim_text, x.title);
    }
    if (*y.title) d->AddText({origin.x + pad, origin.y}, colour::dim_text, y.title);
    d->PushClipRect(a.min, a.max, true);
    return a;
}

void end_plot(const PlotArea& area) { area.draw->PopClipRect(); }

void polyline(const PlotArea& a, const std::vector<XY>& points, ImU32 colour, float thickness) {
    if (points.size() < 2) {
        if (points.size() == 1) a.draw->AddCircleFilled(a.at(points[0].x, points[0].y), thickness * 1.5f, colour);
        return;
    }
    std::vector<ImVec2> px;
    px.reserve(points.size());
    for (const XY& p : points) px.push_back(a.at(p.x, p.y));
    a.draw->AddPolyline(px.data(), static_cast<int>(px.size()), colour, ImDrawFlags_None, thickness);
}

void dashed_polyline(const PlotArea& a, const std::vector<XY>& points, ImU32 colour, float thickness, float dash) {
    // Walks the line and draws every other `dash` pixels of it.
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
    const ImVec2 c = a.at(x, y);
    ImDrawList* d = a.draw;
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

void key_line(const std::vector<KeyEntry>& entries) {
    const float h = ImGui::GetTextLineHeight();
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        // Wraps to a new line rather than running past the panel's edge.
        const float width = h * 0.75f + ImGui::CalcTextSize(entries[i].name).x;
        if (i) {
            ImGui::SameLine(0, h);
            if (ImGui::GetCursorScreenPos().x + width > right) ImGui::NewLine();
        }
        const ImVec2 p = ImGui::GetCursorScreenPos();
        ImGui::GetWindowDrawList()->AddRectFilled({p.x, p.y + h * 0.2f}, {p.x + h * 0.6f, p.y + h * 0.8f},
                                                  entries[i].colour);
        ImGui::Dummy({h * 0.75f, h});
        ImGui::SameLine(0, 0);
        ImGui::TextUnformatted(entries[i].name);
    }
}

int key_lines(const std::vector<KeyEntry>& entries, float width) {
    const float h = ImGui::GetTextLineHeight();
    int lines = 1;
    float x = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const float w = h * 0.75f + ImGui::CalcTextSize(entries[i].name).x;
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

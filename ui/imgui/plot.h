#pragma once
// The one place plots are drawn by hand on an ImDrawList (Debian has no
// ImPlot): a plot frame with its axes, grid, tick labels and titles, and the
// marks drawn in it (polylines, vertical bands, bars, event markers). The
// panels give it presenter output in data units; it maps to pixels.
#include <imgui.h>

#include <string>
#include <vector>

#include "ui/imgui/look.h"
#include "ui/present/axis_ticks.h"
#include "ui/present/plot_columns.h"

namespace plab::imgui {

// How an axis is labelled. Values are always in the axis's own units: a
// log axis is drawn in exponents (log2 |x|, log10 loss).
enum class AxisKind {
    steps,   // whole numbers, 1-2-5 intervals
    linear,  // 1-2-5 intervals, decimals as needed
    log2,    // whole binades, labelled "2^k"
    log10,   // whole decades, labelled "0.01", "1e-3"
    none,    // no labels (the panel labels it itself)
};

// A linear axis is widened to end on labelled ticks (ticked_range); every
// axis gets at least three labels where its length allows them.
struct Axis {
    double lo = 0, hi = 1;
    AxisKind kind = AxisKind::linear;
    const char* title = "";  // drawn under the x axis (wrapped when too long), or above the y axis's labels
    // Pixels kept clear inside the low and high ends: the range is widened
    // so that marks drawn at the data's ends (markers, labels) stay whole.
    float pad_lo = 0, pad_hi = 0;
};

// The inner rectangle of a plot and its data ranges.
struct PlotArea {
    ImVec2 min, max;  // pixels
    Axis x, y;
    ImDrawList* draw = nullptr;

    float px(double v) const;
    float py(double v) const;
    ImVec2 at(double xv, double yv) const { return {px(xv), py(yv)}; }
    double x_at(float pixel) const;  // the data x under a pixel column
    bool hovered() const;            // the mouse is inside
};

// The columns a presenter decimates a plotted line to in a plot `pixels`
// wide: one per line width (>= 16).
int line_columns(float pixels, const Look& look);

// Takes `size` (<= 0: the rest of the region in that direction) at the
// cursor as one ImGui item and draws the frame, the grid and the labels;
// the marks drawn until end_plot() are clipped to the inner rectangle.
PlotArea begin_plot(const char* id, ImVec2 size, const Axis& x, const Axis& y, const Look& look);
void end_plot(const PlotArea& area);

// A line decimated to pixel columns (column_polyline: each column's two
// extremes at its x, in pairs), `thickness` pixels wide.
void column_line(const PlotArea& a, const std::vector<XY>& columns, ImU32 colour, float thickness);
// A dashed polyline (test curves), dash and gap in pixels.
void dashed_polyline(const PlotArea& a, const std::vector<XY>& points, ImU32 colour, float thickness, float dash);
// The full height between x0 and x1 (format bands).
void x_band(const PlotArea& a, double x0, double x1, ImU32 fill);
// The full height between x0 and x1 crossed by diagonal lines `spacing`
// pixels apart (a band that must read apart from a plain one).
void hatched_x_band(const PlotArea& a, double x0, double x1, ImU32 line, float spacing, float thickness);
// A rectangle from y = 0 up (histogram bars).
void bar(const PlotArea& a, double x0, double x1, double top, ImU32 fill);

enum class MarkerShape { circle, square, triangle_up, triangle_down, diamond };
void marker(const PlotArea& a, double x, double y, MarkerShape shape, ImU32 colour, float half_size);
// The same shape at a point in pixels (the plot's marks and the colour key share it).
void draw_marker(ImDrawList* d, ImVec2 centre, MarkerShape shape, ImU32 colour, float half_size);

// What a key entry shows before its name: the mark as the plot draws it.
enum class KeySymbol { line, dashed_line, square, circle, triangle_up, triangle_down, diamond };

// One line of symbols with names ("— train AMP  — twin  ● overflow"), at the cursor.
struct KeyEntry {
    const char* name;
    ImU32 colour;
    KeySymbol symbol = KeySymbol::line;
};
void key_line(const std::vector<KeyEntry>& entries);
// How many lines key_line() takes in a region `width` pixels wide.
int key_lines(const std::vector<KeyEntry>& entries, float width);

// A tooltip of plain text (no format string).
void tooltip(const std::string& text);

}  // namespace plab::imgui

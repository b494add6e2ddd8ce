#pragma once
// What every chart panel shares: the palette of the current theme, chart and
// axis construction with fonts readable from across a room, and the transfer
// of presenter points into Qt series (one replace() per series and frame).
#include <QChart>
#include <QChartView>
#include <QColor>
#include <QLabel>
#include <QValueAxis>
#include <QXYSeries>
#include <vector>

#include "ui/present/plot_columns.h"

namespace plab::qt {

struct Theme {
    bool dark = false;
    QColor window, text, grid;
    QColor amp;       // the mixed-precision run
    QColor twin;      // the FP32 twin
    QColor fork;      // a fork of the run (a remedy, a what-if)
    QColor overflow;  // overflow + skipped step
    QColor backoff, growth, edit;
    double scale = 1;  // fonts and lines: 1, or kProjectorScale in projector mode
};

// Projector mode: every font and line this much larger, for a room's far rows.
inline constexpr double kProjectorScale = 1.5;

const Theme& theme();
void set_dark_theme(bool dark);  // applies the matching QPalette to the application too
// Scales fonts and lines for a projector (or back); the application's font
// too. Panels made afterwards take it: the window makes them again.
void set_projector(bool on);
bool projector();
double font_points(double points);  // a font size at the current scale
double line_width(double width);    // a pen width at the current scale

// A chart styled for the theme: no title (the dock says what it is), legend at the bottom.
QChart* make_chart();
QChartView* make_chart_view(QChart* chart, QWidget* parent);
QValueAxis* make_value_axis(const QString& title, QChart* chart, Qt::Alignment where);
// Any axis (value, log, category) in the theme's colours and the charts' one
// label and title size.
void style_axis(QAbstractAxis* axis, const QString& title);
// A step axis over [lo, hi]: ticks on whole steps at 1, 2 or 5 times a power
// of ten (at most 7, 4 on a projector), anchored at 0. Touches the axis only when the range or
// the interval changes (each change relayouts the chart).
void set_step_range(QValueAxis* x, double lo, double hi);
// An axis over [lo, hi] ticked at the multiples of `interval` (anchored at 0),
// labelled with the decimals the interval needs; touches the axis only where
// something changed. The presenters choose the interval (axis_ticks.h).
void set_ticked_range(QValueAxis* axis, double lo, double hi, double interval);

// The labels of the text panels (diagnosis, scenario): a bold heading and
// word-wrapped, selectable body text, in sizes readable from across a room.
QLabel* heading_label(QWidget* parent);
QLabel* body_label(QWidget* parent);
QFont body_font(QFont base);  // the body labels' size, for other text widgets
// `font` made smaller, in steps of 10%, until `text` fits `width` pixels, but
// no smaller than `least` of its size (the caller elides what still does
// not fit): a long title in a narrow place keeps its ends legible.
QFont fitted_font(QFont font, const QString& text, int width, double least = 2.0 / 3.0);
// The first of `titles` (longest first) that fits `room` pixels in the
// axis's title font, or none: a short plot keeps "distance" whole rather
// than showing "weight dis...". A vertical axis's room is its plot's height.
void fit_axis_title(QAbstractAxis* axis, const QStringList& titles, double room);
// How many labels a vertical axis in a plot this tall holds without Qt
// Charts eliding them to "...": a label's height and a gap each, at least 2.
int vertical_label_room(const QChart* chart, const QFont& labels);

void set_points(QXYSeries* series, const std::vector<XY>& points);
// Columns a plot in this view decimates its data to: one per two pixels (at least 16).
int plot_columns(const QChartView* view);

}  // namespace plab::qt

#include "ui/present/record_notes.h"
#include "ui/qt/decision_panel.h"

#include <QPainter>
#include <QVBoxLayout>
#include <array>

#include "ui/qt/chart_kit.h"

namespace plab::qt {

namespace {

// Ten hues that stay apart from each other on light and dark backgrounds
// (Tableau 10); classes past ten repeat them.
QColor class_colour(int label) {
    static const std::array<QColor, 10> hues = {
        QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0x59, 0xa1, 0x4f), QColor(0xe1, 0x57, 0x59),
        QColor(0x76, 0xb7, 0xb2), QColor(0xed, 0xc9, 0x48), QColor(0xb0, 0x7a, 0xa1), QColor(0xff, 0x9d, 0xa7),
        QColor(0x9c, 0x75, 0x5f), QColor(0xba, 0xb0, 0xac)};
    return hues[static_cast<std::size_t>(label) % hues.size()];
}

// `weight` of `c` over the background.
QRgb mix(const QColor& background, const QColor& c, double weight) {
    auto channel = [weight](int b, int f) { return static_cast<int>(b + (f - b) * weight + 0.5); };
    return qRgb(channel(background.red(), c.red()), channel(background.green(), c.green()),
                channel(background.blue(), c.blue()));
}

// Cells of the grid into an image, the plane's bottom row (row 0) at the
// image's bottom.
template <typename CellColour>
QImage grid_image(int resolution, CellColour colour) {
    QImage image(resolution, resolution, QImage::Format_RGB32);
    for (int row = 0; row < resolution; ++row) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(resolution - 1 - row));
        for (int col = 0; col < resolution; ++col)
            line[col] = colour(static_cast<std::size_t>(row) * static_cast<std::size_t>(resolution) +
                               static_cast<std::size_t>(col));
    }
    return image;
}

// A class map: the class's hue, stronger where the model is surer.
QImage class_image(const DecisionMap& map, int resolution) {
    const QColor background = theme().window;
    return grid_image(resolution, [&](std::size_t cell) {
        return mix(background, class_colour(map.classes[cell]), 0.30 + 0.55 * map.shade[cell]);
    });
}

// Where the classes differ in the theme's text colour; elsewhere the twin's
// class, faint, so the differences can be placed on the boundary.
QImage difference_image(const DecisionView& v) {
    const Theme& t = theme();
    return grid_image(v.resolution, [&](std::size_t cell) {
        return v.differ[cell] ? t.text.rgb() : mix(t.window, class_colour(v.twin.classes[cell]), 0.18);
    });
}

QFont sized_font(const QFont& base, double points, bool bold = false) {
    QFont f = base;
    f.setPointSizeF(font_points(points));
    f.setBold(bold);
    return f;
}

// The height of a map's title line.
int title_height(const QFont& base) { return QFontMetrics(sized_font(base, 12, true)).height() + 6; }

}  // namespace

// One square map under its title, the test points over it; or, with no
// image, the title and a note in the middle.
class DecisionMapView : public QWidget {
public:
    explicit DecisionMapView(QWidget* parent) : QWidget(parent) { setMinimumSize(160, 180); }

    // `smooth`: scale the image smoothly (class maps: the boundary reads as a
    // curve) or by nearest cell (the difference: every differing cell crisp).
    void set_map(QString title, QImage image, std::vector<DecisionPoint> points, bool smooth, QString note = {}) {
        smooth_ = smooth;
        title_ = std::move(title);
        image_ = std::move(image);
        points_ = std::move(points);
        note_ = std::move(note);
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        const Theme& t = theme();
        p.fillRect(rect(), t.window);
        p.setPen(t.text);
        const int title_h = title_height(font());
        draw_title(p, QRect(0, 0, width(), title_h));
        const int side = std::max(10, std::min(width() - 8, height() - title_h - 4));
        const QRect square((width() - side) / 2, title_h, side, side);
        p.setPen(QPen(t.grid, line_width(1)));
        p.drawRect(square.adjusted(0, 0, -1, -1));
        if (image_.isNull()) {
            p.setFont(sized_font(font(), 11));
            p.setPen(t.text);
            p.drawText(square.adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, note_);
            return;
        }
        const QRect inner = square.adjusted(1, 1, -1, -1);
        p.setRenderHint(QPainter::SmoothPixmapTransform, smooth_);
        p.drawImage(inner, image_);
        draw_points(p, inner);
    }

private:
    // Three maps abreast leave a title a third of the panel: a long one
    // ("AMP (amp-fp16) · step 1200", in projector mode) takes a smaller font
    // rather than losing its ends; past that, its middle gives way.
    void draw_title(QPainter& p, const QRect& line) const {
        const int room = line.width() - 4;
        const QFont f = fitted_font(sized_font(font(), 12, true), title_, room);
        p.setFont(f);
        p.drawText(line, Qt::AlignCenter, QFontMetrics(f).elidedText(title_, Qt::ElideMiddle, room));
    }

    // Dots filled with their label's hue and ringed in the text colour
    // (dark on light, light on dark), so they stand out on their own class.
    void draw_points(QPainter& p, const QRect& area) const {
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(QPen(theme().text, line_width(1)));
        const double r = std::clamp(area.width() / 120.0, 2.0, 4.0);
        for (const DecisionPoint& d : points_) {
            p.setBrush(class_colour(d.label));
            const QPointF centre(area.left() + d.u * area.width(), area.bottom() + 1 - d.v * area.height());
            p.drawEllipse(centre, r, r);
        }
    }

    bool smooth_ = true;
    QString title_;
    QString note_;
    QImage image_;
    std::vector<DecisionPoint> points_;
};

// The three maps in whichever arrangement gives them the largest squares
// (a row, two columns, or a column), with the summary right under them and
// the whole block centred: in a tall dock the maps grow into the height; in
// a wide, short one (the squares bound by the width) the rest of the height
// is split above and below instead of lying between the maps and their key.
class MapsGrid : public QWidget {
public:
    explicit MapsGrid(QWidget* parent) : QWidget(parent) { setMinimumSize(176, 240); }  // one map in a column
    void set_contents(std::array<DecisionMapView*, 3> maps, QLabel* summary) {
        maps_ = maps;
        summary_ = summary;
    }
    void arrange() {
        const int title = title_height(font());
        const int below = summary_->heightForWidth(width()) + kGap;
        int cols = 3;
        for (int c : {2, 1})
            if (side_for(c, title, below) > side_for(cols, title, below)) cols = c;
        const int side = std::max(10, side_for(cols, title, below));
        const int rows = (kMaps + cols - 1) / cols;
        const QSize cell(side + 8, side + title + 4);
        const int maps_h = rows * cell.height() + (rows - 1) * kGap;
        const int top = std::max(0, (height() - maps_h - below) / 2);
        for (int i = 0; i < kMaps; ++i) {
            const int row = i / cols;
            const int in_row = std::min(cols, kMaps - row * cols);
            const int left = (width() - (in_row * cell.width() + (in_row - 1) * kGap)) / 2;
            maps_[static_cast<std::size_t>(i)]->setGeometry(left + (i % cols) * (cell.width() + kGap),
                                                            top + row * (cell.height() + kGap), cell.width(),
                                                            cell.height());
        }
        summary_->setGeometry(0, top + maps_h + kGap, width(), below - kGap);
    }

protected:
    void resizeEvent(QResizeEvent*) override { arrange(); }

private:
    static constexpr int kGap = 8;
    static constexpr int kMaps = 3;

    // The side of the squares with `cols` maps a row (a map's cell holds its
    // square plus 8 pixels across and its title and 4 pixels down), `below`
    // pixels kept for the summary.
    int side_for(int cols, int title, int below) const {
        const int rows = (kMaps + cols - 1) / cols;
        const int cell_w = (width() - (cols - 1) * kGap) / cols;
        const int cell_h = (height() - below - (rows - 1) * kGap) / rows;
        return std::min(cell_w - 8, cell_h - title - 4);
    }

    std::array<DecisionMapView*, kMaps> maps_{};
    QLabel* summary_ = nullptr;
};

DecisionPanel::DecisionPanel(int boundary_every, QWidget* parent)
    : Panel("decision", "Decision boundary", parent), boundary_every_(boundary_every) {
    const Theme& t = theme();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    stack_ = new QStackedWidget(this);
    layout->addWidget(stack_);

    message_ = new QLabel(stack_);
    message_->setAlignment(Qt::AlignCenter);
    message_->setWordWrap(true);
    message_->setFont(sized_font(message_->font(), 13));
    stack_->addWidget(message_);

    auto* page = new QWidget(stack_);
    auto* v = new QVBoxLayout(page);
    v->setContentsMargins(0, 0, 0, 0);
    maps_ = new MapsGrid(page);
    amp_ = new DecisionMapView(maps_);
    twin_ = new DecisionMapView(maps_);
    difference_ = new DecisionMapView(maps_);
    v->addWidget(maps_, 1);
    summary_ = new QLabel(maps_);
    summary_->setAlignment(Qt::AlignCenter);
    summary_->setWordWrap(true);
    summary_->setFont(sized_font(summary_->font(), 12));
    summary_->setTextFormat(Qt::RichText);
    maps_->set_contents({amp_, twin_, difference_}, summary_);
    stack_->addWidget(page);

    QPalette pal = palette();
    pal.setColor(QPalette::Window, t.window);
    pal.setColor(QPalette::WindowText, t.text);
    setPalette(pal);
    setAutoFillBackground(true);
    show_message("No run yet");
}

void DecisionPanel::show_snapshot(const SessionSnapshot& snapshot) {
    if (!snapshot.main.config) {
        show_message("No run yet");
        return;
    }
    if (snapshot.record) {
        show_message(QString::fromStdString(record_gap_text(RecordGap::decision, *snapshot.record)));
        return;
    }
    std::shared_ptr<const DecisionGrid> grid = latest_boundary(snapshot.main.log);
    const std::string why = decision_placeholder(*snapshot.main.config, grid.get(), boundary_every_);
    if (!why.empty()) {
        show_message(QString::fromStdString(why));
        return;
    }
    stack_->setCurrentIndex(1);
    if (grid == shown_) return;
    shown_ = grid;
    show_view(make_decision_view(*grid, snapshot.main.config->precision.recipe));
}

void DecisionPanel::show_message(const QString& text) {
    shown_.reset();
    message_->setText(text);
    stack_->setCurrentIndex(0);
}

void DecisionPanel::show_view(const DecisionView& view) {
    amp_->set_map(QString::fromStdString(view.amp.title), class_image(view.amp, view.resolution), view.points, true);
    if (view.has_twin) {
        twin_->set_map(QString::fromStdString(view.twin.title), class_image(view.twin, view.resolution), view.points, true);
        difference_->set_map(QString::fromStdString(view.difference_title), difference_image(view), view.points, false);
    } else {
        twin_->set_map("FP32 twin", {}, {}, false, "This run has no FP32 twin");
        difference_->set_map(QString::fromStdString(view.difference_title), {}, {}, false, "Nothing to compare");
    }
    const Theme& t = theme();
    QString key;
    for (int c = 0; c < view.classes; ++c)
        key += QString("<span style='color:%1'>&#9632;</span> class %2 &nbsp; ").arg(class_colour(c).name()).arg(c);
    if (view.has_twin) key += QString("<span style='color:%1'>&#9632;</span> classes differ").arg(t.text.name());
    summary_->setText(QString::fromStdString(view.summary).toHtmlEscaped() + "<br><small>" + key + "</small>");
    maps_->arrange();  // the summary's height may have changed
}

}  // namespace plab::qt

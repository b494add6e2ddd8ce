#include "ui/qt/events_panel.h"

#include <QAbstractTableModel>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QPainter>
#include <QPixmap>
#include <QVBoxLayout>

#include "ui/qt/chart_kit.h"

namespace plab::qt {

namespace {

enum Column { kStepColumn, kEventColumn, kDetailColumn, kColumns };

QColor kind_colour(EventKind k) {
    const Theme& t = theme();
    switch (k) {
        case EventKind::overflow: return t.overflow;
        case EventKind::backoff: return t.backoff;
        case EventKind::growth: return t.growth;
        case EventKind::edit: return t.edit;
        case EventKind::nonfinite: return t.overflow.darker(170);  // the worst news: darker than an overflow
    }
    return t.text;
}

// The kind's colour, faint enough to read text over in either theme.
QColor kind_tint(EventKind k) {
    QColor c = kind_colour(k);
    c.setAlphaF(theme().dark ? 0.38 : 0.22);
    return c;
}

QPixmap swatch(const QColor& colour, bool filled = true) {
    QPixmap p(14, 14);
    p.fill(Qt::transparent);
    QPainter painter(&p);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setBrush(filled ? QBrush(colour) : QBrush(Qt::NoBrush));
    painter.setPen(filled ? QPen(Qt::NoPen) : QPen(colour, line_width(2)));
    painter.drawRoundedRect(QRectF(1.5, 1.5, 11, 11), 3, 3);
    return p;
}

QString text_of(const std::string& s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

constexpr double kFontPoints = 11.5;

}  // namespace

// The rows of the latest EventTable, read by the view for the rows on screen
// only: a reset costs nothing per row, however many there are.
class EventTableModel : public QAbstractTableModel {
public:
    using QAbstractTableModel::QAbstractTableModel;

    void set_rows(const std::vector<EventRow>* rows) {
        beginResetModel();
        rows_ = rows;
        endResetModel();
    }

    int rowCount(const QModelIndex& parent) const override {
        return parent.isValid() || rows_ == nullptr ? 0 : static_cast<int>(rows_->size());
    }
    int columnCount(const QModelIndex& parent) const override { return parent.isValid() ? 0 : kColumns; }

    QVariant data(const QModelIndex& index, int role) const override {
        if (!index.isValid() || rows_ == nullptr) return {};
        const EventRow& row = (*rows_)[static_cast<std::size_t>(index.row())];
        const int column = index.column();
        switch (role) {
            case Qt::DisplayRole:
                return column == kStepColumn    ? text_of(row.step_text)
                       : column == kEventColumn ? text_of(row.event)
                                                : text_of(row.detail);
            case Qt::DecorationRole:
                return column == kEventColumn ? QVariant(kind_colour(row.kind)) : QVariant();
            case Qt::BackgroundRole:
                return column == kEventColumn ? QVariant(kind_tint(row.kind)) : QVariant();
            case Qt::TextAlignmentRole:
                return column == kStepColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                             : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
            case Qt::FontRole: {
                if (!row.from_series) return {};
                QFont f;
                f.setPointSizeF(font_points(kFontPoints));
                f.setItalic(true);
                return f;
            }
            case Qt::ToolTipRole: return tooltip(row);
            default: return {};
        }
    }

    QVariant headerData(int section, Qt::Orientation orientation, int role) const override {
        if (orientation != Qt::Horizontal) return {};
        if (role == Qt::TextAlignmentRole)  // over the numbers, which line up on the right
            return section == kStepColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                          : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
        if (role != Qt::DisplayRole) return {};
        const char* names[kColumns] = {"step", "event", "detail"};
        return QString(names[section]);
    }

private:
    static QString tooltip(const EventRow& row) {
        QString tip = text_of(row.event) + (row.detail.empty() ? "" : ": " + text_of(row.detail));
        if (row.kind == EventKind::edit)
            tip += row.step == 0 ? "\nmade before the first step"
                                 : QString("\nmade after step %1, acts from step %2 on").arg(row.step).arg(row.step + 1);
        if (row.from_series)
            tip += "\nsummed over these steps: their full records have left the recent window";
        return tip + "\nclick: jump to step " + QString::number(row.step);
    }

    const std::vector<EventRow>* rows_ = nullptr;
};

EventsPanel::EventsPanel(JumpTo jump, QWidget* parent) : Panel("events", "Events", parent), jump_(std::move(jump)) {
    QFont font = this->font();
    font.setPointSizeF(font_points(kFontPoints));
    setFont(font);

    summary_ = new QLabel("no steps yet", this);
    summary_->setTextFormat(Qt::PlainText);
    summary_->setWordWrap(true);

    model_ = new EventTableModel(this);
    table_ = new QTableView(this);
    table_->setModel(model_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setAlternatingRowColors(true);
    table_->setShowGrid(false);
    table_->setWordWrap(false);
    table_->setTextElideMode(Qt::ElideRight);
    table_->verticalHeader()->hide();
    // Fixed row heights: the view never measures 2000 rows.
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->verticalHeader()->setDefaultSectionSize(QFontMetrics(font).height() + 8);
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(kStepColumn, QHeaderView::Interactive);
    header->setSectionResizeMode(kEventColumn, QHeaderView::Interactive);
    header->setStretchLastSection(true);
    header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    const QFontMetrics metrics(font);
    table_->setColumnWidth(kStepColumn, metrics.horizontalAdvance("00000-00000") + 16);
    table_->setColumnWidth(kEventColumn, metrics.horizontalAdvance("000 non-finite losses") + 34);
    connect(table_, &QTableView::clicked, this, [this](const QModelIndex& i) { row_clicked(i.row()); });
    connect(table_, &QTableView::activated, this, [this](const QModelIndex& i) { row_clicked(i.row()); });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(summary_);
    layout->addWidget(make_filters());
    layout->addWidget(table_, 1);
    show_summary();
}

QWidget* EventsPanel::make_filters() {
    auto* box = new QWidget(this);
    auto* row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    for (EventKind k : kEventKindList) {
        auto* check = new QCheckBox(text_of(std::string(event_kind_name(k))), box);
        check->setChecked(true);
        check->setIcon(swatch(kind_colour(k)));
        // A kind left out shows a hollow swatch: the tick alone is easy to miss on a dark theme.
        connect(check, &QCheckBox::toggled, this, [this, k, check](bool on) {
            check->setIcon(swatch(kind_colour(k), on));
            kinds_ = on ? kinds_ | event_bit(k) : kinds_ & ~event_bit(k);
            rebuild();
        });
        boxes_[static_cast<std::size_t>(k)] = check;
        row->addWidget(check);
    }
    row->addStretch(1);
    return box;
}

EventsPanel::LogKey EventsPanel::key_of(const RunLogView& log) {
    LogKey k;
    k.steps = log.totals.steps;
    k.overflows = log.totals.overflows;
    k.backoffs = log.totals.backoffs;
    k.growths = log.totals.growths;
    k.first_recent = log.recent.empty() ? 0 : log.recent.front()->step;
    k.edits = log.edits.size();
    return k;
}

void EventsPanel::show_snapshot(const SessionSnapshot& snapshot) {
    const RunView& run = snapshot.main;
    const LogKey key = key_of(run.log);
    if (key == key_ && run.config) return;
    key_ = key;
    log_ = run.log;
    layer_names_ = run.layer_names;
    rebuild();
}

void EventsPanel::rebuild() {
    // A row the person selected stays selected (found again by kind, step and
    // detail) as newer rows come in above it.
    const QModelIndexList chosen = table_->selectionModel()->selectedRows();
    const bool had = !chosen.isEmpty() && static_cast<std::size_t>(chosen.front().row()) < shown_.rows.size();
    const EventRow selected = had ? shown_.rows[static_cast<std::size_t>(chosen.front().row())] : EventRow{};

    shown_ = make_event_table(log_, layer_names_, kMaxRows, kinds_);
    model_->set_rows(&shown_.rows);
    show_summary();
    if (!had) return;
    for (std::size_t i = 0; i < shown_.rows.size(); ++i) {
        const EventRow& r = shown_.rows[i];
        if (r.kind != selected.kind || r.step != selected.step || r.detail != selected.detail) continue;
        table_->selectRow(static_cast<int>(i));
        break;
    }
}

void EventsPanel::show_summary() {
    for (EventKind k : kEventKindList) {
        const std::size_t i = static_cast<std::size_t>(k);
        // The counts stay in the summary line: in the labels they would widen the dock past what it can give.
        const char* where = k == EventKind::nonfinite ? "among the recent records" : "in this run";
        boxes_[i]->setToolTip(QString("show %1 rows (%2 %3)")
                                  .arg(text_of(std::string(event_kind_name(k))))
                                  .arg(shown_.counts[i])
                                  .arg(where));
    }
    QString text = text_of(shown_.summary);
    if (shown_.matching > shown_.rows.size())
        text += QString(" · showing the newest %1 of %2 rows").arg(shown_.rows.size()).arg(shown_.matching);
    // Lines break between the items only, never inside "first non-finite at step 1".
    QStringList items = text.split(" · ");
    for (QString& item : items) {
        item.replace(' ', QChar(0x00A0));   // no-break space
        item.replace('-', QChar(0x2011));   // no-break hyphen: Qt breaks after a plain one even in <nobr>
    }
    text = items.join(" · ");
    summary_->setText(text);
}

void EventsPanel::row_clicked(int row) {
    if (row < 0 || static_cast<std::size_t>(row) >= shown_.rows.size() || !jump_) return;
    jump_(shown_.rows[static_cast<std::size_t>(row)].step);
}

}  // namespace plab::qt

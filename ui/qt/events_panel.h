#pragma once
// Panel 8, events: the run's overflows, backoffs, growths, live edits and
// non-finite losses as a table, newest first (ui/present/event_table.h makes
// the rows). Checkboxes filter by kind; clicking a row jumps to its step.
#include <QCheckBox>
#include <QLabel>
#include <QTableView>
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ui/present/event_table.h"
#include "ui/qt/panel.h"

namespace plab::qt {

class EventTableModel;

class EventsPanel : public Panel {
public:
    using JumpTo = std::function<void(std::int64_t step)>;
    // Rows shown at most: the newest, of the kinds ticked.
    static constexpr std::size_t kMaxRows = 2000;

    explicit EventsPanel(JumpTo jump = {}, QWidget* parent = nullptr);

    void show_snapshot(const SessionSnapshot& snapshot) override;

    // For tests and the window: what the table shows now.
    QTableView* table() const { return table_; }
    QCheckBox* kind_box(EventKind k) const { return boxes_[static_cast<std::size_t>(k)]; }
    const EventTable& shown() const { return shown_; }

private:
    // What the rows depend on: the table is rebuilt only when one of these moves.
    struct LogKey {
        std::int64_t steps = -1, overflows = 0, backoffs = 0, growths = 0, first_recent = 0;
        std::size_t edits = 0;
        bool operator==(const LogKey&) const = default;
    };
    static LogKey key_of(const RunLogView& log);

    QWidget* make_filters();
    void rebuild();
    void show_summary();
    void row_clicked(int row);

    JumpTo jump_;
    QLabel* summary_ = nullptr;
    std::array<QCheckBox*, kEventKindCount> boxes_{};
    QTableView* table_ = nullptr;
    EventTableModel* model_ = nullptr;
    RunLogView log_;  // the log the table was built from: a filter change rebuilds from it
    std::vector<std::string> layer_names_;
    LogKey key_;
    EventKindMask kinds_ = kAllEventKinds;
    EventTable shown_;
};

}  // namespace plab::qt

#pragma once
// A workbench panel: a widget that draws what its presenter makes of the
// latest session snapshot. Panels never talk to the engine directly; edits go
// out through the callbacks the main window gives them.
#include <QString>
#include <QWidget>

#include "engine/train/session.h"

namespace plab::qt {

class Panel : public QWidget {
public:
    Panel(QString id, QString title, QWidget* parent = nullptr)
        : QWidget(parent), id_(std::move(id)), title_(std::move(title)) {}

    // "bits", "histograms", ...: what --panel takes and QSettings keys use.
    const QString& id() const { return id_; }
    const QString& title() const { return title_; }

    // Called on the UI thread at most once a frame, only when the snapshot changed.
    virtual void show_snapshot(const SessionSnapshot& snapshot) = 0;

private:
    QString id_;
    QString title_;
};

}  // namespace plab::qt

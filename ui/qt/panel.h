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

    // Before a screenshot: finishes work the panel does on its own (the
    // sweep's runs), so the image shows its result rather than its start.
    virtual void settle_for_screenshot() {}

    // Whether the run is moving (playing, or stepping at a pace): a chart may
    // then move its axes in steps rather than every frame (steady_axis.h);
    // at rest it shows the data's exact ranges. Set before show_snapshot.
    bool live() const { return live_; }
    void set_live(bool live) { live_ = live; }

private:
    bool live_ = false;
    QString id_;
    QString title_;
};

}  // namespace plab::qt

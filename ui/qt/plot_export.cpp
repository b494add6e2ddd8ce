#include "ui/qt/plot_export.h"

#include <QFileInfo>
#include <QPainter>
#include <QPixmap>
#include <QSaveFile>
#include <QSvgGenerator>

namespace plab::qt {

namespace {

bool save_svg(QWidget* widget, QSaveFile& file) {
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(widget->size());
    svg.setViewBox(widget->rect());
    svg.setTitle(widget->windowTitle());
    QPainter painter;
    if (!painter.begin(&svg)) return false;
    widget->render(&painter);
    return painter.end() && file.size() > 0;
}

}  // namespace

QString save_widget_image(QWidget* widget, const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != "png" && suffix != "svg") return "Cannot save " + path + ": the name must end in .png or .svg.";
    // Written to a temporary file beside it and renamed when complete: a full
    // disk or an error never leaves a truncated image under the name.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return "Cannot write " + path + ": is the folder there and writable?";
    const bool ok = suffix == "svg" ? save_svg(widget, file) : widget->grab().save(&file, "PNG");
    if (!ok || !file.commit()) return "Cannot write " + path + ": " + file.errorString();
    return {};
}

}  // namespace plab::qt

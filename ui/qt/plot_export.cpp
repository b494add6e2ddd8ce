#include "ui/qt/plot_export.h"

#include <QFileInfo>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>

namespace plab::qt {

namespace {

bool save_svg(QWidget* widget, const QString& path) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(widget->size());
    svg.setViewBox(widget->rect());
    svg.setTitle(widget->windowTitle());
    QPainter painter;
    if (!painter.begin(&svg)) return false;
    widget->render(&painter);
    return painter.end() && QFileInfo(path).size() > 0;
}

}  // namespace

QString save_widget_image(QWidget* widget, const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != "png" && suffix != "svg") return "Cannot save " + path + ": the name must end in .png or .svg.";
    const bool ok = suffix == "svg" ? save_svg(widget, path) : widget->grab().save(path, "PNG");
    if (!ok) return "Cannot write " + path + ": is the folder there and writable?";
    return {};
}

}  // namespace plab::qt

#pragma once
// Saving what a panel shows: PNG (a pixel grab) or SVG (the panel painted
// into a vector drawing), picked by the file's extension.
#include <QString>
#include <QWidget>

namespace plab::qt {

// Returns "" on success, else why not (naming the path).
QString save_widget_image(QWidget* widget, const QString& path);

}  // namespace plab::qt

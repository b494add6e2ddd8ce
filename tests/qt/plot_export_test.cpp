// Exporting a plot: PNG and SVG files that hold the panel, and a clear
// refusal for a bad name or an unwritable folder.
#include <gtest/gtest.h>

#include <QFile>
#include <QImage>
#include <QLabel>
#include <filesystem>

#include "ui/qt/plot_export.h"
#include "temp_path.h"

namespace {

std::string temp(const char* name) {
    const std::filesystem::path file(name);
    return plab::testing_support::temp_path(file.stem().string(), file.extension().string()).string();
}

TEST(PlotExport, PngHoldsThePanelPixels) {
    QLabel label("Precision Lab");
    label.resize(240, 80);
    const QString path = QString::fromStdString(temp("plab-plot.png"));
    ASSERT_EQ(plab::qt::save_widget_image(&label, path), "");
    QImage image(path);
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.width(), 240 * static_cast<int>(label.devicePixelRatioF()));
    EXPECT_EQ(image.height(), 80 * static_cast<int>(label.devicePixelRatioF()));
}

TEST(PlotExport, SvgIsAVectorDrawingOfThePanel) {
    QLabel label("Precision Lab");
    label.resize(240, 80);
    const QString path = QString::fromStdString(temp("plab-plot.svg"));
    ASSERT_EQ(plab::qt::save_widget_image(&label, path), "");
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const QByteArray svg = f.readAll();
    EXPECT_TRUE(svg.contains("<svg"));
    EXPECT_TRUE(svg.contains("viewBox=\"0 0 240 80\"")) << svg.left(600).toStdString();
}

TEST(PlotExport, BadNameAndUnwritableFolderAreRefusedWithThePath) {
    QLabel label("x");
    EXPECT_EQ(plab::qt::save_widget_image(&label, "/tmp/plot.bmpx"),
              "Cannot save /tmp/plot.bmpx: the name must end in .png or .svg.");
    EXPECT_EQ(plab::qt::save_widget_image(&label, "/nonexistent-dir/plot.png"),
              "Cannot write /nonexistent-dir/plot.png: is the folder there and writable?");
}

}  // namespace

// The window opens with the focus on itself: the first Space plays instead of
// being typed into a field.
#include <gtest/gtest.h>

#include <QApplication>
#include <QLineEdit>
#include <QTest>

#include "ui/qt/main_window.h"

namespace {

TEST(StartFocus, TheFirstSpacePlays) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    window.show();
    window.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
    EXPECT_EQ(QApplication::focusWidget(), &window);
    EXPECT_EQ(qobject_cast<QLineEdit*>(QApplication::focusWidget()), nullptr);

    plab::Session& session = window.session();
    QTest::keyClick(&window, Qt::Key_Space);
    const bool trained = QTest::qWaitFor([&] { return session.snapshot()->step > 0; }, 5000);
    session.pause();
    session.wait_until_idle();
    EXPECT_TRUE(trained);
    for (QLineEdit* field : window.findChildren<QLineEdit*>())
        EXPECT_FALSE(field->text().contains(' ')) << field->objectName().toStdString();
}

}  // namespace

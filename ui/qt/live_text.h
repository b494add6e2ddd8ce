#pragma once
// Text that changes every frame: a panel's summary, a caption, a counter,
// the status line. A QLabel asks its window for a new layout at every change
// of text (the whole workbench is laid out again: every dock, every label's
// size) and lays rich text out as a document, several times over: together a
// few milliseconds a frame. LiveText draws plain text, with an optional bold
// lead-in, on one line or word-wrapped to its width, and asks for a new layout
// only when the text no longer fits as laid out (a longer line, a line more
// or fewer); any other change is one repaint.
#include <QString>
#include <QTextLayout>
#include <QWidget>

namespace plab::qt {

class LiveText : public QWidget {
    Q_OBJECT  // findChildren<LiveText*> and qobject_cast tell it from other widgets

public:
    enum class Wrap { none, words };
    explicit LiveText(Wrap wrap, QWidget* parent = nullptr);

    // `lead` is drawn first, in bold (e.g. what a caption is about), `text` after it.
    void set_text(const QString& text, const QString& lead = {});
    // All of it, lead first.
    QString text() const { return lead_ + text_; }
    // The colour of the text (the palette's window text by default).
    void set_colour(const QColor& colour);
    // A "Copy" context menu that puts the text on the clipboard (it cannot be
    // selected as a label's can: it changes every frame anyway).
    void add_copy_action();

    bool hasHeightForWidth() const override { return wrap_ == Wrap::words; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    // Lays the text out at `width` (one line: however wide); returns its size.
    QSizeF lay_out(QTextLayout& layout, int width) const;
    // The text laid out at the widget's width, kept from set_text to paint (shaping is most of the cost).
    const QTextLayout& laid_out();
    QSize one_line_size() const;
    bool fits();

    Wrap wrap_;
    QString lead_;
    QString text_;
    QTextLayout layout_;
    QSizeF layout_size_;
    int layout_width_ = -1;  // the width layout_ was made for; -1: none
};

}  // namespace plab::qt

#include "ui/qt/layer_combo.h"

#include <QSignalBlocker>
#include <QStandardItemModel>
#include <QStylePainter>

namespace plab::qt {

namespace {

constexpr int kLayerRole = Qt::UserRole;
constexpr int kNameRole = Qt::UserRole + 1;

}  // namespace

LayerCombo::LayerCombo(QWidget* parent) : QComboBox(parent) {
    // Wide enough for "h11.attn.proj" without resizing as entries come and go.
    setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    setMinimumContentsLength(14);
    setMaxVisibleItems(24);
}

void LayerCombo::show_chooser(const LayerChooser& chooser, std::size_t want) {
    const QSignalBlocker quiet(this);
    clear();
    auto* items = qobject_cast<QStandardItemModel*>(model());
    for (const LayerEntry& e : chooser.entries) {
        addItem(QString::fromStdString(e.text), QVariant::fromValue<qulonglong>(e.layer));
        const int row = count() - 1;
        setItemData(row, QString::fromStdString(e.name), kNameRole);
        if (!e.header) continue;
        QStandardItem* item = items->item(row);
        item->setFlags(item->flags() & ~(Qt::ItemIsSelectable | Qt::ItemIsEnabled));
        QFont bold = font();
        bold.setBold(true);
        item->setFont(bold);
    }
    setCurrentIndex(chosen_entry(chooser, want));
}

std::optional<std::size_t> LayerCombo::chosen() const {
    if (currentIndex() < 0) return std::nullopt;
    return static_cast<std::size_t>(currentData(kLayerRole).toULongLong());
}

// QComboBox draws the chosen item's text; an indented "attn.q" would not say which block it is in.
void LayerCombo::paintEvent(QPaintEvent*) {
    QStylePainter painter(this);
    QStyleOptionComboBox option;
    initStyleOption(&option);
    option.currentText = currentData(kNameRole).toString();
    painter.drawComplexControl(QStyle::CC_ComboBox, option);
    painter.drawControl(QStyle::CE_ComboBoxLabel, option);
}

}  // namespace plab::qt

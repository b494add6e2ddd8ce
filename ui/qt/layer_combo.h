#pragma once
// A layer chooser as a combo box (ui/present/layer_chooser): block names as
// bold headers that cannot be chosen, their layers indented under them, and
// the chosen layer shown by its full name ("h1.attn.q", not "attn.q") while
// the box is closed.
#include <QComboBox>
#include <optional>

#include "ui/present/layer_chooser.h"

namespace plab::qt {

class LayerCombo : public QComboBox {
public:
    explicit LayerCombo(QWidget* parent = nullptr);
    // Fills the box with the chooser's entries, the one for `want` chosen
    // (chosen_entry); emits no signal.
    void show_chooser(const LayerChooser& chooser, std::size_t want);
    // What the chosen entry shows (a layer's index, or kAllLayers); none while the box is empty.
    std::optional<std::size_t> chosen() const;

protected:
    void paintEvent(QPaintEvent* event) override;
};

}  // namespace plab::qt

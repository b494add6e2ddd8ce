#pragma once
// The bit layout of one value in every format (ui/present/bit_layout): sign,
// exponent and mantissa cells, each a button that flips its bit, and under
// each format what the bits mean (value, code, class, error, overflow or
// flush to zero). The value is typed, or comes from a histogram bar.
#include "ui/imgui/panel.h"

namespace plab::imgui {

class BitsPanel {
public:
    BitsPanel();
    void draw(const Look& look);
    void set_value(float x);

private:
    float value_ = 0.1f;
    char input_[64] = {};
    std::string error_;
};

}  // namespace plab::imgui

#pragma once
// The grid of small charts, one per layer (the histogram panel's "all
// layers"): how many side by side, so that 3 layers sit in a row and 60 in
// ten rows of six rather than in twenty rows of three, each too flat to read.
#include <cstddef>

namespace plab {

// Columns for `charts` small charts: all in one row up to three, else about
// square (4 in two by two, 13 in rows of four), never more than six.
int small_multiple_columns(std::size_t charts);

}  // namespace plab

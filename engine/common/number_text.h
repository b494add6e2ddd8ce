#pragma once
// Numbers as text for people: the shortest decimal that reads back to the
// same value, and powers of two written as such.
#include <cstddef>
#include <cstdint>
#include <string>

namespace plab {

std::string shortest_text(float x);   // "0.1", "65504", "inf", "-inf", "nan"
std::string shortest_text(double x);  // "0.0999755859375"
// x to `digits` significant digits, "%g" style: "2.442e-05", "inf"; every
// NaN is "nan", as the records write it (a sign on a NaN is no number's).
std::string significant_text(double x, int digits);
// "2^-14" when x is a power of two, else shortest_text(x); the float one
// writes an FP32 value as FP32 (3e+38, not 3.0000000054977558e+38).
std::string power_of_two_text(double x);
std::string power_of_two_text(float x);
// A count in groups of three digits: 335141888 -> "335,141,888".
std::string grouped_text(std::int64_t n);
// A byte count in MiB with one decimal: "512.0".
std::string mib_text(std::size_t bytes);
// A byte count in decimal units, as memory figures are quoted in articles
// and on spec sheets: "9.36 GB", "412.50 MB", "3.1 kB", "96 B".
std::string decimal_bytes_text(double bytes);

}  // namespace plab

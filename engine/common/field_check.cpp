#include "engine/common/field_check.h"

#include <cmath>
#include <string>

#include "engine/common/error.h"
#include "engine/common/number_text.h"

namespace plab {

void reject_field(std::string_view path, std::string_view value, std::string_view allowed) {
    throw Error(std::string(path) + ": " + std::string(value) + " is out of range; allowed " + std::string(allowed));
}

void check_int_field(std::string_view path, long long x, long long lo, long long hi) {
    if (x < lo || x > hi) reject_field(path, std::to_string(x), std::to_string(lo) + ".." + std::to_string(hi));
}

std::string shortest_number(double x) { return shortest_text(x); }
std::string shortest_number(float x) { return shortest_text(x); }

void check_number_field(std::string_view path, double x, bool ok, std::string_view allowed) {
    if (!ok || std::isnan(x)) reject_field(path, shortest_text(x), allowed);
}

void check_number_field(std::string_view path, float x, bool ok, std::string_view allowed) {
    if (!ok || std::isnan(x)) reject_field(path, shortest_text(x), allowed);
}

}  // namespace plab

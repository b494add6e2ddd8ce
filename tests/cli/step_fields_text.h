#pragma once
// A step record as the list of its fields, key=value text in step_fields.h's
// walk order: two records that list the same are the same, bit for bit (NaN
// and the sign of zero included). What the record tests compare records by.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ui/present/step_fields.h"

namespace plab {

inline std::uint32_t bits(float x) {
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

// Every field step_fields.h walks, as key/value text: two records that list
// the same are the same, NaN and the sign of zero included.
class FieldList {
public:
    // Every NaN is one: the record writes "nan" whatever its sign and payload.
    void number(std::string_view k, float v) { add(k, std::isnan(v) ? "nan" : "f" + std::to_string(bits(v))); }
    void integer(std::string_view k, std::int64_t v) { add(k, "i" + std::to_string(v)); }
    void boolean(std::string_view k, bool v) { add(k, v ? "true" : "false"); }
    void missing(std::string_view k) { add(k, "-"); }
    void begin(std::string_view k) { path_.push_back(std::string(k)); }
    void end() { path_.pop_back(); }
    void begin_list(std::string_view k) { begin(k); }
    void end_list() { end(); }
    void begin_item(std::string_view name) { begin(name); }
    void end_item() { end(); }
    std::vector<std::string> fields;

private:
    void add(std::string_view k, const std::string& v) {
        std::string key;
        for (const std::string& p : path_) key += p + ".";
        fields.push_back(key + std::string(k) + "=" + v);
    }
    std::vector<std::string> path_;
};

inline std::vector<std::string> fields_of(const StepRecord& r, const std::vector<std::string>& layers, bool twin) {
    FieldList list;
    visit_step(r, layers, twin, list);
    return list.fields;
}

}  // namespace plab

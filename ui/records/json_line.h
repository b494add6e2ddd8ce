#pragma once
// A JSON Lines record written straight into a text buffer. plab bits emits
// hundreds of thousands of these; building a DOM per record (nlohmann::json)
// cost far more than the rest of the command (docs/perf.md), so records are
// written field by field here and nlohmann::json stays the reader (tests,
// presets).
#include <cstdint>
#include <string>
#include <string_view>

namespace plab {

// Objects and arrays nest: begin_object/begin_array open one under `key`
// (an empty key inside an array, where elements have none), end_* closes it.
class JsonLine {
public:
    explicit JsonLine(std::string& out);
    ~JsonLine();  // closes the object and the line
    JsonLine(const JsonLine&) = delete;
    JsonLine& operator=(const JsonLine&) = delete;

    // Non-finite numbers become the strings "inf", "-inf", "nan" (JSON has none).
    JsonLine& number(std::string_view key, double value);
    // A float as the shortest text that reads back to the same float.
    JsonLine& number(std::string_view key, float value);
    JsonLine& integer(std::string_view key, std::int64_t value);
    JsonLine& boolean(std::string_view key, bool value);
    JsonLine& string(std::string_view key, std::string_view value);
    JsonLine& null(std::string_view key);
    // Already-formatted JSON (an object from another writer).
    JsonLine& raw(std::string_view key, std::string_view json);

    JsonLine& begin_object(std::string_view key = {});
    JsonLine& end_object();
    JsonLine& begin_array(std::string_view key = {});
    JsonLine& end_array();

private:
    void key(std::string_view k);
    template <typename T>
    JsonLine& write_number(std::string_view k, T value);
    std::string& out_;
    std::string first_ = "1";  // per open level: '1' until its first member is written
};

// value as a JSON string literal, quotes included.
void append_json_string(std::string& out, std::string_view value);

}  // namespace plab

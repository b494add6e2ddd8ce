#pragma once
// A JSON Lines record written straight into a text buffer. plab bits emits
// hundreds of thousands of these; building a DOM per record (nlohmann::json)
// cost 5x the whole command, so records are written field by field here and
// nlohmann::json stays the reader (tests, presets).
#include <cstdint>
#include <string>
#include <string_view>

namespace plab {

class JsonLine {
public:
    explicit JsonLine(std::string& out);
    ~JsonLine();  // closes the object and the line
    JsonLine(const JsonLine&) = delete;
    JsonLine& operator=(const JsonLine&) = delete;

    // Non-finite numbers become the strings "inf", "-inf", "nan" (JSON has none).
    JsonLine& number(std::string_view key, double value);
    JsonLine& integer(std::string_view key, std::int64_t value);
    JsonLine& boolean(std::string_view key, bool value);
    JsonLine& string(std::string_view key, std::string_view value);
    JsonLine& null(std::string_view key);

private:
    void key(std::string_view k);
    std::string& out_;
    bool first_ = true;
};

// value as a JSON string literal, quotes included.
void append_json_string(std::string& out, std::string_view value);

}  // namespace plab

#pragma once
// Which finished edits of a form's fields are news. Qt's spin boxes report an
// edit as finished on Enter and again when the focus leaves, and also when
// the focus merely passes through; only a value that differs from what the
// field last showed or sent is an edit worth sending (and logging) once.
#include <map>
#include <string>
#include <string_view>

namespace plab {

class EditGate {
public:
    // The control of `field` was set to `value` from the config it shows.
    void shown(std::string_view field, std::string value);
    // An edit of `field` to `value` finished: true, and remembered as sent,
    // when the value differs from the one the field last showed or sent.
    bool finished(std::string_view field, const std::string& value);

private:
    std::map<std::string, std::string, std::less<>> last_;
};

}  // namespace plab

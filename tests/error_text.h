#pragma once
// The message of the plab::Error a call throws, or "(no error)": for tests
// that check an error names what is wrong.
#include <functional>
#include <string>

#include "engine/common/error.h"

namespace plab::testing_support {

inline std::string error_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace plab::testing_support

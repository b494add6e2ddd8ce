#pragma once
// What every command that takes --set (run, presets --show, replay) prints
// when asked to change scaler.init_scale under a run whose scaler kind is
// none: one wording, spelt here once so that the commands' tests hold them
// all to it.
#include <string>
#include <string_view>

namespace plab::cli_test {

inline std::string init_scale_ignored_by_no_scaler(std::string_view value) {
    return "plab: --set scaler.init_scale=" + std::string(value) +
           ": changes nothing: init_scale is read by the static, dynamic and hysteresis scalers, and this run's "
           "scaler kind is none; set a kind that reads it too, e.g. --set scaler.kind=dynamic\n";
}

}  // namespace plab::cli_test

#include "ui/present/preset_about.h"

#include <gtest/gtest.h>

namespace plab {
namespace {

TEST(PresetAbout, TheDescriptionOrWhyTheFileDoesNotLoad) {
    EXPECT_EQ(preset_about({"tiny", "A tiny run", "/p/tiny.json", ""}), "A tiny run");
    EXPECT_EQ(preset_about({"bad", "", "/p/bad.json", "steps: -1 is not in [1, 1000000]"}),
              "does not load: steps: -1 is not in [1, 1000000]");
    EXPECT_EQ(preset_about({"bare", "", "/p/bare.json", ""}), "(no description)");
}

TEST(PresetAbout, StatusLineNamesThePresetAndWhatItShows) {
    EXPECT_EQ(preset_line("tiny", "A tiny run"), "tiny: A tiny run");
    EXPECT_EQ(preset_line("tiny", ""), "tiny");
}

}  // namespace
}  // namespace plab

// RecentlyUsed's drop hook: a cache whose values may still be read by queued
// work (the CUDA backend's launch tables) waits in before_drop, so the hook
// must see exactly the least recently used entry, before it is freed and
// before the new value is made, and never when nothing is dropped.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/common/recently_used.h"

namespace plab {
namespace {

TEST(RecentlyUsed, BeforeDropSeesTheLeastRecentlyUsedEntryBeforeTheNewOneIsMade) {
    RecentlyUsed<int, std::string, 2> kept;
    std::vector<std::string> events;
    const auto make = [&](int key) {
        events.push_back("make " + std::to_string(key));
        return "value " + std::to_string(key);
    };
    const auto before_drop = [&](const int& key, std::string& value) {
        events.push_back("drop " + std::to_string(key) + " holding " + value);
    };
    (void)kept.use(1, make, before_drop);
    (void)kept.use(2, make, before_drop);
    (void)kept.use(1, make, before_drop);  // 1 is now the most recent: 2 goes next
    EXPECT_EQ(kept.use(3, make, before_drop), "value 3");
    EXPECT_EQ(kept.use(1, make, before_drop), "value 1");  // still kept, not made again
    EXPECT_EQ(events, (std::vector<std::string>{"make 1", "make 2", "drop 2 holding value 2", "make 3"}));
}

TEST(RecentlyUsed, AMakeThatThrowsAfterADropKeepsNothingOfIt) {
    RecentlyUsed<int, int, 1> kept;
    int drops = 0;
    const auto count_drop = [&](const int&, int&) { ++drops; };
    (void)kept.use(1, [](int k) { return k * 10; }, count_drop);
    EXPECT_THROW((void)kept.use(2, [](int) -> int { throw std::runtime_error("no memory"); }, count_drop),
                 std::runtime_error);
    EXPECT_EQ(drops, 1);
    EXPECT_EQ(kept.current(), nullptr);
    int made = 0;
    EXPECT_EQ(kept.use(1, [&](int k) { ++made; return k * 10; }, count_drop), 10);
    EXPECT_EQ(made, 1);  // 1 was dropped to make room for the failed 2
    EXPECT_EQ(drops, 1);  // the room was free: nothing else dropped
}

}  // namespace
}  // namespace plab

#pragma once
// A layer's per-batch buffers, one set per key (the batch's rows and the
// formats it runs in), a few kept at once. A model alternates between the
// training batch and the test set (each evaluation); keeping both sets means
// no reallocation on each switch, so the tensors a recorded step holds stay
// where they are and its graph stays valid across evaluations.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace plab {

template <typename Key, typename Set>
class BufferSets {
public:
    static constexpr std::size_t kMaxSets = 2;  // the training batch and the test set

    // The set for `key`, now the current one; made by make(key) when there
    // is none, after dropping the least recently used set when all are
    // taken (its memory is free before the new one is made). If make throws,
    // no set is current and nothing is kept of it.
    template <typename Make>
    Set& use(const Key& key, Make&& make) {
        ++clock_;
        for (const std::unique_ptr<Entry>& e : entries_)
            if (e->key == key) {
                e->used = clock_;
                current_ = e.get();
                return e->set;
            }
        current_ = nullptr;
        if (entries_.size() >= kMaxSets)
            entries_.erase(std::min_element(entries_.begin(), entries_.end(),
                                            [](const auto& a, const auto& b) { return a->used < b->used; }));
        // Entries are held by pointer: callers (and recorded steps) keep the addresses of their tensors.
        entries_.push_back(std::make_unique<Entry>(Entry{key, make(key), clock_}));
        current_ = entries_.back().get();
        return current_->set;
    }

    // The set of the last use(), and its key; null when there is none.
    Set* current() const { return current_ ? &current_->set : nullptr; }
    const Key* current_key() const { return current_ ? &current_->key : nullptr; }

private:
    struct Entry {
        Key key;
        Set set;
        std::uint64_t used = 0;
    };
    std::vector<std::unique_ptr<Entry>> entries_;
    Entry* current_ = nullptr;
    std::uint64_t clock_ = 0;
};

}  // namespace plab

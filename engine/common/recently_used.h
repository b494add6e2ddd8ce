#pragma once
// A few values kept by key; when a new key comes and every place is taken,
// the least recently used value is dropped first (its memory is free before
// the new one is made). The models' per-batch buffer sets
// (model/buffer_sets.h), the trainer's recorded steps
// (train/step_graph_cache.h) and the CUDA backend's launch tables
// (kernels/cuda_backend.cu) all keep theirs so.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace plab {

template <typename Key, typename Value, std::size_t Capacity>
class RecentlyUsed {
public:
    // The value for `key`, now the current one; made by make(key) when there
    // is none. If make throws, no value is current and nothing is kept of it.
    // before_drop(key, value) runs just before a value is dropped to make
    // room (a GPU cache waits there for queued work that may still read it).
    template <typename Make>
    Value& use(const Key& key, Make&& make) {
        return use(key, std::forward<Make>(make), [](const Key&, Value&) {});
    }
    template <typename Make, typename BeforeDrop>
    Value& use(const Key& key, Make&& make, BeforeDrop&& before_drop) {
        ++clock_;
        for (const std::unique_ptr<Entry>& e : entries_)
            if (e->key == key) {
                e->used = clock_;
                current_ = e.get();
                return e->value;
            }
        current_ = nullptr;
        if (entries_.size() >= Capacity) {
            const auto oldest = std::min_element(entries_.begin(), entries_.end(),
                                                 [](const auto& a, const auto& b) { return a->used < b->used; });
            before_drop((*oldest)->key, (*oldest)->value);
            entries_.erase(oldest);
        }
        // Entries are held by pointer: callers (and recorded steps) keep the addresses of what they hold.
        entries_.push_back(std::make_unique<Entry>(Entry{key, make(key), clock_}));
        current_ = entries_.back().get();
        return current_->value;
    }

    // f(key, value) for every value kept, oldest first.
    template <typename F>
    void for_each(F&& f) const {
        for (const std::unique_ptr<Entry>& e : entries_) f(e->key, e->value);
    }
    // The value of the last use(), and its key; null when there is none.
    Value* current() const { return current_ ? &current_->value : nullptr; }
    const Key* current_key() const { return current_ ? &current_->key : nullptr; }

    void clear() {
        entries_.clear();
        current_ = nullptr;
    }

private:
    struct Entry {
        Key key;
        Value value;
        std::uint64_t used = 0;
    };
    std::vector<std::unique_ptr<Entry>> entries_;
    Entry* current_ = nullptr;
    std::uint64_t clock_ = 0;
};

}  // namespace plab

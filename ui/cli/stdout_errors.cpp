#include "ui/cli/stdout_errors.h"

#include <cerrno>
#include <iostream>
#include <streambuf>

namespace plab {

namespace {

// No buffer of its own: every character goes straight to the stream's own
// buffer, so the bytes and the order of writes are what they were.
class RememberingBuffer final : public std::streambuf {
public:
    explicit RememberingBuffer(std::streambuf* inner) : inner_(inner) {}
    int first_errno() const { return first_errno_; }

protected:
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
        errno = 0;
        const int_type put = inner_->sputc(traits_type::to_char_type(c));
        if (traits_type::eq_int_type(put, traits_type::eof())) remember();
        return put;
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        errno = 0;
        const std::streamsize put = inner_->sputn(s, n);
        if (put < n) remember();
        return put;
    }
    int sync() override {
        errno = 0;
        const int result = inner_->pubsync();
        if (result != 0) remember();
        return result;
    }

private:
    void remember() {
        if (first_errno_ == 0) first_errno_ = errno;
    }

    std::streambuf* inner_;
    int first_errno_ = 0;
};

RememberingBuffer* g_buffer = nullptr;

}  // namespace

void remember_stdout_write_errors() {
    if (g_buffer) return;
    static RememberingBuffer buffer(std::cout.rdbuf());
    g_buffer = &buffer;
    std::cout.rdbuf(g_buffer);
}

int stdout_write_errno() { return g_buffer ? g_buffer->first_errno() : 0; }

}  // namespace plab

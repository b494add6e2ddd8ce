#pragma once
// A 2-D tensor: shape, the number format its values live in, and storage on a
// device. Everything the MLP trains on is a matrix (a vector is 1 x n), so two
// dimensions keep indexing plain.
//
// On the CPU backend the storage is FP32 holding values that are exactly
// representable in dtype() (the emulation rounds every write); a GPU backend
// may store a 16-bit format's own bits (Buffer::element_bytes() says which).
// Tensors share storage when copied, like handles; clone() makes an
// independent copy.
#include <cstddef>
#include <memory>
#include <string>

#include "engine/numeric/format.h"

namespace plab {

enum class Device : std::uint8_t { cpu, cuda };

struct Shape {
    int rows = 0;
    int cols = 0;
    std::size_t size() const { return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols); }
    bool operator==(const Shape&) const = default;
};
std::string shape_text(Shape s);  // "64x3"

// Memory owned by a backend. Subclasses free it in their destructor.
class Buffer {
public:
    virtual ~Buffer() = default;
    virtual Device device() const = 0;
    virtual void* data() = 0;
    // Bytes per element: 4 for FP32 words, 2 for a 16-bit format's own bits.
    virtual std::size_t element_bytes() const { return sizeof(float); }
};

class Tensor {
public:
    Tensor() = default;
    Tensor(Shape shape, FormatId dtype, std::shared_ptr<Buffer> buffer);

    Shape shape() const { return shape_; }
    int rows() const { return shape_.rows; }
    int cols() const { return shape_.cols; }
    std::size_t size() const { return shape_.size(); }
    FormatId dtype() const { return dtype_; }
    Device device() const { return buffer_ ? buffer_->device() : Device::cpu; }
    bool empty() const { return !buffer_; }
    std::size_t element_bytes() const { return buffer_ ? buffer_->element_bytes() : sizeof(float); }

    // FP32 values of a CPU tensor (throws plab::Error for a device tensor).
    float* host();
    const float* host() const;
    // `shape.size()` consecutive values of this tensor from element `first`,
    // as a tensor of `shape` that shares (and keeps alive) its storage: small
    // tensors packed into one fill with one copy. Throws plab::Error when
    // they do not fit.
    Tensor view(std::size_t first, Shape shape) const;

    // Raw storage pointer, for backends.
    void* raw() { return buffer_ ? buffer_->data() : nullptr; }
    const void* raw() const { return buffer_ ? buffer_->data() : nullptr; }

private:
    Shape shape_;
    FormatId dtype_ = FormatId::fp32;
    std::shared_ptr<Buffer> buffer_;
};

}  // namespace plab

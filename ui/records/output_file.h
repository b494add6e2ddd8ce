#pragma once
// Where `plab run --out FILE` writes: checked before any training (a regular
// file or none yet, a symlink followed to its target, a folder one may write
// in), written under a unique temporary name in the target's folder, and
// renamed over the target only once complete. So a failed or interrupted run
// never leaves a truncated FILE, two runs with the same --out never mix
// their lines (the last to finish wins whole), and a device node, a folder
// or a read-only file is refused up front instead of being replaced.
#include <fstream>
#include <string>

#include "engine/common/error.h"

namespace plab {

// Output that could not be written (a full disk, a failed rename): plab's exit 4.
struct WriteError : Error {
    using Error::Error;
};

class OutputFile {
public:
    // Checks `path` and creates the temporary file; plab::Error naming
    // `label` (the option, "--out") and the reason when the path cannot take the records.
    explicit OutputFile(const std::string& path, const std::string& label = "--out");
    ~OutputFile();  // removes the temporary file unless committed
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    std::ostream& stream() { return stream_; }
    const std::string& target() const { return target_; }  // after following symlinks
    const std::string& temporary() const { return temporary_; }

    // Flushes and closes the temporary file, gives it the target's
    // permissions (or the umask's for a new file) and renames it over the
    // target; WriteError when a write failed (a full disk).
    void commit();

private:
    std::string label_;
    std::string target_;
    std::string temporary_;
    unsigned mode_ = 0;
    std::ofstream stream_;
    bool committed_ = false;
};

// Why the last write failed, from errno: ": No space left on device", or
// " (is the disk full?)" when the system did not say.
std::string write_failure_reason();

// The file `path` names once its symlinks are followed (the link's target,
// even when that does not exist yet); plab::Error for a path --out cannot
// use, with the reason: empty, a folder, a device, a FIFO or socket, a
// read-only file, a folder that is missing or not writable.
std::string checked_output_path(const std::string& path, const std::string& label = "--out");

}  // namespace plab

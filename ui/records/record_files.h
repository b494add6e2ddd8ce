#pragma once
// Where a run record written to a file goes: the record, and for JSON Lines
// its index beside it (record_index.h), each through an OutputFile (checked
// first, written under a temporary name, renamed into place when complete).
// The two are committed together, the record first; a reader checks that an
// index describes its record, so the moment between the renames is harmless.
#include <optional>
#include <ostream>
#include <string>

#include "ui/records/output_file.h"

namespace plab {

class RecordFiles {
public:
    // `indexed`: write the index too (JSON Lines records). plab::Error as OutputFile's.
    RecordFiles(const std::string& path, bool indexed, const std::string& label = "--out");

    std::ostream& stream() { return record_.stream(); }
    std::ostream* index() { return index_ ? &index_->stream() : nullptr; }
    const std::string& target() const { return record_.target(); }

    // Both files into place; WriteError as OutputFile::commit's.
    void commit();

private:
    OutputFile record_;
    std::optional<OutputFile> index_;
};

}  // namespace plab

#include "ui/records/record_files.h"

#include "ui/records/record_index.h"

namespace plab {

RecordFiles::RecordFiles(const std::string& path, bool indexed, const std::string& label) : record_(path, label) {
    if (indexed) index_.emplace(record_index_path(record_.target()), label);
}

void RecordFiles::commit() {
    record_.commit();
    if (index_) index_->commit();
}

}  // namespace plab

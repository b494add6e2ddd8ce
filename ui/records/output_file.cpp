#include "ui/records/output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "engine/common/error.h"

namespace plab {

namespace fs = std::filesystem;

namespace {

std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

[[noreturn]] void refuse(const std::string& label, const std::string& path, const std::string& why) {
    throw Error(label + ": " + in_quotes(path) + " " + why);
}

// The link's target, followed as far as it goes (a missing last target is
// the file to create); relative targets are relative to the link's folder.
fs::path follow_links(fs::path p, const std::string& label) {
    for (int hops = 0; hops < 40; ++hops) {
        std::error_code ec;
        if (!fs::is_symlink(fs::symlink_status(p, ec))) return p;
        const fs::path to = fs::read_symlink(p, ec);
        if (ec) return p;
        p = to.is_absolute() ? to : p.parent_path() / to;
    }
    throw Error(label + ": " + in_quotes(p.string()) + " is a loop of symbolic links");
}

std::string kind_of(const struct stat& st) {
    if (S_ISDIR(st.st_mode)) return "is a folder; give a file name inside it";
    const std::string pipe = " (to write to a pipe or a device, leave --out out and redirect standard output)";
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "is a device, not a file" + pipe;
    if (S_ISFIFO(st.st_mode)) return "is a FIFO, not a file" + pipe;
    if (S_ISSOCK(st.st_mode)) return "is a socket, not a file" + pipe;
    return "is not a regular file";
}

}  // namespace

std::string checked_output_path(const std::string& path, const std::string& label) {
    if (path.empty()) throw Error(label + ": an empty file name; leave " + label + " out to write to standard output");
    const fs::path target = follow_links(path, label);
    const std::string shown = target.string() == path ? path : path + "' (-> '" + target.string();
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0) {
        if (!S_ISREG(st.st_mode)) refuse(label, shown, kind_of(st));
        const bool nobody_writes = (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0;
        if (nobody_writes || ::access(target.c_str(), W_OK) != 0)
            refuse(label, shown, "is read-only; plab will not replace it");
    } else if (errno == ENAMETOOLONG) {
        refuse(label, shown, "is a file name too long for this file system");
    } else if (errno != ENOENT) {
        refuse(label, shown, std::string("cannot be checked: ") + std::strerror(errno));
    }
    const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    struct stat dir {};
    if (::stat(folder.c_str(), &dir) != 0 || !S_ISDIR(dir.st_mode))
        refuse(label, shown, "is in a folder that does not exist ('" + folder.string() + "')");
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
        refuse(label, shown, "is in a folder you may not write ('" + folder.string() + "')");
    return target.string();
}

OutputFile::OutputFile(const std::string& path, const std::string& label)
    : label_(label), target_(checked_output_path(path, label)) {
    struct stat st {};
    if (::stat(target_.c_str(), &st) == 0) {
        mode_ = st.st_mode & 07777;  // the replaced file's permissions stay
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        mode_ = 0666 & ~mask;
    }
    // Unique in the target's folder, so the rename is atomic and two runs never share it.
    const std::string suffix = ".part";
    std::string pattern = target_ + ".XXXXXX" + suffix;
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const int fd = ::mkstemps(name.data(), static_cast<int>(suffix.size()));
    if (fd < 0) {
        const int err = errno;
        throw Error(label_ + ": cannot create a file beside " + in_quotes(target_) + ": " +
                    (err == ENAMETOOLONG ? std::string("the file name is too long") : std::strerror(err)));
    }
    ::close(fd);
    temporary_ = name.data();
    stream_.open(temporary_, std::ios::binary | std::ios::trunc);
    if (!stream_) {
        ::unlink(temporary_.c_str());
        throw Error(label_ + ": cannot open " + in_quotes(temporary_) + " for writing");
    }
}

OutputFile::~OutputFile() {
    if (committed_) return;
    stream_.close();
    ::unlink(temporary_.c_str());
}

std::string write_failure_reason() {
    return errno ? std::string(": ") + std::strerror(errno) : std::string(" (is the disk full?)");
}

void OutputFile::commit() {
    errno = 0;
    stream_.flush();
    stream_.close();
    if (!stream_)
        throw WriteError("writing " + in_quotes(temporary_) + " failed" + write_failure_reason() + "; " +
                         in_quotes(target_) + " is unchanged");
    if (::chmod(temporary_.c_str(), static_cast<mode_t>(mode_)) != 0 ||
        ::rename(temporary_.c_str(), target_.c_str()) != 0)
        throw WriteError("could not put the records in " + in_quotes(target_) + ": " + std::strerror(errno));
    committed_ = true;
}

}  // namespace plab

#pragma once
// Standard output through a pass-through buffer that remembers why its first
// write failed. A command whose output outgrows the stream's buffer fails
// mid-command and then goes on (listing presets resolves their folder's
// path: readlink says EINVAL), so errno at the end no longer holds the
// write's reason ("No space left on device").
namespace plab {

// Routes std::cout through the remembering buffer; call once, first thing.
void remember_stdout_write_errors();
// errno of standard output's first failed write since then; 0 when none failed.
int stdout_write_errno();

}  // namespace plab

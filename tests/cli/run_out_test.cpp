// plab run --out and standard output as a careless or hostile user meets
// them: what is at the path is checked before training (a device, a folder,
// a FIFO or a read-only file is refused with exit 2 and left as it was; a
// symlink is followed), the file is replaced whole when the run ends, two
// runs never mix their lines, and a write that fails (a full disk: /dev/full)
// is an exit 4 with a message, never a silent 0.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/cli_run_util.h"

namespace plab {
namespace {

namespace fs = std::filesystem;
using cli_test::Result;
using cli_test::run_plab;
using cli_test::scratch_dir;
using cli_test::slurp;

std::string shell_quoted(const fs::path& p) { return "'" + p.string() + "'"; }

// `plab ARGS > /dev/full`: the exit code and what it said on standard error.
Result to_full_disk(const std::string& args) {
    const fs::path dir = scratch_dir();
    const std::string cmd = "env -u PLAB_PRESET_DIR '" + std::string(PLAB_EXE) + "' " + args + " > /dev/full 2> " +
                            shell_quoted(dir / "err") + " < /dev/null";
    const int status = std::system(cmd.c_str());
    Result r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = slurp(dir / "err");
    fs::remove_all(dir);
    return r;
}

// Every line a JSON object: no line cut or spliced into another.
bool every_line_is_json(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) {
        if (!nlohmann::json::accept(line)) return false;
        ++lines;
    }
    return lines > 0;
}

TEST(RunOut, RefusesWhatIsNotARegularFileBeforeTraining) {
    const fs::path dir = scratch_dir();
    const std::string fifo = (dir / "fifo").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    struct Case {
        std::string path, says;
    } cases[] = {{"/dev/full", "is a device, not a file"},
                 {dir.string(), "is a folder; give a file name inside it"},
                 {fifo, "is a FIFO, not a file"},
                 {(dir / "missing" / "r.jsonl").string(), "is in a folder that does not exist"}};
    for (const Case& c : cases) {
        const Result r = run_plab("run --steps 3 --out " + shell_quoted(c.path));
        EXPECT_EQ(r.exit_code, 2) << c.path;
        EXPECT_NE(r.err.find("plab: --out: '" + c.path + "' " + c.says), std::string::npos) << r.err;
    }
    EXPECT_TRUE(fs::is_character_file("/dev/full"));  // still the device, not a file of records
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_EQ(run_plab("run --steps 3 --out ''").exit_code, 2);
    fs::remove_all(dir);
}

TEST(RunOut, LeavesAReadOnlyFileAndFollowsASymlink) {
    const fs::path dir = scratch_dir();
    const fs::path kept = dir / "kept.jsonl", target = dir / "target.jsonl", link = dir / "link.jsonl";
    std::ofstream(kept) << "someone's data\n";
    fs::permissions(kept, fs::perms::owner_read | fs::perms::group_read);
    const Result r = run_plab("run --steps 3 --out " + shell_quoted(kept));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("is read-only; plab will not replace it"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(kept), "someone's data\n");

    std::ofstream(target) << "old\n";
    fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    fs::create_symlink(target.filename(), link);
    ASSERT_EQ(run_plab("run --steps 3 --quiet --out " + shell_quoted(link)).exit_code, 0);
    EXPECT_TRUE(fs::is_symlink(link));  // the link stays; its target holds the records
    EXPECT_TRUE(every_line_is_json(slurp(target)));
    EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    fs::remove_all(dir);
}

TEST(RunOut, TwoRunsAtOnceNeverMixTheirLines) {
    const fs::path dir = scratch_dir();
    const fs::path out = dir / "r.jsonl", someones_part = dir / "r.jsonl.part";
    std::ofstream(someones_part) << "not plab's\n";
    const std::string run = "env -u PLAB_PRESET_DIR '" + std::string(PLAB_EXE) + "' run --steps 300 --quiet --out " +
                            shell_quoted(out);
    const int status = std::system((run + " & " + run + "; wait").c_str());
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    const std::string records = slurp(out);
    EXPECT_TRUE(every_line_is_json(records));
    EXPECT_EQ(records, run_plab("run --steps 300 --quiet").out);  // one run's records, whole
    EXPECT_EQ(slurp(someones_part), "not plab's\n");
    int files = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        (void)entry;
        ++files;
    }
    EXPECT_EQ(files, 3);  // the record, its index and someone's file: no temporary file left behind
    EXPECT_TRUE(fs::exists(dir / "r.jsonl.index"));
    fs::remove_all(dir);
}

// SIGINT or SIGTERM mid-run: the run stops at a step boundary, keeps every
// whole record under the final name, says how far it got, and exits 128 + N.
TEST(RunOut, ASignalStopsBetweenStepsAndKeepsTheRecords) {
    const fs::path dir = scratch_dir();
    const fs::path out = dir / "r.jsonl", err = dir / "err";
    for (const char* signal : {"INT", "TERM"}) {
        const std::string run = "'" + std::string(PLAB_EXE) + "' run --steps 1000000 --quiet --out " + shell_quoted(out) +
                                " 2> " + shell_quoted(err);
        const std::string script = run + " & p=$!; sleep 2; kill -" + signal + " $p; wait $p; exit $?";
        const int status = std::system(("bash -c " + shell_quoted(fs::path(script))).c_str());
        ASSERT_TRUE(WIFEXITED(status)) << signal;
        EXPECT_EQ(WEXITSTATUS(status), std::string(signal) == "INT" ? 130 : 143);
        const std::string records = slurp(out), said = slurp(err);
        EXPECT_TRUE(every_line_is_json(records)) << signal;
        const std::size_t at = said.find("after step ");
        ASSERT_NE(at, std::string::npos) << said;
        const int steps = std::stoi(said.substr(at + 11));
        EXPECT_GT(steps, 0);
        EXPECT_NE(said.find("the records of steps 1-" + std::to_string(steps) + " (a partial run)"), std::string::npos)
            << said;
        EXPECT_NE(records.find("{\"type\":\"step\",\"step\":" + std::to_string(steps) + ","), std::string::npos);
        EXPECT_EQ(records.find("{\"type\":\"step\",\"step\":" + std::to_string(steps + 1) + ","), std::string::npos);
    }
    fs::remove_all(dir);
}

TEST(RunOut, AFullDiskIsAnErrorForEveryCommand) {
    for (const char* args : {"run --steps 20 --quiet", "bits 0.1", "presets", "presets --show spirals-amp-fp16",
                             "run --dump-preset", "ranges"}) {
        const Result r = to_full_disk(args);
        EXPECT_EQ(r.exit_code, 4) << args;
        EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << args << ": " << r.err;
    }
    // A run short enough to fail only at its last flush says so, not a summary.
    const Result r = to_full_disk("run --steps 3");
    EXPECT_EQ(r.exit_code, 4);
    EXPECT_NE(r.err.find("writing the records to standard output failed after step 3: No space left on device"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("records:"), std::string::npos) << r.err;
}

// A file that cannot grow (ulimit -f, the one-file form of a full disk):
// the run ends with exit 4 naming the file and the reason, the old file is
// kept, and no summary claims the records are there, however early the
// write fails (mid-run, or only at the final flush of a short run).
TEST(RunOut, AFileThatCannotGrowKeepsTheOldOneAndPrintsNoSummary) {
    const fs::path dir = scratch_dir();
    const fs::path out = dir / "r.jsonl", err = dir / "err";
    std::ofstream(out) << "previous run\n";
    for (const char* steps : {"3", "40"}) {
        const std::string run = "'" + std::string(PLAB_EXE) + "' run --steps " + steps + " --out " + shell_quoted(out) +
                                " 2> " + shell_quoted(err);
        const std::string script = "trap \"\" XFSZ; ulimit -f 1; " + run;
        const int status = std::system(("bash -c " + shell_quoted(fs::path(script))).c_str());
        ASSERT_TRUE(WIFEXITED(status)) << steps;
        EXPECT_EQ(WEXITSTATUS(status), 4) << steps;
        const std::string said = slurp(err);
        EXPECT_NE(said.find("plab: writing the records to '" + out.string() + "' failed "), std::string::npos) << said;
        EXPECT_NE(said.find(": File too large; the run stopped and '" + out.string() + "' is unchanged"),
                  std::string::npos)
            << said;
        EXPECT_EQ(said.find("records:"), std::string::npos) << said;
        EXPECT_EQ(slurp(out), "previous run\n");
    }
    int files = 0;
    for (const auto& entry : fs::directory_iterator(dir)) files += entry.path().filename() != "err";
    EXPECT_EQ(files, 1);  // no temporary file left behind
    fs::remove_all(dir);
}

}  // namespace
}  // namespace plab

// The plab binary as a user runs it: output shape, exit codes, and the JSON
// checked against the CPU's conversion instructions.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "engine/numeric/bit_fields.h"
#include "engine/numeric/cast_array.h"
#include "engine/numeric/scalar_cast.h"
#include "cli/cli_run_util.h"
#include "numeric/hardware_convert.h"

namespace plab {
namespace {

using cli_test::Result;
using cli_test::run_plab;
using cli_test::slurp;

std::vector<nlohmann::json> json_lines(const std::string& text) {
    std::vector<nlohmann::json> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    return lines;
}

std::size_t count_lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

TEST(PlabCli, HelpAndVersionExitZero) {
    const Result help = run_plab("--help");
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_NE(help.out.find("bits"), std::string::npos);
    EXPECT_NE(help.out.find("ranges"), std::string::npos);
    const Result bits_help = run_plab("bits --help");
    EXPECT_EQ(bits_help.exit_code, 0);
    EXPECT_NE(bits_help.out.find("0x plus 8 hex digits"), std::string::npos);
    const Result version = run_plab("--version");
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_EQ(version.out.rfind("plab ", 0), 0u) << version.out;
}

// -inf and -nan are values, as the help lists them, not options: without
// "--", in any order with options and other values, in their order.
TEST(PlabCli, NegativeInfinityAndNanAreValues) {
    const Result r = run_plab("bits -inf 1 --format fp16 -NaN -0.5");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::size_t inf = r.out.find("-inf  as FP32 0xff800000"), one = r.out.find("1  as FP32 0x3f800000");
    const std::size_t nan = r.out.find("-NaN  as FP32 0xffc00000"), half = r.out.find("-0.5  as FP32 0xbf000000");
    ASSERT_NE(inf, std::string::npos) << r.out;
    ASSERT_NE(nan, std::string::npos) << r.out;
    EXPECT_TRUE(inf < one && one < nan && nan < half) << r.out;
    EXPECT_EQ(r.out.find("BF16"), std::string::npos) << "--format fp16 still applies";
    EXPECT_EQ(run_plab("bits -- -inf").out, run_plab("bits -inf").out);
    EXPECT_EQ(run_plab("bits --bogus 1").exit_code, 2);
}

TEST(PlabCli, Fp16OverflowShowsInf) {
    const Result r = run_plab("bits 65520 --format fp16 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0]["bits"], "0x7c00");
    EXPECT_EQ(lines[0]["class"], "inf");
    EXPECT_EQ(lines[0]["value"], "inf");
    EXPECT_EQ(lines[0]["overflow"], true);

    const Result text = run_plab("bits 65520 --format fp16 --color never");
    ASSERT_EQ(text.exit_code, 0);
    EXPECT_NE(text.out.find("0 11111 0000000000"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find(" +inf "), std::string::npos) << text.out;
}

TEST(PlabCli, AllFormatsGiveSixRows) {
    const Result r = run_plab("bits 0.1 --format all --color never");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(count_lines(r.out), 7u) << r.out;  // the value's header and one row per format
    for (const char* label : {"\n  FP32 ", "\n  TF32 ", "\n  FP16 ", "\n  BF16 ", "\n  E4M3 ", "\n  E5M2 "})
        EXPECT_NE(r.out.find(label), std::string::npos) << label;
    EXPECT_EQ(r.out.find('\033'), std::string::npos) << "colour with --color never";
    const Result colored = run_plab("bits 0.1 --color always");
    EXPECT_NE(colored.out.find("\033[1;91m"), std::string::npos);
}

TEST(PlabCli, JsonShape) {
    const Result r = run_plab("bits 0.1 -1e-8 inf nan 0x00000001 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 5u * 6u);
    for (const auto& j : lines) {
        EXPECT_TRUE(j["input"].is_string());
        EXPECT_TRUE(j["format"].is_string());
        EXPECT_TRUE(j["bits"].is_string());
        EXPECT_TRUE(j["sign"].is_number_integer());
        EXPECT_TRUE(j["exponent"].is_number_integer());
        EXPECT_TRUE(j["mantissa"].is_number_integer());
        EXPECT_TRUE(j["class"].is_string());
        EXPECT_TRUE(j["value"].is_number() || j["value"].is_string());
        EXPECT_TRUE(j["abs_error"].is_number() || j["abs_error"].is_string());
        EXPECT_TRUE(j["rel_error"].is_number() || j["rel_error"].is_string());
    }
    EXPECT_EQ(lines[0]["input"], "0.1");
    EXPECT_EQ(lines[0]["format"], "fp32");
    EXPECT_EQ(lines[0]["bits"], "0x3dcccccd");
    EXPECT_EQ(lines[2]["format"], "fp16");
    EXPECT_EQ(lines[2]["bits"], "0x2e66");
    EXPECT_EQ(lines[2]["exponent"], 11);
    EXPECT_EQ(lines[2]["mantissa"], 0x266);
    EXPECT_EQ(lines[2]["value"].get<double>(), 0.0999755859375);
    EXPECT_EQ(lines[2]["abs_error"].get<double>(), static_cast<double>(0.1f) - 0.0999755859375);
    EXPECT_EQ(lines[8]["format"], "fp16");  // -1e-8 flushes to -0 in FP16
    EXPECT_EQ(lines[8]["bits"], "0x8000");
    EXPECT_EQ(lines[8]["class"], "zero");
    EXPECT_EQ(lines[8]["rel_error"].get<double>(), 1.0);
    EXPECT_EQ(lines[16]["format"], "e4m3");  // inf saturates to 448 by default
    EXPECT_EQ(lines[16]["value"].get<double>(), 448.0);
    EXPECT_EQ(lines[16]["fp8_overflow"], "saturate");
    EXPECT_EQ(lines[18]["value"], "nan");
    EXPECT_EQ(lines[18]["abs_error"], "nan");
    EXPECT_EQ(lines[24]["input"], "0x00000001");
    EXPECT_EQ(lines[24]["class"], "subnormal");
}

TEST(PlabCli, Fp8OverflowMode) {
    const auto sat = json_lines(run_plab("bits 500 --format e4m3 --json").out);
    const auto nan = json_lines(run_plab("bits 500 --format e4m3 --json --fp8-overflow nan").out);
    ASSERT_EQ(sat.size(), 1u);
    ASSERT_EQ(nan.size(), 1u);
    EXPECT_EQ(sat[0]["bits"], "0x7e");
    EXPECT_EQ(nan[0]["bits"], "0x7f");
    EXPECT_EQ(nan[0]["class"], "nan");
}

TEST(PlabCli, BadInputExitsTwoWithOneLine) {
    const struct {
        const char* args;
        const char* mention;
    } cases[] = {
        {"bits abc", "'abc'"},
        {"bits 0xZZ", "'0xZZ'"},
        {"bits 0x3f80", "8 hex digits"},
        {"bits 1 --format fp17", "fp32|tf32|fp16|bf16|e4m3|e5m2|all"},
        {"bits 1 --fp8-overflow clamp", "saturate|nan"},
        {"bits 1 --color sometimes", "--color"},
        {"bits", "VALUE"},
        {"nosuch", "nosuch"},
        {"", "subcommand"},
        {"ranges --bogus", "--bogus"},
    };
    for (const auto& c : cases) {
        const Result r = run_plab(c.args);
        EXPECT_EQ(r.exit_code, 2) << c.args;
        EXPECT_EQ(count_lines(r.err), 1u) << c.args << ": " << r.err;
        EXPECT_NE(r.err.find(c.mention), std::string::npos) << c.args << ": " << r.err;
        EXPECT_EQ(r.out, "") << c.args;
    }
}

TEST(PlabCli, StandardInputBadLineNamesTheLine) {
    const Result r = run_plab("bits - --json", "1\n2\nthree\n");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("line 3"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("'three'"), std::string::npos) << r.err;
}

// Random FP32 bit patterns (plus the edges) through `plab bits - --json`,
// against the CPU's F16C / AVX-512 BF16 instructions where it has them and
// against the engine's fastest array path for every format.
TEST(PlabCli, JsonBitsAgreeWithHardwareInstructions) {
    std::vector<float> inputs;
    std::mt19937 rng(2024);
    for (int i = 0; i < 20000; ++i) inputs.push_back(bits_float(static_cast<std::uint32_t>(rng())));
    for (std::uint32_t u : {0x477fefffu, 0x477ff000u, 0x33000000u, 0x33000001u, 0x7f7f8000u, 0x00400000u,
                            0x7fa00000u, 0xff800000u, 0x80000000u})
        inputs.push_back(bits_float(u));
    std::string stdin_text;
    char buf[16];
    for (float x : inputs) {
        std::snprintf(buf, sizeof buf, "0x%08x\n", float_bits(x));
        stdin_text += buf;
    }
    const Result r = run_plab("bits - --json", stdin_text);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), inputs.size() * 6);

    std::vector<std::uint16_t> f16(inputs.size()), b16(inputs.size());
    if (test::cpu_has_f16c()) test::hardware_fp32_to_fp16(inputs.data(), f16.data(), inputs.size());
    if (test::cpu_has_avx512_bf16()) test::hardware_fp32_to_bf16(inputs.data(), b16.data(), inputs.size());

    for (std::size_t i = 0; i < inputs.size(); ++i) {
        for (std::size_t k = 0; k < kAllFormats.size(); ++k) {
            const FormatId f = kAllFormats[k];
            const auto& j = lines[i * 6 + k];
            ASSERT_EQ(j["format"], std::string(format_name(f)));
            std::uint32_t word = 0;
            encode_array(f, &inputs[i], &word, 1, Overflow::saturate);
            const std::uint32_t engine_code = storage_to_code(f, word);
            ASSERT_EQ(j["bits"], hex_code(f, engine_code)) << "input " << j["input"];
        }
        const std::uint32_t u = float_bits(inputs[i]);
        if (test::cpu_has_f16c()) {
            ASSERT_EQ(lines[i * 6 + 2]["bits"], hex_code(FormatId::fp16, f16[i]));
        }
        const bool fp32_subnormal = (u & 0x7f800000u) == 0 && (u & 0x7fffffu) != 0;  // the instruction flushes these
        if (test::cpu_has_avx512_bf16() && !fp32_subnormal) {
            ASSERT_EQ(lines[i * 6 + 3]["bits"], hex_code(FormatId::bf16, b16[i]));
        }
    }
}

TEST(PlabCli, RangesTableAndJson) {
    const Result text = run_plab("ranges");
    ASSERT_EQ(text.exit_code, 0);
    EXPECT_EQ(count_lines(text.out), 7u);
    EXPECT_NE(text.out.find("65504"), std::string::npos);
    EXPECT_NE(text.out.find("448"), std::string::npos);
    const auto rows = json_lines(run_plab("ranges --json").out);
    ASSERT_EQ(rows.size(), 6u);
    EXPECT_EQ(rows[2]["format"], "fp16");
    EXPECT_EQ(rows[2]["max"].get<double>(), 65504.0);
    EXPECT_EQ(rows[2]["min_subnormal"].get<double>(), std::ldexp(1.0, -24));
    EXPECT_EQ(rows[4]["format"], "e4m3");
    EXPECT_EQ(rows[4]["max"].get<double>(), 448.0);
    EXPECT_EQ(rows[5]["max"].get<double>(), 57344.0);
    EXPECT_EQ(rows[3]["epsilon"].get<double>(), std::ldexp(1.0, -7));
}

}  // namespace
}  // namespace plab

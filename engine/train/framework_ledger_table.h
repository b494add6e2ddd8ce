#pragma once
// A model's framework ledgers (framework_ledger.h) under every recipe, as
// the table both the memory-ledger scenario and the Speed & memory panel
// show: a row per recipe with each held class's bytes by format, the total
// and the total against FP32's.
#include <string>
#include <string_view>
#include <vector>

#include "engine/train/framework_ledger.h"
#include "engine/train/run_config.h"

namespace plab {

// `config`'s FP32 list, master-weight setting and optimizer under each of kAllRecipes, in that order.
std::vector<FrameworkLedger> framework_ledgers(const ModelShape& shape, const RunConfig& config);

// One class's bytes by format, in the order the ledger lists them, joined
// by `joiner`: "1.34 GB FP32 + 0.67 GB FP16"; "-" for none.
std::string held_bytes_text(const FrameworkLedger& ledger, HeldClass c, std::string_view joiner = " + ");

// The column names, then a row per ledger: recipe, kHeldClasses' cells (formats joined by `joiner`), total, "vs fp32".
std::vector<std::vector<std::string>> framework_ledger_rows(const std::vector<FrameworkLedger>& ledgers,
                                                            std::string_view joiner = " + ");

// "BERT-Large (...), 335,141,888 parameters, adamw": the model the table is of.
std::string framework_ledger_title(const ModelShape& shape, const RunConfig& config);

}  // namespace plab

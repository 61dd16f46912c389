// Speculative execution for the MapReduce engine, as composable engine options
// (simulate(..., speculation="late", speculation_params={...})):
//   hadoop  — Hadoop 1.2.1 JobInProgress speculation: slow-tracker test, speculative cap, slow-task
//             test on progress rates, longest estimated time left [seed003 §3.4]
//   yarn    — YARN 2.7 DefaultSpeculator with the legacy estimator, Eq. 5.1/5.2; the dissertation
//             calls it "LATE" [seed000 §1.4, §4.2]
//   late    — the original LATE paper: SpeculativeCap, SlowNodeThreshold, SlowTaskThreshold
//             [seed000 §1.4 (E), seed003 §3.4]
//   esplash — eSplash: node levels by group-based clustering, per-level straggler detection,
//             copies placed by minimum level and expected saving, re-evaluation [seed000 §4.3-§4.5]
//   sepb    — DynamicMR's Speculative Execution Performance Balancing on top of the Hadoop rule:
//             pending tasks of several jobs before speculative copies, and the 2x straggler kill
//             [seed003 §4.5]
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "schedlab/mapreduce.h"

namespace schedlab::mr {

const std::vector<std::string>& speculator_names();
// The parameter list of a speculator (empty for "none"); throws invalid_argument for unknown names.
const std::vector<ParamSpec>& speculator_params(const std::string& name);
// nullptr for "none". `params` is "name:value,..." checked against speculator_params(name).
std::unique_ptr<Speculator> make_speculator(const std::string& name, const std::string& params);

}  // namespace schedlab::mr

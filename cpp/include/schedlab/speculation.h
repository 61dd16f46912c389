// Speculative execution for the MapReduce engine, as composable engine options
// (simulate(..., speculation="late", speculation_params={...})):
//   hadoop  — Hadoop 0.21 JobTracker speculation (HADOOP-2141): slow-tracker test, speculative cap, slow-task
//             test on progress rates, longest estimated time left [Sagar & Moni 2015, §III]
//   yarn    — YARN 2.7 DefaultSpeculator with the legacy estimator, Eq. 5.1/5.2; the dissertation
//             calls it "LATE" [Wang 2017, §2.4; §5.1.2, Table 5.1]
//   late    — the original LATE paper: SpeculativeCap, SlowNodeThreshold, SlowTaskThreshold
//             [Wang 2017, §2.4 (E), Sagar & Moni 2015, §III]
//   esplash — eSplash: node levels by group-based clustering, per-level straggler detection,
//             copies placed by minimum level and expected saving, re-evaluation [Wang 2017, §5.2.1; §5.2.3]
//   sepb    — DynamicMR's Speculative Execution Performance Balancing on top of the Hadoop rule:
//             pending tasks of several jobs before speculative copies, and the 2x straggler kill
//             [Sagar & Moni 2015, §III]
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

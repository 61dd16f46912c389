// The catalogue of simulation engines and scheduler names. Each engine (the MapReduce slot
// simulator, the worker-queue simulator, ...) registers its option list and a run function;
// each scheduler registers its name, engine, paper reference and parameter list.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "schedlab/cluster.h"
#include "schedlab/params.h"
#include "schedlab/results.h"
#include "schedlab/workload.h"

namespace schedlab {

struct SchedulerInfo {
  std::string name;
  std::string engine;
  std::string citation;   // paper and section it implements
  std::string summary;    // one line
  std::vector<ParamSpec> params;
};

struct RunRequest {
  const Cluster* cluster = nullptr;
  const Workload* workload = nullptr;
  std::string scheduler;
  ParamValues scheduler_params;
  ParamValues options;
  uint64_t seed = 0;
};

struct EngineInfo {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> options;
  std::function<SimResult(const RunRequest&)> run;
};

void register_engine(EngineInfo engine);
void register_scheduler(SchedulerInfo info);

const std::vector<EngineInfo>& engines();
const std::vector<SchedulerInfo>& schedulers();
const SchedulerInfo& find_scheduler(const std::string& name);  // throws invalid_argument listing names
const EngineInfo& find_engine(const std::string& name);

// Validates and runs: the scheduler's parameters and the engine's options are checked first.
SimResult run(const RunRequest& request);

}  // namespace schedlab

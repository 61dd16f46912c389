// What every simulation engine returns: columnar per-job and per-attempt tables, counters and
// named time series. The Python layer turns each column into a NumPy array without copies of
// per-row objects.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace schedlab {

enum AttemptStatus : uint8_t { kRunning = 0, kSucceeded = 1, kKilled = 2, kFailed = 3 };
enum Locality : uint8_t { kNodeLocal = 0, kRackLocal = 1, kRemote = 2, kNoLocality = 3 };

struct TimeSeries {
  std::vector<std::string> names;            // column names; column 0 is "time"
  std::vector<std::vector<double>> columns;
  void add_row(std::initializer_list<double> row) {
    size_t i = 0;
    for (double v : row) columns[i++].push_back(v);
  }
  static TimeSeries with_columns(std::vector<std::string> names) {
    TimeSeries ts;
    ts.columns.resize(names.size());
    ts.names = std::move(names);
    return ts;
  }
};

struct SimResult {
  // per job (dense job id)
  std::vector<double> job_start;   // first attempt launched (NaN if never)
  std::vector<double> job_finish;  // last task finished (NaN if unfinished at time limit)
  std::map<std::string, std::vector<double>> job_extra;

  // per attempt, in launch order
  std::vector<int32_t> att_task;
  std::vector<int32_t> att_node;
  std::vector<double> att_start;
  std::vector<double> att_finish;   // finish or kill time
  std::vector<uint8_t> att_status;  // AttemptStatus
  std::vector<uint8_t> att_locality;
  std::vector<int32_t> att_slot;     // index of the slot on its node (for Gantt charts)
  std::vector<uint8_t> att_speculative;
  std::vector<uint8_t> att_slot_type;  // slot engines: the kind of slot it held (kMap or kReduce); else empty
  std::map<std::string, std::vector<double>> att_extra;

  std::map<std::string, double> counters;
  std::map<std::string, TimeSeries> series;

  uint64_t events = 0;
  double end_time = 0;
};

}  // namespace schedlab

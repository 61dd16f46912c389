// Building blocks shared by the MapReduce-engine schedulers, written once:
//   - AdmissionControl: FRESH's k-limited sets M (map phase), R (reduce phase), R' [seed000 §2.4.1]
//   - DelayScheduling: Hadoop 1.x Fair Scheduler per-job locality wait [seed003 §3.1]
//   - FairOrder: Hadoop's FairShareComparator over pools or jobs [seed003 §2.3]
//   - parse_key_values: "a:1,b:2" parameter strings
#pragma once
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "schedlab/mapreduce.h"

namespace schedlab::mr {

// At most k jobs in their map phase (M) and k in their reduce phase (R); a job whose maps are
// done while R is full waits in R' in order. k = 0 disables the limit.
class AdmissionControl {
 public:
  explicit AdmissionControl(int64_t k = 0) : k_(k) {}
  bool enabled() const { return k_ > 0; }
  void init(const Sim& sim) {
    state_.assign(sim.workload().n_jobs(), kWaiting);
    admit_time_.assign(sim.workload().n_jobs(), std::numeric_limits<double>::quiet_NaN());
  }
  void on_submitted(Sim& sim, int32_t job) {
    if (!enabled()) { admit_time_[job] = sim.now(); return; }
    waiting_.push_back(job);
    fill_map_set(sim);
  }
  void on_stage_finished(Sim& sim, int32_t job, int stage) {
    if (!enabled()) return;
    if (stage == kMap && state_[job] == kInM) {
      --in_m_;
      if (sim.workload().n_reduces(job) > 0) {
        if (in_r_ < k_) { state_[job] = kInR; ++in_r_; }
        else { state_[job] = kInRPrime; r_prime_.push_back(job); }
      } else {
        state_[job] = kDone;
      }
      fill_map_set(sim);
    } else if (stage == kReduce && state_[job] == kInR) {
      state_[job] = kDone;
      --in_r_;
      while (in_r_ < k_ && !r_prime_.empty()) {
        state_[r_prime_.front()] = kInR;
        r_prime_.pop_front();
        ++in_r_;
      }
    }
  }
  bool may_run(int32_t job, int stage) const {
    if (!enabled()) return true;
    return stage == kMap ? state_[job] == kInM : state_[job] == kInR;
  }
  // Set membership (meaningful when enabled): M, R, R' and the next job waiting for M.
  bool in_map_set(int32_t job) const { return state_[job] == kInM; }
  bool in_reduce_set(int32_t job) const { return state_[job] == kInR; }
  bool in_reduce_wait(int32_t job) const { return state_[job] == kInRPrime; }
  int64_t map_set_size() const { return in_m_; }
  int64_t limit() const { return k_; }
  int32_t next_waiting() const { return waiting_.empty() ? -1 : waiting_.front(); }
  // When the job entered M (its submission time when the limit is off); NaN before that.
  double admit_time(int32_t job) const { return admit_time_[job]; }

 private:
  enum State : uint8_t { kWaiting, kInM, kInR, kInRPrime, kDone };
  void fill_map_set(Sim& sim) {
    while (in_m_ < k_ && !waiting_.empty()) {
      const int32_t j = waiting_.front();
      waiting_.pop_front();
      if (sim.workload().n_maps[j] == 0) {  // nothing to map: straight to the reduce sets
        admit_time_[j] = sim.now();
        state_[j] = kInM;
        ++in_m_;
        on_stage_finished(sim, j, kMap);
        continue;
      }
      state_[j] = kInM;
      ++in_m_;
      admit_time_[j] = sim.now();
    }
  }
  int64_t k_;
  int64_t in_m_ = 0, in_r_ = 0;
  std::vector<uint8_t> state_;
  std::vector<double> admit_time_;
  std::deque<int32_t> waiting_, r_prime_;
};

// Hadoop 1.x Fair Scheduler delay scheduling [seed003 §3.1]. Per job: the level of its last map
// launch and how long it has been skipped for lack of a local task.
class DelayScheduling {
 public:
  void init(const Sim& sim, double delay) {
    const size_t n = sim.workload().n_jobs();
    level_.assign(n, kNodeLocal);
    waited_.assign(n, 0);
    skipped_.assign(n, 0);
    delay_ = delay;
  }
  // Step 1: at each heartbeat, jobs skipped at the previous one have waited another delta.
  void on_heartbeat(const Sim& sim) {
    const double delta = last_heartbeat_ < 0 ? 0 : sim.now() - last_heartbeat_;
    last_heartbeat_ = sim.now();
    for (int32_t j : skipped_list_) {
      if (skipped_[j]) { waited_[j] += delta; skipped_[j] = 0; }
    }
    skipped_list_.clear();
  }
  // Step 2: the locality level this job may launch at now.
  Locality allowed(int32_t job) const {
    if (delay_ <= 0) return kRemote;
    const double w = waited_[job];
    switch (level_[job]) {
      case kNodeLocal: return w >= 2 * delay_ ? kRemote : (w >= delay_ ? kRackLocal : kNodeLocal);
      case kRackLocal: return w >= delay_ ? kRemote : kRackLocal;
      default: return kRemote;
    }
  }
  // Step 3: a launch resets the wait and records the level; a visit without launch marks a skip.
  void launched(int32_t job, Locality l) {
    level_[job] = l == kNoLocality ? kNodeLocal : l;
    waited_[job] = 0;
  }
  void skipped(int32_t job) {
    if (!skipped_[job]) { skipped_[job] = 1; skipped_list_.push_back(job); }
  }
  double delay() const { return delay_; }

 private:
  std::vector<uint8_t> level_;
  std::vector<double> waited_;
  std::vector<uint8_t> skipped_;
  std::vector<int32_t> skipped_list_;
  double delay_ = 0;
  double last_heartbeat_ = -1;
};

// Hadoop's FairShareComparator: needy schedulables (running < min(minShare, demand)) first by
// running / max(minShare, 1); the rest by running / weight; ties by start time, then id.
struct FairKey {
  bool needy;
  double ratio;
  double start;
  int32_t id;
  static FairKey make(double running, double demand, double min_share, double weight, double start, int32_t id) {
    const double ms = std::min(min_share, demand);
    const bool needy = running < ms;
    return FairKey{needy, needy ? running / std::max(ms, 1.0) : running / weight, start, id};
  }
  bool operator<(const FairKey& o) const {
    if (needy != o.needy) return needy;
    if (ratio != o.ratio) return ratio < o.ratio;
    if (start != o.start) return start < o.start;
    return id < o.id;
  }
};

// "a:1.5,b:2" -> {a: 1.5, b: 2}; also accepts a bare list "1.5,2" keyed "0", "1", ...
inline std::map<std::string, double> parse_key_values(const std::string& owner, const std::string& text) {
  std::map<std::string, double> out;
  size_t pos = 0, index = 0;
  while (pos < text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.find_first_not_of(" \t") == std::string::npos) continue;
    const size_t colon = item.find(':');
    std::string key = colon == std::string::npos ? std::to_string(index) : item.substr(0, colon);
    std::string val = colon == std::string::npos ? item : item.substr(colon + 1);
    key.erase(0, key.find_first_not_of(" \t"));
    key.erase(key.find_last_not_of(" \t") + 1);
    try {
      size_t used = 0;
      double v = std::stod(val, &used);
      if (val.find_first_not_of(" \t", used) != std::string::npos) throw std::invalid_argument("");
      out[key] = v;
    } catch (const std::exception&) {
      throw std::invalid_argument(owner + ": cannot read a number from '" + item + "' (expected key:value pairs separated by commas)");
    }
    ++index;
  }
  return out;
}

}  // namespace schedlab::mr

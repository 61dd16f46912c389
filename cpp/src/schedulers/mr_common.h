// Building blocks shared by the MapReduce-engine schedulers, written once:
//   - AdmissionControl: FRESH's k-limited sets M (map phase), R (reduce phase), R' [Wang 2017, §3.3.2.2–3.3.2.3]
//   - DelayScheduling: Hadoop 1.x Fair Scheduler per-job locality wait [Sagar & Moni 2015, §II]
//   - FairKey: Hadoop's FairShareComparator over pools or jobs [Sagar & Moni 2015, §II]
//   - FairPools: the Fair Scheduler's pools (weights, min shares) and their fair ordering
//   - hfs_load_cap: CapBasedLoadManager's per-tracker cap [Sagar & Moni 2015, §II]
//   - HadoopJobQueue: JobQueueTaskScheduler's queue, load-factor cap, map and reduce passes [Sagar & Moni 2015, Fig. 10]
//   - check_strict_locality: strict-locality schedulers need a replica on a map-slot node
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
    // a job past its map phase may still re-run maps whose outputs were lost with a crashed node
    return stage == kMap ? state_[job] != kWaiting : state_[job] == kInR;
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

// Hadoop 1.x Fair Scheduler delay scheduling [Sagar & Moni 2015, §II]. Per job: the level of its last map
// launch and how long it has been skipped for lack of a local task. Waits are integer
// nanoseconds (Hadoop's are integer milliseconds): a job skipped at heartbeat after heartbeat
// has waited exactly the time between the first and the last.
//
// A scheduler whose map scan visits a list of jobs (fair's map orders) may keep this class told
// of who is on that list (list()); then a scan that would skip every listed job is marked at
// once (skip_listed()) and the listed jobs' waits grow together, through one shared clock, so
// the lightly loaded cluster's common heartbeat costs O(1) instead of O(listed jobs).
class DelayScheduling {
 public:
  using Ticks = int64_t;
  // llround(seconds x 1e9), without a library call: the truncation's remainder is exact
  static Ticks ticks(double seconds) {
    const double ns = seconds * 1e9;
    const Ticks whole = Ticks(ns);
    const double rest = ns - double(whole);
    return whole + Ticks(rest >= 0.5) - Ticks(rest <= -0.5);
  }
  // `delay`: the node-locality wait; `rack_delay` (< 0: the same) the further rack-locality wait
  // (Hadoop 1.2.1's mapred.fairscheduler.locality.delay.node and .rack).
  void init(const Sim& sim, double delay, double rack_delay = -1) {
    job_.assign(sim.workload().n_jobs(), Job{});
    skipped_list_.assign(sim.workload().n_jobs(), 0);  // (a job is in it at most once)
    n_skipped_ = 0;
    delay_ = ticks(delay);
    rack_delay_ = rack_delay < 0 ? delay_ : ticks(rack_delay);
  }
  // Step 1: at each heartbeat, jobs skipped at the previous one have waited another delta.
  void on_heartbeat(const Sim& sim) {
    const Ticks now = ticks(sim.now());
    const Ticks delta = last_heartbeat_ < 0 ? 0 : now - last_heartbeat_;
    last_heartbeat_ = now;
    const bool all_listed = listed_skipped_;
    if (all_listed) shared_ += delta;  // every listed job was skipped: each has waited delta more
    listed_skipped_ = false;
    bool listed_waited = false;
    for (size_t k = 0; k < n_skipped_; ++k) {
      Job& r = job_[size_t(skipped_list_[k])];
      r.skipped = 0;
      if (!r.listed) {
        r.wait += delta;
      } else if (!all_listed) {  // (else counted once, through the shared clock)
        r.wait -= delta;
        listed_waited = true;
      }
    }
    n_skipped_ = 0;
    // those listed jobs will reach the delay delta sooner: so may the first of them
    if (listed_waited && next_cross_ != kNever) next_cross_ -= delta;
  }
  // Step 2: the locality level this job may launch at now.
  Locality allowed(int32_t job) const {
    if (delay_ <= 0) return kRemote;
    const Job& r = job_[size_t(job)];
    const Ticks w = waited(r);
    switch (r.level) {
      case kNodeLocal: return w >= delay_ + rack_delay_ ? kRemote : (w >= delay_ ? kRackLocal : kNodeLocal);
      case kRackLocal: return w >= rack_delay_ ? kRemote : kRackLocal;
      default: return kRemote;
    }
  }
  // allowed(job) == kNodeLocal, without working out the level beyond (a scan's common question).
  bool node_local_only(int32_t job) const {
    const Job& r = job_[size_t(job)];
    return delay_ > 0 && r.level == kNodeLocal && waited(r) < delay_;
  }
  // Step 3: a launch resets the wait and records the level; a visit without launch marks a skip.
  void launched(int32_t job, Locality l) {
    Job& r = job_[size_t(job)];
    r.level = l == kNoLocality ? kNodeLocal : l;
    r.wait = r.listed ? shared_ : 0;
    watch(job);
  }
  void skipped(int32_t job) {
    Job& r = job_[size_t(job)];
    if (!r.skipped) { r.skipped = 1; skipped_list_[n_skipped_++] = job; }
  }
  // How long `job` has waited since its last launch, counted as above.
  Ticks waited(int32_t job) const { return waited(job_[size_t(job)]); }
  // The locality of its last map launch, and whether it was skipped since the last heartbeat.
  Locality level(int32_t job) const { return Locality(job_[size_t(job)].level); }
  bool was_skipped(int32_t job) const {
    const Job& r = job_[size_t(job)];
    return r.skipped || (listed_skipped_ && r.listed);
  }

  // ---- the listed jobs (optional) ----
  // `job` joins or leaves the list. The list may not change between skip_listed() and the next
  // on_heartbeat(): that heartbeat's wait is owed to the jobs listed at the skip.
  void list(int32_t job, bool on) {
    Job& r = job_[size_t(job)];
    if (bool(r.listed) == on) return;
    if (listed_skipped_) throw std::logic_error("DelayScheduling: the listed jobs changed after skip_listed()");
    r.wait = shared_ - r.wait;  // a listed job's wait is shared_ - wait
    r.listed = on;
    if (on) {
      r.listed_pos = int32_t(listed_jobs_.size());
      listed_jobs_.push_back(job);
    } else {
      const int32_t last = listed_jobs_.back();
      listed_jobs_[size_t(r.listed_pos)] = last;
      job_[size_t(last)].listed_pos = r.listed_pos;
      listed_jobs_.pop_back();
    }
    watch(job);
  }
  // skipped(j) for every listed job.
  void skip_listed() { listed_skipped_ = true; }
  // Whether some listed job may launch beyond node-local here: one allowed to go anywhere, or
  // one allowed to go rack-local for which on_rack(job) (it has a map on this rack) holds.
  template <class OnRack>
  bool listed_may_go_beyond_node(OnRack on_rack) {
    if (listed_jobs_.empty()) return false;
    if (delay_ <= 0) return true;
    if (shared_ >= next_cross_) rescan();
    for (size_t i = 0; i < beyond_.size();) {
      const int32_t j = beyond_[i];
      const Locality a = job_[size_t(j)].listed ? allowed(j) : kNodeLocal;
      if (a == kRemote || (a == kRackLocal && on_rack(j))) return true;
      if (a == kNodeLocal) {  // left the list, or launched node-local since
        job_[size_t(j)].in_beyond = 0;
        beyond_[i] = beyond_.back();
        beyond_.pop_back();
        continue;
      }
      ++i;
    }
    return false;
  }

 private:
  // One record per job (one cache line holds four: a scan's visit reads one).
  struct Job {
    Ticks wait = 0;            // unlisted job: its wait; listed job: shared_ at which its wait was 0
    int32_t listed_pos = -1;   // its place in listed_jobs_
    uint8_t level = kNodeLocal;  // the locality of its last map launch
    uint8_t skipped = 0;       // in skipped_list_
    uint8_t listed = 0;
    uint8_t in_beyond = 0;     // in beyond_
  };
  Ticks waited(const Job& r) const { return r.listed ? shared_ - r.wait : r.wait; }
  bool beyond_node(const Job& r) const { return r.level != kNodeLocal || waited(r) >= delay_; }
  // Listed jobs allowed beyond node-local are kept in beyond_; for the others, next_cross_ is a
  // lower bound on the shared clock at which the first of them will have waited the delay
  // (waits of listed jobs grow with the shared clock, or by a delta at on_heartbeat, which
  // lowers the bound by as much).
  void watch(int32_t job) {
    Job& r = job_[size_t(job)];
    if (!r.listed) return;
    if (!beyond_node(r)) {
      next_cross_ = std::min(next_cross_, r.wait + delay_);
    } else if (!r.in_beyond) {
      r.in_beyond = 1;
      beyond_.push_back(job);
    }
  }
  void rescan() {
    next_cross_ = kNever;
    for (int32_t j : listed_jobs_) watch(j);
  }

  std::vector<Job> job_;
  std::vector<int32_t> skipped_list_;  // its first n_skipped_ entries: the jobs skipped since on_heartbeat()
  size_t n_skipped_ = 0;
  std::vector<int32_t> listed_jobs_;
  Ticks shared_ = 0;              // the listed jobs' clock: grows by the heartbeat deltas they all waited
  bool listed_skipped_ = false;   // skip_listed() since the last on_heartbeat()
  std::vector<int32_t> beyond_;
  static constexpr Ticks kNever = std::numeric_limits<Ticks>::max();
  Ticks next_cross_ = kNever;
  Ticks delay_ = 0, rack_delay_ = 0;
  Ticks last_heartbeat_ = -1;
};

// Hadoop's FairShareComparator: needy schedulables (running < min(minShare, demand)) first by
// running / max(minShare, 1); the rest by running / weight; ties by start time, then id.
struct FairKey {
  double ratio;
  double start;
  int32_t id;
  bool needy;  // (last: the key packs into 24 bytes)
  static FairKey make(double running, double demand, double min_share, double weight, double start, int32_t id) {
    const double ms = std::min(min_share, demand);
    const bool needy = running < ms;
    const double by = needy ? std::max(ms, 1.0) : weight;
    return FairKey{by == 1.0 ? running : running / by, start, id, needy};  // (x / 1 is x: no division)
  }
  bool operator!=(const FairKey& o) const { return ratio != o.ratio || start != o.start || id != o.id || needy != o.needy; }
  bool operator<(const FairKey& o) const {
    if (needy != o.needy) return needy;
    if (ratio != o.ratio) return ratio < o.ratio;
    if (start != o.start) return start < o.start;
    return id < o.id;
  }
};

// Keys (each ending with its id) in FairKey order, kept sorted as keys change one at a time, so
// that an order that changes a little between heartbeats costs that little rather than a full
// sort. The caller keeps each id's current key. The keys sit in blocks of at most kMaxBlock, in
// order: a re-key that keeps the entry in its block finds its new place there by binary search
// and moves the keys in between by one; one that moves it farther takes it out and puts it where
// it belongs, found by a binary search over the blocks and then in one block. On an overloaded cluster
// thousands of jobs wait with the same share and each launch moves its job past all of them:
// O(log n + block) per re-key there instead of O(n).
class KeyedOrder {
 public:
  static constexpr size_t kMaxBlock = 128;
  struct Cursor {
    size_t block = 0, pos = 0;
  };
  Cursor begin() const { return {}; }
  bool done(const Cursor& c) const { return c.block >= blocks_.size(); }
  const FairKey& at(const Cursor& c) const { return blocks_[c.block][c.pos]; }
  void next(Cursor& c) const {
    if (++c.pos == blocks_[c.block].size()) {
      ++c.block;
      c.pos = 0;
    }
  }
  size_t size() const { return size_; }
  // Where key k is (or would go: then possibly one past its block's end).
  Cursor find(const FairKey& k) const {
    const size_t b = block_for(k);
    if (b == blocks_.size()) return Cursor{b, 0};
    const auto& v = blocks_[b];
    return Cursor{b, size_t(std::lower_bound(v.begin(), v.end(), k) - v.begin())};
  }
  void insert(const FairKey& k) {
    ++size_;
    if (blocks_.empty()) {
      blocks_.push_back({k});
      return;
    }
    const size_t b = std::min(block_for(k), blocks_.size() - 1);
    auto& v = blocks_[b];
    v.insert(std::lower_bound(v.begin(), v.end(), k), k);
    if (v.size() > kMaxBlock) split(b);
  }
  void erase(const FairKey& k) { erase_at(find(k)); }
  // Gives the entry at c the key k (of the same id) and moves it to its place.
  void rekey(const Cursor& c, const FairKey& k) {
    auto& v = blocks_[c.block];
    size_t i = c.pos;
    const bool after_previous = c.block == 0 || blocks_[c.block - 1].back() < k;
    const bool before_next = c.block + 1 == blocks_.size() || k < blocks_[c.block + 1].front();
    if (!(after_previous && before_next)) {  // its place is in another block
      erase_at(c);
      insert(k);
      return;
    }
    // (its new place by binary search and the keys between moved in one go: a launch moves its
    // job past every job of the share it leaves, often most of the block, and a step per
    // neighbour was a comparison per neighbour; keys are unique, ending with the id)
    const auto at = v.begin() + std::ptrdiff_t(i);
    if (v[i] < k) {
      const auto to = std::upper_bound(at + 1, v.end(), k) - 1;
      std::move(at + 1, to + 1, at);
      *to = k;
    } else {
      const auto to = std::upper_bound(v.begin(), at, k);
      std::move_backward(to, at, at + 1);
      *to = k;
    }
  }

 private:
  // The first block whose last key is not below k (blocks_.size() if none).
  size_t block_for(const FairKey& k) const {
    size_t lo = 0, hi = blocks_.size();
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (blocks_[mid].back() < k) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  void erase_at(const Cursor& c) {
    auto& v = blocks_[c.block];
    v.erase(v.begin() + std::ptrdiff_t(c.pos));
    --size_;
    if (v.empty()) {
      blocks_.erase(blocks_.begin() + std::ptrdiff_t(c.block));
    } else if (v.size() < kMaxBlock / 4 && c.block + 1 < blocks_.size() &&
               v.size() + blocks_[c.block + 1].size() <= kMaxBlock) {  // (no trail of small blocks)
      auto& w = blocks_[c.block + 1];
      v.insert(v.end(), w.begin(), w.end());
      blocks_.erase(blocks_.begin() + std::ptrdiff_t(c.block + 1));
    }
  }
  void split(size_t b) {
    auto& v = blocks_[b];
    std::vector<FairKey> back(v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    v.resize(v.size() / 2);
    blocks_.insert(blocks_.begin() + std::ptrdiff_t(b + 1), std::move(back));
  }
  std::vector<std::vector<FairKey>> blocks_;  // none empty
  size_t size_ = 0;
};

// Puts an id in `order` with a fresh key (which ends with the id), or takes it out; `key` and
// `listed` are its records.
template <class Fresh>
void set_listed(KeyedOrder& order, FairKey& key, uint8_t& listed, bool list, Fresh fresh) {
  if (listed && list) {
    const FairKey k = fresh();
    if (k != key) {
      order.rekey(order.find(key), k);
      key = k;
    }
  } else if (listed) {
    order.erase(key);
  } else if (list) {
    key = fresh();
    order.insert(key);
  }
  listed = list;
}

// Slots (attempts) held by reduces of jobs whose map phase is not over. On a pool of untyped
// slots (or containers) such reduces wait for maps that need slots too; schedulers cap them to
// avoid the deadlock of a pool full of waiting reduces.
inline int64_t early_reduce_attempts(const Sim& sim) {
  int64_t n = 0;
  for (int32_t j : sim.active_jobs())
    if (sim.job(j).done[kMap] < sim.workload().n_maps[j]) n += sim.job(j).running_attempts[kReduce];
  return n;
}

// A pool or queue id written as text (a key of a 'key:value,...' parameter): a whole number in
// [0, 2^31 - 1], else std::invalid_argument naming the parameter.
inline int32_t parse_id_key(const std::string& owner, const std::string& key) {
  size_t used = 0;
  long long v = -1;
  try {
    v = std::stoll(key, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != key.size() || v < 0 || v > 2147483647LL)
    throw std::invalid_argument(owner + ": key '" + key + "' is not a pool or queue id (expected a whole number in [0, 2^31 - 1])");
  return int32_t(v);
}

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

// CapBasedLoadManager [Sagar & Moni 2015, §II]: a tracker may run at most
// ceil(slots * min(1, max_diff + demand / total)) tasks of a type.
inline int32_t hfs_load_cap(int32_t slots, double demand, int32_t total, double max_diff = 0) {
  if (total <= 0) return 0;
  return int32_t(std::ceil(slots * std::min(1.0, max_diff + demand / total) - 1e-9));
}

// Strict data locality needs every map with replicas to have one on a node that has map slots;
// otherwise the map could never run. Throws std::invalid_argument naming the task.
inline void check_strict_locality(const Sim& sim, const std::string& owner) {
  const auto& wl = sim.workload();
  std::vector<int32_t> scratch;
  for (size_t t = 0; t < wl.n_tasks(); ++t) {
    if (wl.task_stage[t] != kMap) continue;
    const auto& reps = sim.replicas_of(int32_t(t), scratch);
    if (reps.empty()) continue;  // no locality information: may run anywhere
    bool ok = false;
    for (int32_t n : reps) ok |= sim.map_capacity(n) > 0;
    if (!ok)
      throw std::invalid_argument(owner + ": map task " + std::to_string(t) + " (job " + std::to_string(wl.task_job[t]) +
                                  ") has no input replica on a node with map slots, so strict locality can never run it");
  }
}

// Takes out of an ordered list of job ids those `gone(job)` says have left it: from the front at
// every call (the scans start there) and from everywhere every 256th call, so that a call costs
// O(1) amortised rather than O(list).
template <class Gone>
void drop_departed(std::vector<int32_t>& v, uint64_t& calls, Gone gone) {
  if (++calls % 256 == 0) {
    v.erase(std::remove_if(v.begin(), v.end(), gone), v.end());
  } else {
    auto it = v.begin();
    while (it != v.end() && gone(*it)) ++it;
    v.erase(v.begin(), it);
  }
}

// Hadoop 1.2.1 JobQueueTaskScheduler [Sagar & Moni 2015, Fig. 10]: the job queue and its per-heartbeat rules,
// shared by fifo / edf and DynamicMR's FIFO base. Jobs are kept in Hadoop's order (priority,
// then submission; JobQueueJobInProgressListener's comparator), or by deadline, then submission
// order, for edf.
class HadoopJobQueue {
 public:
  explicit HadoopJobQueue(bool by_deadline = false) : by_deadline_(by_deadline) {}

  // gate_reduces: also keep the jobs whose maps have all finished (maps_done_jobs())
  void init(Sim& sim, bool gate_reduces = false) {
    const size_t n = sim.workload().n_jobs();
    seq_.assign(n, 0);
    for (int s = 0; s < 2; ++s) { listed_[s].assign(n, 0); ready_[s].clear(); }
    gate_ = gate_reduces;
    gate_listed_.assign(gate_ ? n : 0, 0);
    maps_done_.clear();
    changes_ = sim.track_job_changes();
  }
  void add(const Sim& sim, int32_t job) {
    seq_[size_t(job)] = next_seq_++;
    if (!by_deadline_) {
      jobs_.insert(std::upper_bound(jobs_.begin(), jobs_.end(), job, [&](int32_t a, int32_t b) { return before(sim, a, b); }), job);
      return;
    }
    // keep the queue sorted by (deadline, submit order); jobs without a deadline go last
    jobs_.insert(std::upper_bound(jobs_.begin(), jobs_.end(), job, [&](int32_t a, int32_t b) { return deadline(sim, a) < deadline(sim, b); }), job);
  }
  void remove(int32_t job) {
    jobs_.erase(std::find(jobs_.begin(), jobs_.end(), job));
    if (gate_ && gate_listed_[size_t(job)]) {  // (a finished job's maps stay done: it would stay listed)
      maps_done_.erase(std::find(maps_done_.begin(), maps_done_.end(), job));
      gate_listed_[size_t(job)] = 0;
    }
  }
  const std::vector<int32_t>& jobs() const { return jobs_; }
  // The job's priority changed: it moves to its place (the deadline order ignores priorities).
  void reorder(const Sim& sim, int32_t job) {
    if (by_deadline_) return;
    for (auto* v : {&jobs_, &ready_[0], &ready_[1], &maps_done_}) {
      auto it = std::find(v->begin(), v->end(), job);
      if (it == v->end()) continue;
      v->erase(it);
      v->insert(std::upper_bound(v->begin(), v->end(), job, [&](int32_t a, int32_t b) { return before(sim, a, b); }), job);
    }
  }

  // The load-factor cap on a tracker's usable slots of `type`: min(ceil(remaining load / cluster
  // slots x node slots), node slots), the remaining load being the uncompleted maps (or the
  // uncompleted reduces of jobs past slowstart) of the running jobs.
  static int32_t load_cap(const Sim& sim, int32_t node, int type) {
    const int32_t slots = type == kMap ? sim.map_capacity(node) : sim.reduce_capacity(node);
    const int32_t total = type == kMap ? sim.total_map_slots() : sim.total_reduce_slots();
    if (total <= 0) return 0;
    const double remaining = double(type == kMap ? sim.remaining_tasks(kMap) : sim.remaining_ready_reduces());
    return std::min<int32_t>(int32_t(std::ceil(remaining / total * slots - 1e-9)), slots);
  }

  // The map pass for up to `max_maps` slots: for each, jobs are scanned in queue order and the
  // first with a pending map gives a node- or rack-local one (scan restarts from the head) or
  // else a non-local one, which ends the map pass for this heartbeat (`off_switch` set). With
  // `strict`, only node-local maps, from the first job that has one. may_run(job) filters jobs
  // (admission control); launch(task) starts the chosen map. Returns the number launched.
  template <class MayRun, class Launch>
  int32_t assign_maps(Sim& sim, int32_t node, int32_t max_maps, bool strict, bool& off_switch, MayRun may_run,
                      Launch launch) {
    const auto& ready = eligible_jobs(sim, kMap);
    int32_t launched = 0;
    for (int32_t i = 0; i < max_maps && !off_switch; ++i) {
      bool assigned = false;
      for (int32_t j : ready) {
        if (!may_run(j) || sim.job(j).pending[kMap] == 0) continue;
        if (strict) {  // S-pull: the first job in FIFO order with a map whose block is here
          const int32_t t = sim.find_map(j, node, kNodeLocal);
          if (t >= 0) { launch(t); assigned = true; break; }
          continue;
        }
        int32_t t = sim.find_map(j, node, kRackLocal);
        if (t >= 0) { launch(t); assigned = true; break; }
        t = sim.find_map(j, node, kRemote);
        if (t >= 0) { launch(t); assigned = off_switch = true; break; }
      }
      if (!assigned) break;
      ++launched;
    }
    return launched;
  }

  // The reduce the heartbeat's one reduce launch takes: the first job in queue order past
  // slowstart with a pending reduce; -1 if none.
  template <class MayRun>
  int32_t next_reduce(Sim& sim, MayRun may_run) {
    for (int32_t j : eligible_jobs(sim, kReduce)) {
      if (!may_run(j) || !sim.reduces_allowed(j)) continue;
      const int32_t t = sim.find_reduce(j);
      if (t >= 0) return t;
    }
    return -1;
  }

  // The queue's eligible jobs for `stage`, in queue order (and perhaps some that no longer are,
  // which the scans skip as before). Scanning the whole queue visits every other job; this list
  // skips them, which matters when thousands of jobs are active. Eligibility changes only with a
  // job's state, which the engine's change log reports (submission, a task ending or re-queued,
  // lost map outputs): such jobs are (re)listed at the next call.
  const std::vector<int32_t>& eligible_jobs(Sim& sim, int stage) {
    drain_changes(sim);
    auto& v = ready_[stage];  // (jobs no longer eligible leave it: drop_departed)
    drop_departed(v, calls_[stage], [&](int32_t j) {
      const bool drop = !eligible(sim, j, stage);
      if (drop) listed_[stage][size_t(j)] = 0;
      return drop;
    });
    return v;
  }

  // The queue's jobs whose maps have all finished, in queue order (and perhaps some that no
  // longer qualify, which the scans skip as before): the only jobs a scan that gates reduces on
  // their job's maps (edf_ideal) asks for a reduce, among the queue's thousands at production
  // scale. Only for a queue initialised with gate_reduces.
  const std::vector<int32_t>& maps_done_jobs(Sim& sim) {
    drain_changes(sim);
    drop_departed(maps_done_, gate_calls_, [&](int32_t j) {
      const bool drop = !std::isnan(sim.job(j).finish) || !maps_done(sim, j);
      if (drop) gate_listed_[size_t(j)] = 0;
      return drop;
    });
    return maps_done_;
  }

  // The first job in queue order with a pending map, or -1.
  int32_t head_map_job(Sim& sim) {
    for (int32_t j : eligible_jobs(sim, kMap))
      if (sim.job(j).pending[kMap] > 0) return j;
    return -1;
  }

 private:
  static double deadline(const Sim& sim, int32_t j) {
    return sim.workload().has_deadline(j) ? sim.workload().deadline[j] : INFINITY;
  }
  bool before(const Sim& sim, int32_t a, int32_t b) const {
    if (by_deadline_ && deadline(sim, a) != deadline(sim, b)) return deadline(sim, a) < deadline(sim, b);
    const auto& priority = sim.workload().priority;
    if (!by_deadline_ && priority[size_t(a)] != priority[size_t(b)]) return priority[size_t(a)] < priority[size_t(b)];
    return seq_[size_t(a)] < seq_[size_t(b)];
  }
  // Whether a scan for `stage` may pick job j: it has pending tasks of that stage (reduces: and
  // its maps have passed slowstart).
  static bool eligible(const Sim& sim, int32_t j, int stage) {
    return sim.job(j).pending[stage] > 0 && (stage == kMap || sim.reduces_allowed(j));
  }
  static bool maps_done(const Sim& sim, int32_t j) { return sim.job(j).done[kMap] >= sim.workload().n_maps[j]; }
  // The jobs the engine logged as changed join the lists they now qualify for, in queue order.
  void drain_changes(Sim& sim) {
    sim.drain_changed_jobs(changes_, [&](int32_t j) {
      const JobState& js = sim.job(j);
      if (!js.submitted || !std::isnan(js.finish)) return;
      auto list = [&](std::vector<int32_t>& v, uint8_t& listed) {
        listed = 1;
        v.insert(std::upper_bound(v.begin(), v.end(), j, [&](int32_t a, int32_t b) { return before(sim, a, b); }), j);
      };
      for (int s = 0; s < 2; ++s)
        if (eligible(sim, j, s) && !listed_[s][size_t(j)]) list(ready_[s], listed_[s][size_t(j)]);
      if (gate_ && maps_done(sim, j) && !gate_listed_[size_t(j)]) list(maps_done_, gate_listed_[size_t(j)]);
    });
  }

  bool by_deadline_;
  std::vector<int32_t> jobs_;
  std::vector<uint64_t> seq_;  // per job: order of submission to the queue
  uint64_t next_seq_ = 0;
  std::vector<int32_t> ready_[2];
  std::vector<uint8_t> listed_[2];
  uint64_t calls_[2] = {0, 0};
  bool gate_ = false;
  std::vector<int32_t> maps_done_;  // (with gate_) maps_done_jobs()
  std::vector<uint8_t> gate_listed_;
  uint64_t gate_calls_ = 0;
  int changes_ = -1;
};

// Faults can leave reduces waiting in their copy phase, in every slot a map could use, for map
// outputs lost with a crashed node: no map can run again, and none of the papers' schedulers
// preempts (their papers have no faults). When maps are pending, no attempt computes anywhere
// (every one is a reduce waiting for maps), every node is up and none has a free slot of
// `map_slot_type`, the youngest waiting reduce on `node` that
// holds such a slot (any slot if `any_slot`, for a pooled model) is killed (it re-runs later) and
// a pending map of the oldest job that has one starts in its slot. Returns whether this happened.
// Fault-free runs never get here with a waiting reduce to kill unless a scheduler lets reduces
// take every slot maps need.
inline bool kill_reduce_blocking_lost_maps(Sim& sim, int32_t node, int map_slot_type, bool any_slot) {
  if (sim.total_pending(kMap) == 0 || sim.total_running(kMap) > 0) return false;
  for (int32_t i = 0; i < sim.n_nodes(); ++i)
    if (!sim.node_up(i) || sim.free_slots(i, map_slot_type) > 0) return false;
  for (int32_t i = 0; i < sim.n_nodes(); ++i)  // an attempt still computing will free its slot
    for (int64_t a : sim.attempts_on(i))
      if (std::isfinite(sim.attempt(a).finish)) return false;
  int64_t victim = -1;
  for (int64_t a : sim.attempts_on(node)) {
    const Attempt& at = sim.attempt(a);
    if (sim.workload().task_stage[at.task] != kReduce || !std::isnan(at.finish)) continue;
    if (!any_slot && at.slot_type != map_slot_type) continue;
    if (victim < 0 || at.start >= sim.attempt(victim).start) victim = a;
  }
  if (victim < 0) return false;
  sim.kill(victim);
  for (int32_t j : sim.active_jobs()) {
    const int32_t t = sim.job(j).pending[kMap] > 0 ? sim.find_map(j, node, kRemote) : -1;
    if (t >= 0) {
      sim.launch(t, node, map_slot_type);
      break;
    }
  }
  return true;
}

// The Fair Scheduler's pools (one per workload user): weights, min shares, member jobs, the
// FairShareComparator order of pools and the key that orders jobs inside a pool [Sagar & Moni
// 2015, §II].
class FairPools {
 public:
  FairPools() = default;
  // `by_queue`: a job's pool is its workload queue column (a job property, Hadoop's
  // mapred.fairscheduler.poolnameproperty set to one), else its user column (user.name, the
  // default). `min_map_shares` / `min_reduce_shares` override `min_shares` per task type.
  // `tie_by_name`: pools tied in fairness go by id (Hadoop 1.2.1: a pool's start time is 0, ties
  // by name), else the pool with the oldest job first.
  FairPools(std::string owner, const std::string& pool_weights, const std::string& min_shares, bool fifo_in_pool,
            bool by_queue = false, const std::string& min_map_shares = "", const std::string& min_reduce_shares = "",
            bool tie_by_name = true)
      : owner_(std::move(owner)),
        weights_text_(parse_key_values(owner_ + ": pool_weights", pool_weights)),
        min_shares_text_(parse_key_values(owner_ + ": min_shares", min_shares)),
        min_type_text_{parse_key_values(owner_ + ": min_map_shares", min_map_shares),
                       parse_key_values(owner_ + ": min_reduce_shares", min_reduce_shares)},
        fifo_in_pool_(fifo_in_pool),
        by_queue_(by_queue),
        tie_by_name_(tie_by_name) {}

  // `min_pools`: at least this many pools (pools configured but without jobs).
  void init(const Sim& sim, int32_t min_pools = 0) {
    const auto& column = by_queue_ ? sim.workload().queue : sim.workload().user;
    pool_of_.assign(column.begin(), column.end());
    int32_t n = min_pools;
    for (int32_t u : pool_of_) n = std::max(n, u + 1);
    weight_.assign(n, 1.0);
    for (int s = 0; s < 2; ++s) min_type_[s].assign(n, 0.0);
    min_share_.assign(n, 0.0);
    for (auto& [k, v] : weights_text_) set(weight_, k, v, "pool_weights", true);
    for (auto& [k, v] : min_shares_text_) set(min_share_, k, v, "min_shares", false);
    for (int s = 0; s < 2; ++s) {
      min_type_[s] = min_share_;
      for (auto& [k, v] : min_type_text_[s]) set(min_type_[s], k, v, s == 0 ? "min_map_shares" : "min_reduce_shares", false);
    }
    jobs_.assign(n, {});
  }
  int32_t pool_of(int32_t job) const { return pool_of_[size_t(job)]; }
  void add(const Sim&, int32_t job) { jobs_[pool_of(job)].push_back(job); }
  void remove(const Sim&, int32_t job) {
    auto& v = jobs_[pool_of(job)];
    v.erase(std::find(v.begin(), v.end(), job));
  }
  int32_t n_pools() const { return int32_t(jobs_.size()); }
  // Moves a submitted, unfinished job to another pool (Hadoop's PoolManager.setPool); the pool's
  // jobs stay in submission order.
  void move(int32_t job, int32_t pool) {
    auto& from = jobs_[pool_of(job)];
    from.erase(std::find(from.begin(), from.end(), job));
    auto& to = jobs_[pool];
    to.insert(std::upper_bound(to.begin(), to.end(), job), job);
    pool_of_[size_t(job)] = pool;
  }
  const std::vector<int32_t>& jobs(int32_t pool) const { return jobs_[pool]; }
  double weight(int32_t pool) const { return weight_[pool]; }
  double min_share(int32_t pool) const { return min_share_[pool]; }
  double min_share(int32_t pool, int type) const { return min_type_[type][pool]; }

  // Pools with a job for which runnable(job) holds, in FairShareComparator order. A pool's
  // running count and demand are over tasks of the stages in `stages` (a bit mask: 1 = maps,
  // 2 = reduces, 3 = both). The returned vector is reused by the next call. Its keys are those
  // the pools were sorted by; where one pool at most has a runnable job there is no order to
  // find, and its key is left empty (the pool's jobs are read only up to the first runnable one).
  template <class Runnable>
  const std::vector<std::pair<FairKey, int32_t>>& order_pools(const Sim& sim, int stages, Runnable runnable) {
    pool_order_.clear();
    for (int32_t p = 0; p < n_pools(); ++p)
      if (std::any_of(jobs_[p].begin(), jobs_[p].end(), runnable)) pool_order_.push_back({FairKey{}, p});
    if (pool_order_.size() <= 1) return pool_order_;
    const auto& wl = sim.workload();
    pool_order_.clear();
    for (int32_t p = 0; p < n_pools(); ++p) {
      double running = 0, demand = 0, start = INFINITY;
      bool any = false;
      for (int32_t j : jobs_[p]) {
        const JobState& js = sim.job(j);
        const bool r = runnable(j);
        for (int s = 0; s < 2; ++s) {
          if (!(stages & (1 << s))) continue;
          running += js.running_attempts[s];
          if (r) demand += js.pending[s] + js.running[s];
        }
        any |= r;
        start = tie_by_name_ ? 0.0 : std::min(start, wl.submit_time[j]);
      }
      if (any) pool_order_.push_back({FairKey::make(running, demand, min_share_[p], weight_[p], start, p), p});
    }
    std::sort(pool_order_.begin(), pool_order_.end());
    return pool_order_;
  }

  // A job's key in its pool's fair (or FIFO) order for tasks of stage `type` (it ends with the job
  // id: no two are equal).
  FairKey job_key(const Sim& sim, int32_t j, int type) const {
    const auto& wl = sim.workload();
    if (fifo_in_pool_) return FairKey{0, wl.submit_time[j], j, false};
    const JobState& js = sim.job(j);
    return FairKey::make(js.running_attempts[type], js.pending[type] + js.running[type], 0, wl.weight[j], wl.submit_time[j], j);
  }

 private:
  void set(std::vector<double>& v, const std::string& key, double value, const char* what, bool positive) {
    const int idx = parse_id_key(owner_ + ": " + what, key);
    if (idx < 0 || idx >= int(v.size())) return;  // a pool with no jobs
    if (positive ? !(value > 0) : value < 0)
      throw std::invalid_argument(owner_ + ": " + what + " of pool " + key + " must be " + (positive ? "positive" : "non-negative"));
    v[idx] = value;
  }
  std::string owner_;
  std::map<std::string, double> weights_text_, min_shares_text_, min_type_text_[2];
  bool fifo_in_pool_ = false;
  bool by_queue_ = false;
  bool tie_by_name_ = true;
  std::vector<int32_t> pool_of_;
  std::vector<double> weight_, min_share_, min_type_[2];
  std::vector<std::vector<int32_t>> jobs_;
  std::vector<std::pair<FairKey, int32_t>> pool_order_;
};

}  // namespace schedlab::mr

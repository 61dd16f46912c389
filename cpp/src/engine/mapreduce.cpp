// The MapReduce slot simulator (see schedlab/mapreduce.h).
//
// Runtime model, per attempt:
//   map:    duration = work / speed(node) * locality factor (1, rack_local_factor, remote_factor)
//   reduce: copy phase ends at max(launch + shuffle, last map end + shuffle / n_maps), where
//           shuffle = input_bytes / network_bandwidth: the last map's share of the output can
//           only be fetched after that map ends. Then work / speed(node) of sort+reduce.
// Faults: a slowdown multiplies the remaining duration of the node's attempts in flight by its
// factor (their finish is re-timed; the stale end events are ignored because their time differs
// from the attempt's finish). A crash freezes the node's attempts; at detection they fail, and the
// node's completed map outputs that a reduce still needs are lost (the attempts become kLost, the
// maps re-run first, and reduces still copying wait for them). The node rejoins, empty, at restart.
// Heartbeats: node i first reports at interval * i / n, then every interval, as Hadoop 1
// TaskTrackers do. When nothing is pending or running anywhere, nodes stop heartbeating and
// resume on their own grid when work arrives: the schedule is unchanged, idle time is free.
// Likewise, while no task is pending (and the scheduler's heartbeats then change nothing, no
// speculator, no fault to come), a node sleeps after such a heartbeat and is woken, when something
// becomes pending, at the heartbeat of its own chain the run would have reached, in the order it
// would have had among simultaneous events (Sim::wake_sleeping): long tasks cost no heartbeats.
#include "schedlab/interrupt.h"
#include "schedlab/mapreduce.h"
#include "schedlab/speculation.h"
#include "schedlab/huge_pages.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <unordered_map>

namespace schedlab::mr {

// attempt records per 2 MB: populated ahead of the launches that write them, converted into the
// result's columns and released by blocks of this size at the end
constexpr size_t kRecordBlock = size_t(1) << 15;
// runs whose records' room reaches this size populate it on a thread of their own, this many
// blocks ahead of the launches
constexpr size_t kBackgroundPopulateBytes = size_t(64) << 20;
constexpr size_t kPopulateAhead = 16;
// workloads whose drawn replicas reach this many draw them on a thread of their own
constexpr size_t kBackgroundReplicas = size_t(1) << 20;
// the place indexes built ahead of the jobs' arrivals on that thread hold at most this many
// replicas not yet taken (some tens of MB)
constexpr int64_t kIndexAheadReplicas = int64_t(1) << 20;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::unordered_map<std::string, SchedulerFactory>& factories() {
  static std::unordered_map<std::string, SchedulerFactory> f;
  return f;
}
}  // namespace

const std::vector<ParamSpec>& Options::specs() {
  static const std::vector<ParamSpec> s = {
      ParamSpec::number("heartbeat_interval", -1, -1, 1e6,
                        "TaskTracker heartbeat period in seconds; -1 = Hadoop 1's max(1 s x ceil(nodes/100), 0.3 s)"),
      ParamSpec::boolean("out_of_band_heartbeat", false, "a node also heartbeats as soon as a task ends on it"),
      ParamSpec::number("slowstart", 0.05, 0, 1, "fraction of a job's maps that must be complete before its reduces may start"),
      ParamSpec::number("rack_local_factor", 1.2, 1, 100, "map duration multiplier when its input is read from another node of the rack"),
      ParamSpec::number("remote_factor", 1.5, 1, 100, "map duration multiplier when its input is read from another rack"),
      ParamSpec::number("network_bandwidth", 1.25e8, 1e-9, 1e15, "bytes per second at which a reduce fetches its shuffle input"),
      ParamSpec::integer("replication", 3, 1, 1000, "replicas drawn for each map input when the workload gives none (HDFS placement)"),
      ParamSpec::number("time_limit", INFINITY, 0, INFINITY, "stop the simulation at this time (unfinished jobs get NaN finish times)"),
      ParamSpec::number("stall_limit", 86400, 0, INFINITY,
                        "raise an error when tasks are pending and for this many simulated seconds (at least two "
                        "heartbeat periods) no task starts or ends and none is computing (a scheduler that never "
                        "launches them, or reduces holding every slot while waiting for maps, would otherwise run "
                        "forever); 0 = never"),
      ParamSpec::number("sample_interval", 0, 0, 1e9, "> 0: record slot usage every so many seconds (series 'slots')"),
      ParamSpec::boolean("measure_overhead", false,
                         "measure the wall time of every scheduler callback (counters 'scheduler_seconds' and "
                         "'scheduler_calls'; the summary then reports overhead per job); off keeps results free of wall-clock values"),
      ParamSpec::text("faults", "",
                      "injected faults, ';'-separated: slowdown:NODE:START:END:FACTOR, crash:NODE:AT:RESTART_AFTER, "
                      "mtbf:MEAN_UPTIME:RESTART_AFTER:HORIZON (Python: schedlab.faults)"),
      ParamSpec::number("detection_delay", 600, 0, INFINITY,
                        "seconds from a node crash until the master declares it lost (Hadoop/YARN tracker expiry: 600 s)"),
      ParamSpec::choice("speculation", "none", speculator_names(),
                        "speculative execution policy, composable with every scheduler (see schedlab.speculation)"),
      ParamSpec::text("speculation_params", "", "the speculator's parameters as 'name:value,...'"),
  };
  return s;
}

Options Options::from(const Params& p) {
  Options o;
  o.heartbeat_interval = p.number("heartbeat_interval");
  if (o.heartbeat_interval < 0 && o.heartbeat_interval != -1)
    throw std::invalid_argument("simulate option 'heartbeat_interval' = " + std::to_string(o.heartbeat_interval) +
                                " must be -1 (Hadoop 1's default) or a positive number of seconds");
  o.out_of_band_heartbeat = p.boolean("out_of_band_heartbeat");
  o.slowstart = p.number("slowstart");
  o.rack_local_factor = p.number("rack_local_factor");
  o.remote_factor = p.number("remote_factor");
  o.network_bandwidth = p.number("network_bandwidth");
  o.replication = static_cast<int>(p.integer("replication"));
  o.time_limit = p.number("time_limit");
  o.stall_limit = p.number("stall_limit");
  o.sample_interval = p.number("sample_interval");
  o.measure_overhead = p.boolean("measure_overhead");
  o.faults = p.text("faults");
  o.detection_delay = p.number("detection_delay");
  o.speculation = p.choice("speculation");
  o.speculation_params = p.text("speculation_params");
  return o;
}

std::vector<Fault> parse_faults(const std::string& text, int32_t n_nodes, uint64_t seed) {
  std::vector<Fault> out;
  size_t pos = 0;
  int item_no = 0;
  Random rng(seed, 5);
  while (pos <= text.size()) {
    size_t end = text.find(';', pos);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    item.erase(0, item.find_first_not_of(" \t\n"));
    item.erase(item.find_last_not_of(" \t\n") + 1);
    if (item.empty()) { if (end == text.size()) break; continue; }
    ++item_no;
    std::vector<std::string> f;
    for (size_t a = 0;;) {
      size_t b = item.find(':', a);
      f.push_back(item.substr(a, b == std::string::npos ? std::string::npos : b - a));
      if (b == std::string::npos) break;
      a = b + 1;
    }
    const std::string where = "faults item " + std::to_string(item_no) + " ('" + item + "')";
    auto num = [&](size_t i, const char* what) {
      std::string v = f[i];
      v.erase(0, v.find_first_not_of(" \t"));
      v.erase(v.find_last_not_of(" \t") + 1);
      try {
        size_t used = 0;
        const double x = std::stod(v, &used);
        if (used != v.size() || std::isnan(x)) throw std::invalid_argument("");
        return x;
      } catch (const std::exception&) {
        throw std::invalid_argument(where + ": " + what + " '" + v + "' is not a number");
      }
    };
    auto node_of = [&](size_t i) {
      const double x = num(i, "node");
      if (x != std::floor(x) || x < 0 || x >= n_nodes)
        throw std::invalid_argument(where + ": node must be a node id in [0, " + std::to_string(n_nodes) + ")");
      return static_cast<int32_t>(x);
    };
    const std::string kind = f[0];
    if (kind == "slowdown") {
      if (f.size() != 5) throw std::invalid_argument(where + ": expected slowdown:NODE:START:END:FACTOR");
      Fault x;
      x.kind = Fault::Slowdown;
      x.node = node_of(1);
      x.start = num(2, "start");
      x.end = num(3, "end");
      x.factor = num(4, "factor");
      if (!(x.start >= 0) || !std::isfinite(x.start)) throw std::invalid_argument(where + ": start must be a finite time >= 0");
      if (!(x.end > x.start)) throw std::invalid_argument(where + ": end must be after start");
      if (!(x.factor > 0) || !std::isfinite(x.factor)) throw std::invalid_argument(where + ": factor must be a positive number");
      out.push_back(x);
    } else if (kind == "crash") {
      if (f.size() != 4) throw std::invalid_argument(where + ": expected crash:NODE:AT:RESTART_AFTER");
      Fault x;
      x.kind = Fault::Crash;
      x.node = node_of(1);
      x.start = num(2, "time");
      x.restart_after = num(3, "restart_after");
      if (!(x.start >= 0) || !std::isfinite(x.start)) throw std::invalid_argument(where + ": time must be a finite time >= 0");
      if (!(x.restart_after > 0)) throw std::invalid_argument(where + ": restart_after must be positive");
      out.push_back(x);
    } else if (kind == "mtbf") {
      if (f.size() != 4) throw std::invalid_argument(where + ": expected mtbf:MEAN_UPTIME:RESTART_AFTER:HORIZON");
      const double mean = num(1, "mean uptime"), restart = num(2, "restart_after"), horizon = num(3, "horizon");
      if (!(mean > 0) || !std::isfinite(mean)) throw std::invalid_argument(where + ": mean uptime must be positive");
      if (!(restart > 0) || !std::isfinite(restart)) throw std::invalid_argument(where + ": restart_after must be positive and finite");
      if (!(horizon >= 0) || !std::isfinite(horizon)) throw std::invalid_argument(where + ": horizon must be finite and >= 0");
      for (int32_t node = 0; node < n_nodes; ++node) {
        for (double t = rng.exponential(mean); t < horizon; t += restart + rng.exponential(mean)) {
          Fault x;
          x.kind = Fault::Crash;
          x.node = node;
          x.start = t;
          x.restart_after = restart;
          out.push_back(x);
        }
      }
    } else {
      throw std::invalid_argument(where + ": unknown fault kind '" + kind + "' (slowdown, crash or mtbf)");
    }
  }
  return out;
}

double heartbeat_chain(double c, double interval, double at_or_after, uint64_t max_steps, uint64_t& steps) {
  // In a binade [2^(e-1), 2^e) the sums are multiples of its ulp u, and c + interval rounds to
  // c + round(interval / u) u: the same step every time, except when interval / u lies halfway
  // between two integers, where the tie goes to the even sum -- and then too every step after the
  // first is the same (if the first went to the odd side's neighbour, so do all later ones). So
  // after one step, the points of a binade are n1 + j s, exact, until the next binade.
  steps = 0;
  while (c < at_or_after && steps < max_steps) {
    const double n1 = c + interval;
    if (!(n1 > c))  // (the run would heartbeat at c for ever; the resource guard refuses it up front)
      throw std::invalid_argument("simulate option 'heartbeat_interval' = " + std::to_string(interval) +
                                  " s is too small to advance the clock past t = " + std::to_string(c) + " s");
    ++steps;
    if (n1 >= at_or_after || steps == max_steps) return n1;
    const double n2 = n1 + interval;
    int e = 0;
    std::frexp(c, &e);
    const double top = std::ldexp(1.0, e);  // the binade of c ends here
    if (!(c >= std::numeric_limits<double>::min()) || !(n2 < top) || !(n1 < n2)) {
      c = n1;
      continue;
    }
    const double s = n2 - n1;  // (exact: multiples of u below 2^e)
    // the last point of the binade reached by steps of s: n1 + jmax s < top
    double jm = std::floor((top - n1) / s);
    while (jm > 1 && n1 + jm * s >= top) jm -= 1;
    while (n1 + (jm + 1) * s < top) jm += 1;
    const uint64_t left = max_steps - steps;  // steps still allowed after n1
    // the first point at or after the target, if it lies in the binade
    double j = std::ceil((at_or_after - n1) / s);
    if (!(j >= 1)) j = 1;
    if (j <= jm) {
      while (j > 1 && n1 + (j - 1) * s >= at_or_after) j -= 1;
      while (j < jm && n1 + j * s < at_or_after) j += 1;
    }
    if (j <= jm && n1 + j * s >= at_or_after && j <= double(left)) {
      steps += uint64_t(j);
      return n1 + j * s;
    }
    const double jump = std::min(jm, double(left));
    steps += uint64_t(jump);
    c = n1 + jump * s;
  }
  return c;
}

void register_scheduler(SchedulerInfo info, SchedulerFactory factory) {
  info.engine = "mapreduce";
  factories()[info.name] = std::move(factory);
  schedlab::register_scheduler(std::move(info));
}

std::unique_ptr<Scheduler> make_scheduler(const std::string& name, const ParamValues& given) {
  const SchedulerInfo& info = find_scheduler(name);
  auto it = factories().find(info.name);
  if (info.engine != "mapreduce" || it == factories().end())
    throw std::invalid_argument("scheduler '" + name + "' does not run on the mapreduce engine");
  return it->second(Params(info.name, info.params, given));
}

void register_engine() {
  EngineInfo e;
  e.name = "mapreduce";
  e.summary = "Hadoop-1 style heartbeat-driven slot simulator (typed slots, pooled slots or YARN containers)";
  e.options = Options::specs();
  e.run = [](const RunRequest& r) {
    const SchedulerInfo& info = find_scheduler(r.scheduler);
    Params sp(info.name, info.params, r.scheduler_params);
    Params op("simulate options (mapreduce engine)", Options::specs(), r.options);
    const Options opt = Options::from(op);
    auto sched = factories().at(info.name)(sp);
    auto spec = make_speculator(opt.speculation, opt.speculation_params);
    Sim sim(*r.cluster, *r.workload, *sched, opt, r.seed);
    sim.set_speculator(spec.get());
    return sim.run();
  };
  schedlab::register_engine(std::move(e));
}

// ---------------------------------------------------------------------------------------------

template <class F>
inline void Sim::call_scheduler(F&& f) {
  if (!opt_.measure_overhead) {
    f();
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  f();
  sched_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
  ++sched_calls_;
}

Sim::Sim(const Cluster& cluster, const Workload& workload, Scheduler& scheduler, const Options& options,
         uint64_t seed)
    : cluster_(cluster),
      own_wl_(workload.has_dependencies() ? std::make_unique<Workload>(workload) : nullptr),
      wl_(own_wl_ ? *own_wl_ : workload),
      sched_(scheduler),
      slot_model_(scheduler.slot_model()),
      opt_(options),
      seed_(seed),
      sched_rng_(seed, 2) {
  const int32_t n = n_nodes();
  if (n == 0) throw std::invalid_argument("cluster has no nodes");
  hb_interval_ = opt_.heartbeat_interval >= 0 ? opt_.heartbeat_interval
                                               : std::max(1.0 * std::ceil(n / 100.0), 0.3);
  if (!(hb_interval_ > 0)) throw std::invalid_argument("simulate option 'heartbeat_interval' must be positive");
  const size_t nj = wl_.n_jobs(), nt = wl_.n_tasks();
  jobs_.assign(nj, JobState{});
  int32_t n_users = 1;
  for (int32_t u : wl_.user) n_users = std::max(n_users, u + 1);
  user_running_.assign(2 * size_t(n_users), 0);
  for (size_t j = 0; j < nj; ++j) {
    // Hadoop's completedMapsForReduceSlowstart: ceil(slowstart x maps), at least one map when
    // slowstart > 0, never more than all of them
    const int32_t m = wl_.n_maps[j];
    const int32_t need = static_cast<int32_t>(std::ceil(opt_.slowstart * m - 1e-9));
    jobs_[j].slowstart_maps = std::min(m, std::max(need, opt_.slowstart > 0 ? 1 : 0));
  }
  task_rt_.reserve(nt);
  populate_memory(task_rt_.data(), nt * sizeof(TaskRun));  // (one call, not a fault per page)
  for (size_t t = 0; t < nt; ++t) task_rt_.push_back({-1, wl_.task_job[t], 0, wl_.task_stage[t], kPending});
  for (int s = 0; s < 2; ++s) {
    fresh_cursor_[s].assign(nj, 0);
    requeued_[s].assign(nj, {});
  }
  for (size_t j = 0; j < nj; ++j) {
    fresh_cursor_[0][j] = static_cast<int32_t>(wl_.task_begin[j]);
    fresh_cursor_[1][j] = static_cast<int32_t>(wl_.task_begin[j] + wl_.n_maps[j]);
  }
  node_index_.resize(nj);
  rack_index_.resize(nj);
  unplaced_maps_.assign(nj, 0);
  unlaunched_maps_.assign(nj, 0);
  launched_maps_.assign((nt + 63) / 64, 0);
  job_slot_.assign(nj, 0);  // slot 0 is never given out: its bits stay clear
  node_job_bits_.assign(size_t(n), 0);
  waiting_reduces_.resize(nj);
  nodes_.assign(size_t(n), NodeSlots{});
  for (int32_t i = 0; i < n; ++i) {
    nodes_[i].cap[0] = cluster_.map_slots[i];
    nodes_[i].cap[1] = cluster_.reduce_slots[i];
    total_cap_[0] += nodes_[i].cap[0];
    total_cap_[1] += nodes_[i].cap[1];
  }
  free_vcores_ = cluster_.vcores;
  free_mem_ = cluster_.memory;
  parked_.assign(n, 1);
  n_parked_ = n;
  hb_phase_.resize(n);
  for (int32_t i = 0; i < n; ++i) hb_phase_[i] = hb_interval_ * i / n;
  unfinished_jobs_ = static_cast<int64_t>(nj);
  place_replicas();
  faults_ = parse_faults(opt_.faults, n, seed_);
  hb_dead_.assign(n, 0);
  detect_pending_.assign(n, 0);
  slow_.assign(n, 1.0);
  down_since_.assign(n, kNaN);
  node_map_outputs_.resize(n);
  for (const Fault& f : faults_) keep_map_outputs_ |= f.kind == Fault::Crash;
  crash_jobs_.resize(n);
  spec_running_.assign(2 * nj, 0);
  missing_outputs_.assign(nj, 0);
  if (wl_.has_dependencies()) {
    // children lists (CSR, each in increasing job id), built once here
    parents_left_.assign(nj, 0);
    arrived_.assign(nj, 0);
    child_begin_.assign(nj + 1, 0);
    for (size_t j = 0; j < nj; ++j) {
      parents_left_[j] = static_cast<int32_t>(wl_.parent_begin[j + 1] - wl_.parent_begin[j]);
      for (int64_t k = wl_.parent_begin[j]; k < wl_.parent_begin[j + 1]; ++k) child_begin_[wl_.parent_job[k] + 1]++;
    }
    for (size_t j = 0; j < nj; ++j) child_begin_[j + 1] += child_begin_[j];
    child_job_.resize(static_cast<size_t>(child_begin_[nj]));
    std::vector<int64_t> fill = child_begin_;
    for (size_t j = 0; j < nj; ++j)
      for (int64_t k = wl_.parent_begin[j]; k < wl_.parent_begin[j + 1]; ++k)
        child_job_[fill[wl_.parent_job[k]]++] = static_cast<int32_t>(j);
  }
}

// HDFS default placement: first replica on a random node, second on a node of another rack,
// third on another node of the second's rack; any further ones on random distinct nodes.
void Sim::place_replicas() {
  if (wl_.has_replicas()) {
    wl_rep_begin_ = wl_.replica_begin.data();
    rep_node_ = wl_.replica_node.data();
    tasks_drawn_seen_ = int64_t(wl_.n_tasks());
    return;
  }
  const int32_t n = n_nodes();
  std::vector<std::vector<int32_t>> rack_nodes(cluster_.n_racks);
  for (int32_t i = 0; i < n; ++i) rack_nodes[cluster_.rack[i]].push_back(i);
  const int r = std::min(opt_.replication, n);
  rep_per_map_ = std::min(r, 1024);  // (each map gets exactly that many below)
  map_base_.assign(wl_.n_jobs(), 0);
  int64_t maps = 0;
  for (size_t j = 0; j < wl_.n_jobs(); ++j) {
    map_base_[j] = maps;
    maps += wl_.n_maps[j];
  }
  const size_t n_reps = static_cast<size_t>(rep_per_map_) * size_t(maps);
  drawn_rep_node_.reset(new int32_t[std::max<size_t>(n_reps, 1)]);  // (written once: not zeroed first)
  rep_node_ = drawn_rep_node_.get();
  // On large workloads the drawing (and the kernel's zeroing of its pages) runs on a thread of
  // its own while the run starts: a job's replicas are read from its submission on (its place
  // index, locality), by then long drawn; await_replicas() waits for them otherwise.
  if (n_reps >= kBackgroundReplicas) {
    index_state_.reset(new std::atomic<uint8_t>[wl_.n_jobs()]());
    replica_drawer_.thread = std::thread([this, r, rack_nodes = std::move(rack_nodes)] {
      draw_replicas(rack_nodes, r);
      build_indexes_ahead();
    });
  } else {
    draw_replicas(rack_nodes, r);
    tasks_drawn_seen_ = int64_t(wl_.n_tasks());
  }
}

// Job by job, each job's maps in order; the tasks below tasks_drawn_ have theirs.
void Sim::draw_replicas(const std::vector<std::vector<int32_t>>& rack_nodes, int r) {
  const int32_t n = n_nodes();
  Random rng(seed_, 1);
  int32_t* out = drawn_rep_node_.get();
  int32_t chosen[1024];
  for (size_t j = 0; j < wl_.n_jobs() && !replica_drawer_.stop.load(std::memory_order_relaxed); ++j) {
    for (int64_t t = wl_.task_begin[j], end = t + wl_.n_maps[j]; t < end; ++t) {
      int k = 0;
      auto taken = [&](int32_t x) { return std::find(chosen, chosen + k, x) != chosen + k; };
      chosen[k++] = static_cast<int32_t>(rng.below(n));
      if (k < r) {
        const int32_t r0 = cluster_.rack[chosen[0]];
        int32_t pick = -1;
        if (cluster_.n_racks > 1) {
          int32_t other = static_cast<int32_t>(rng.below(cluster_.n_racks - 1));
          if (other >= r0) ++other;
          auto& cand = rack_nodes[other];
          if (!cand.empty()) pick = cand[rng.below(cand.size())];
        }
        if (pick < 0) do { pick = static_cast<int32_t>(rng.below(n)); } while (taken(pick));
        chosen[k++] = pick;
      }
      if (k < r) {
        auto& cand = rack_nodes[cluster_.rack[chosen[1]]];
        int32_t pick = -1;
        if (cand.size() > 1) {
          do { pick = cand[rng.below(cand.size())]; } while (taken(pick));
        } else {
          do { pick = static_cast<int32_t>(rng.below(n)); } while (taken(pick));
        }
        chosen[k++] = pick;
      }
      while (k < r && k < 1024) {
        int32_t pick;
        do { pick = static_cast<int32_t>(rng.below(n)); } while (taken(pick));
        chosen[k++] = pick;
      }
      out = std::copy(chosen, chosen + k, out);
    }
    tasks_drawn_.store(wl_.task_begin[j + 1], std::memory_order_release);
  }
}

void Sim::await_replicas_slow(int64_t task_end) const {
  while ((tasks_drawn_seen_ = tasks_drawn_.load(std::memory_order_acquire)) < task_end) std::this_thread::yield();
}

// The place indexes of the jobs about to arrive, job by job ahead of the arrivals (see
// index_state_), while the simulation runs.
void Sim::build_indexes_ahead() {
  IndexScratch scratch;
  const auto nj = static_cast<int32_t>(wl_.n_jobs());
  for (int32_t j = 0; j < nj; ++j) {
    for (;;) {  // (waits while the indexes built ahead are at their bound: arrivals take them)
      const uint32_t seen = replica_drawer_.wake.load(std::memory_order_acquire);
      if (replica_drawer_.stop.load(std::memory_order_relaxed)) return;
      j = std::max(j, arrival_front_.load(std::memory_order_relaxed));  // (jobs behind it: built at arrival)
      if (j >= nj || prebuilt_replicas_.load(std::memory_order_relaxed) < kIndexAheadReplicas) break;
      replica_drawer_.wake.wait(seen, std::memory_order_acquire);
    }
    if (j >= nj) return;
    if (wl_.n_maps[j] == 0) continue;
    uint8_t none = kIndexNone;
    if (!index_state_[j].compare_exchange_strong(none, kIndexBuilding, std::memory_order_acquire)) continue;
    build_place_indexes(j, scratch);
    prebuilt_replicas_.fetch_add(rep_per_map_ * wl_.n_maps[j], std::memory_order_relaxed);
    index_state_[j].store(kIndexBuilt, std::memory_order_release);
  }
}

// Job j arrives: true if its indexes were built ahead (waiting for them if they are being built),
// false if the arrival is to build them.
bool Sim::take_prebuilt_index(int32_t j) {
  if (!index_state_) return false;
  if (j >= arrival_front_.load(std::memory_order_relaxed)) arrival_front_.store(j + 1, std::memory_order_relaxed);
  uint8_t state = kIndexNone;
  if (index_state_[j].compare_exchange_strong(state, kIndexMain, std::memory_order_acquire)) return false;
  while (state == kIndexBuilding) {
    std::this_thread::yield();
    state = index_state_[j].load(std::memory_order_acquire);
  }
  const int64_t n = rep_per_map_ * wl_.n_maps[j];
  const int64_t before = prebuilt_replicas_.fetch_sub(n, std::memory_order_relaxed);
  if (before >= kIndexAheadReplicas && before - n < kIndexAheadReplicas) replica_drawer_.nudge();  // (it may wait)
  return true;
}

void Sim::build_place_indexes(int32_t j, IndexScratch& scratch) {
  build_place_index(node_index_[j], j, n_nodes(), false, [&](int64_t k) { return rep_node_[k]; }, scratch);
  build_place_index(rack_index_[j], j, cluster_.n_racks, true, [&](int64_t k) { return cluster_.rack[rep_node_[k]]; },
                    scratch);
}

template <class PlaceOf>
void Sim::build_place_index(PlaceIndex& index, int32_t job, int32_t n_places, bool keep_bits, PlaceOf place_of,
                            IndexScratch& scratch) const {
  const int64_t b = wl_.task_begin[job], e = b + wl_.n_maps[job];
  const int64_t rb = rep_range(job, b).lo, n_reps = (e > b ? rep_range(job, e - 1).hi : rb) - rb;
  // one key per replica: place in the high half, the complement of its replica index in the low
  // half, so that sorting groups replicas by place with the lowest task last in each group
  auto& keys = scratch.keys;
  keys.resize(static_cast<size_t>(n_reps));
  auto& task_of = scratch.task_of;
  task_of.resize(static_cast<size_t>(n_reps));
  for (int64_t t = b; t < e; ++t)
    for (int64_t k = rep_range(job, t).lo, end = rep_range(job, t).hi; k < end; ++k) {
      const auto i = static_cast<uint32_t>(k - rb);
      keys[size_t(n_reps) - 1 - i] = (static_cast<uint64_t>(static_cast<uint32_t>(place_of(k))) << 32) | ~i;
      task_of[i] = static_cast<int32_t>(t);
    }
  // keys are in descending replica order: a stable LSD radix sort on the place bytes finishes
  // the (place, -replica) order a comparison sort would give, in a few linear passes
  auto& tmp = scratch.keys2;
  tmp.resize(keys.size());
  for (int shift = 32; shift < 64 && (int64_t(n_places - 1) >> (shift - 32)) > 0; shift += 8) {
    size_t count[257] = {0};
    for (const uint64_t key : keys) ++count[((key >> shift) & 0xff) + 1];
    for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
    for (const uint64_t key : keys) tmp[count[(key >> shift) & 0xff]++] = key;
    keys.swap(tmp);
  }
  if (keep_bits) index.has.assign((static_cast<size_t>(n_places) + 63) / 64, 0);
  index.tasks.reserve(keys.size());
  // (at most one group per replica and per place: room enough, no regrowth copies)
  const size_t max_groups = std::min(keys.size(), static_cast<size_t>(std::max(n_places, 1)));
  index.groups.reserve(max_groups);
  // the directory: ranges of 2^shift places, no more ranges than room for groups; with as many
  // replicas as places (shift 0), a group for every place instead, empty ones too, found at its
  // place without the directory (one cache miss fewer per lookup for the large jobs)
  index.shift = 0;
  while ((int64_t(n_places) >> index.shift) > int64_t(max_groups)) ++index.shift;
  index.dense = index.shift == 0 && n_places > 0;
  const size_t n_ranges = index.dense ? 0 : (size_t(std::max(n_places, 1) - 1) >> index.shift) + 1;
  if (!index.dense) index.dir.resize(n_ranges + 1);
  size_t next_range = 0;  // ranges before it have their first group set
  int32_t last_place = -1, last_task = -1;
  for (const uint64_t key : keys) {
    const auto place = static_cast<int32_t>(key >> 32);
    const uint32_t i = ~static_cast<uint32_t>(key);
    const int32_t t = task_of[i];
    if (place != last_place) {
      const auto first = static_cast<int32_t>(index.groups.size());
      const auto at = static_cast<int32_t>(index.tasks.size());
      if (!index.groups.empty()) index.groups.back().end = at;
      if (index.dense)
        while (int32_t(index.groups.size()) < place) index.groups.push_back({int32_t(index.groups.size()), at, at});
      index.groups.push_back({place, at, 0});
      if (!index.dense)
        for (const size_t range = size_t(place) >> index.shift; next_range <= range;) index.dir[next_range++] = first;
      if (keep_bits) index.has[size_t(place >> 6)] |= 1ULL << (place & 63);
      last_place = place;
      last_task = -1;
    }
    if (t != last_task) index.tasks.push_back(t);  // (two replicas of a task in one place: once)
    last_task = t;
  }
  if (!index.groups.empty()) index.groups.back().end = static_cast<int32_t>(index.tasks.size());
  if (index.dense) {
    const auto at = static_cast<int32_t>(index.tasks.size());
    while (int32_t(index.groups.size()) < n_places) index.groups.push_back({int32_t(index.groups.size()), at, at});
  } else {
    while (next_range <= n_ranges) index.dir[next_range++] = static_cast<int32_t>(index.groups.size());
  }
}

void Sim::build_job_index(int32_t j) {
  const int64_t b = wl_.task_begin[j], e = b + wl_.n_maps[j];
  uint8_t unplaced = 0;
  if (wl_rep_begin_)  // (drawn replicas: every map has some)
    for (int64_t t = b; t < e; ++t) unplaced |= wl_rep_begin_[t] == wl_rep_begin_[t + 1];
  unplaced_maps_[j] = unplaced;
  unplaced_active_jobs_ += unplaced;
  unlaunched_maps_[j] = wl_.n_maps[j];
  if (!take_prebuilt_index(j)) {
    await_replicas(e);
    build_place_indexes(j, index_scratch_);
  }

  // a slot among the active jobs, and its bit on every node holding one of its maps' inputs
  int32_t slot;
  if (!free_job_slots_.empty()) {
    slot = free_job_slots_.back();
    free_job_slots_.pop_back();
  } else {
    slot = n_job_slots_++;
    if (slot >= job_words_ * 64) {  // widen every node's row (doubling: amortised O(1) per job)
      const int32_t words = job_words_ * 2;
      std::vector<uint64_t> wider(size_t(n_nodes()) * size_t(words), 0);
      for (size_t n = 0; n < size_t(n_nodes()); ++n)
        std::copy_n(node_job_bits_.begin() + std::ptrdiff_t(n * size_t(job_words_)), job_words_,
                    wider.begin() + std::ptrdiff_t(n * size_t(words)));
      node_job_bits_.swap(wider);
      job_words_ = words;
    }
  }
  job_slot_[j] = slot;
  if (size_t(slot) >= slot_job_.size()) slot_job_.resize(size_t(slot) + 1, -1);
  slot_job_[size_t(slot)] = j;
  for (const auto& g : node_index_[j].groups)
    if (g.end > g.begin)  // (a dense index's empty groups: no bit)
      node_job_bits_[size_t(g.place) * size_t(job_words_) + size_t(slot >> 6)] |= 1ULL << (slot & 63);
}

void Sim::clear_job_bits(int32_t j) {
  for (const auto& g : node_index_[j].groups)
    if (g.end > g.begin) clear_node_bit(j, g.place);
  std::fill(rack_index_[j].has.begin(), rack_index_[j].has.end(), 0);
}

bool Sim::confirm_fresh_map_on(int32_t node) {
  uint64_t* row = node_job_bits_.data() + size_t(node) * size_t(job_words_);
  for (int32_t w = 0; w < job_words_; ++w)
    for (uint64_t bits = row[w]; bits != 0; bits &= bits - 1) {
      const int bit = __builtin_ctzll(bits);
      const int32_t job = slot_job_[size_t(w) * 64 + size_t(bit)];
      if (take_local(node_index_[job], node) >= 0) return true;
      row[w] &= ~(1ULL << bit);
    }
  return false;
}

bool Sim::confirm_fresh_map_on_rack(int32_t job, int32_t rack) {
  if (!fresh_map_on_rack(job, rack)) return false;
  if (take_local(rack_index_[job], rack) >= 0) return true;
  clear_rack_bit(job, rack);
  return false;
}

void Sim::free_job_index(int32_t j) {
  if (found_.job == j) found_ = {};  // (its maps are no longer to launch)
  if (unlaunched_maps_[j] > 0) clear_job_bits(j);  // (otherwise cleared when its last map launched)
  free_job_slots_.push_back(job_slot_[j]);
  job_slot_[j] = 0;
  unplaced_active_jobs_ -= unplaced_maps_[j];
  for (int s = 0; s < 2; ++s) {  // (all finished: stale entries)
    requeued_entries_[s] -= int64_t(requeued_[s][j].size());
    requeued_[s][j].clear();
  }
  node_index_[j].clear();
  rack_index_[j].clear();
}

// The last never-launched task of `index`'s group for `place`, or -1 (callers check the group's
// bit first: set, the group may hold one). The group's end moves down past launched tasks, so
// each is skipped once.
template <bool kPrefetchRun>
int32_t Sim::take_local(PlaceIndex& index, int32_t place) {
  auto& groups = index.groups;
  size_t lo = size_t(place);
  if (!index.dense) {
    const size_t b = size_t(place) >> index.shift;
    if (b + 1 >= index.dir.size()) return -1;
    lo = size_t(index.dir[b]);
    const size_t stop = size_t(index.dir[b + 1]);
    while (lo < stop && groups[lo].place < place) ++lo;
    if (lo == stop || groups[lo].place != place) return -1;
  } else if (lo >= groups.size()) {
    return -1;
  }
  auto it = groups.begin() + std::ptrdiff_t(lo);
  for (; it->end > it->begin; --it->end) {
    const int32_t t = index.tasks[size_t(it->end - 1)];
    if (map_launched(t)) continue;
    if constexpr (kPrefetchRun) {
      __builtin_prefetch(&task_rt_[size_t(t)], 1);  // (a launch writes it next)
      // whether t is the group's last never-launched map, from the few entries below it (on the
      // cache line at hand): then its launch clears the group's bit, which would otherwise cost
      // a lookup that finds nothing (an undecided answer, false, only leaves the bit as a hint)
      int32_t k = it->end - 2;
      const int32_t stop = std::max(it->begin, it->end - 9);
      while (k >= stop && map_launched(index.tasks[size_t(k)])) --k;
      found_last_ = k < it->begin;
    }
    return t;
  }
  return -1;
}

Locality Sim::locality(int32_t task, int32_t node) const {
  await_replicas(int64_t(task) + 1);
  const RepRange reps = rep_range(task);
  if (task_rt_[size_t(task)].stage != kMap || reps.lo == reps.hi) return kNoLocality;
  bool rack = false;
  const int32_t my_rack = cluster_.rack[node];
  for (int64_t k = reps.lo; k < reps.hi; ++k) {
    if (rep_node_[k] == node) return kNodeLocal;
    rack |= cluster_.rack[rep_node_[k]] == my_rack;
  }
  return rack ? kRackLocal : kRemote;
}

const std::vector<int32_t>& Sim::replicas_of(int32_t task, std::vector<int32_t>& scratch) const {
  await_replicas(int64_t(task) + 1);
  const RepRange reps = rep_range(task);
  scratch.assign(rep_node_ + reps.lo, rep_node_ + reps.hi);
  return scratch;
}

double Sim::expected_duration(int32_t task, int32_t node) const {
  double d = wl_.estimate[task] / cluster_.speed[node];
  const Locality l = locality(task, node);
  if (l == kRackLocal) d *= opt_.rack_local_factor;
  if (l == kRemote) d *= opt_.remote_factor;
  return d;
}

void Sim::count_ready_reduces(int32_t job) {
  JobState& js = jobs_[job];
  const bool allowed = reduces_allowed(job);
  if (allowed == js.reduces_counted) return;
  const int64_t left = wl_.n_reduces(job) - js.done[kReduce];
  remaining_ready_reduces_ += allowed ? left : -left;
  js.reduces_counted = allowed;
}

bool Sim::fits(int32_t task, int32_t node, int slot_type) const {
  if (nodes_[node].down) return false;
  if (slot_model_ == SlotModel::Containers)
    return wl_.vcores[task] <= free_vcores_[node] + 1e-9 && wl_.memory[task] <= free_mem_[node] + 1e-9;
  return free_slots(node, slot_type) > 0;
}

int32_t Sim::find_map_anywhere(int32_t job, int32_t node, Locality max_level) {
  auto pending = [&](int32_t t) { return task_rt_[t].state == kPending; };
  auto& rq = requeued_[kMap][job];
  if (!rq.empty()) {
    drop_stale_requeued(job, kMap);
    for (int32_t t : rq)
      if (pending(t) && (locality(t, node) <= max_level || locality(t, node) == kNoLocality)) return t;
  }
  // the node's bit of this job first: clear, it has no pending map here (the common answer
  // while delay scheduling scans the jobs, from the node's few cache lines)
  if (fresh_map_on_node(job, node)) {
    const int32_t t = take_local<true>(node_index_[job], node);
    if (t >= 0) {
      found_ = {t, node, job, kNodeLocal, found_last_};  // (for its launch there, usually next)
      return t;
    }
    clear_node_bit(job, node);  // every task of the group launched: the hint is cleared
  }
  if (max_level >= kRackLocal) {
    const int32_t rack = cluster_.rack[node];
    if (fresh_map_on_rack(job, rack)) {
      const int32_t t = take_local<true>(rack_index_[job], rack);
      // (rack-local: none of the node's never-launched maps was left, so it has no replica there)
      if (t >= 0) {
        found_ = {t, node, job, kRackLocal, found_last_};
        return t;
      }
      clear_rack_bit(job, rack);  // (likewise)
    }
  }
  // A task with replicas that is node- or rack-local was found above, so below kRemote the only
  // candidate left is a task without locality information.
  if (max_level < kRemote && !unplaced_maps_[job]) return -1;
  int32_t& c = fresh_cursor_[kMap][job];
  const int32_t end = static_cast<int32_t>(wl_.task_begin[job] + wl_.n_maps[job]);
  while (c < end && !pending(c)) ++c;
  if (c < end) {
    if (max_level >= kRemote || rep_range(c).lo == rep_range(c).hi) return c;
  }
  return -1;
}

bool Sim::has_local_map(int32_t job, int32_t node, Locality max_level) { return find_map(job, node, max_level) >= 0; }

void Sim::drop_stale_requeued(int32_t job, int stage) {
  auto& rq = requeued_[stage][job];
  size_t stale = 0;
  while (stale < rq.size() && task_rt_[rq[stale]].state != kPending) ++stale;
  if (stale == 0) return;
  rq.erase(rq.begin(), rq.begin() + std::ptrdiff_t(stale));
  requeued_entries_[stage] -= int64_t(stale);
}

int32_t Sim::find_reduce(int32_t job) {
  auto& rq = requeued_[kReduce][job];
  drop_stale_requeued(job, kReduce);
  if (!rq.empty()) return rq.front();
  int32_t& c = fresh_cursor_[kReduce][job];
  const int32_t end = static_cast<int32_t>(wl_.task_begin[job + 1]);
  while (c < end && task_rt_[c].state != kPending) ++c;
  return c < end ? c : -1;
}

int64_t Sim::launch(int32_t task, int32_t node, int slot_type, bool speculative, int32_t slots) {
  if (task < 0 || static_cast<size_t>(task) >= wl_.n_tasks()) throw std::logic_error("launch: no such task");
  if (node < 0 || node >= n_nodes()) throw std::logic_error("launch: no such node");
  TaskRun& tr = task_rt_[size_t(task)];
  // A never-launched map that the place index just found for this node (found_, set for an active
  // job): pending, with no attempt yet, its job and locality known. Its run record is then
  // written without being read first, and its replicas are not read.
  const bool fresh = found_.task == task && found_.node == node && !map_launched(task);
  int32_t job, last_attempt;
  int stage;
  uint8_t state;
  uint16_t running;
  if (fresh) {
    job = found_.job; stage = kMap; state = kPending; last_attempt = -1; running = 0;
  } else {
    job = tr.job; stage = tr.stage; state = tr.state; last_attempt = tr.last_attempt; running = tr.running;
  }
  if (slot_type < 0) slot_type = stage;
  if (!jobs_[job].submitted) throw std::logic_error("launch: job not yet submitted");
  if (state == kDone) throw std::logic_error("launch: task already finished");
  if (state == kActive && !speculative) throw std::logic_error("launch: task already running (use a speculative attempt)");
  if (nodes_[node].down) throw std::logic_error("launch: node " + std::to_string(node) + " is down");
  if (!fits(task, node, slot_type)) throw std::logic_error("launch: node " + std::to_string(node) + " has no free slot of that type");
  if (slots != 1) {
    if (slots < 1 || slots > 255 || slot_model_ != SlotModel::Typed) throw std::logic_error("launch: slots must be 1, or 2..255 on typed slots");
    if (free_slots(node, slot_type) < slots) throw std::logic_error("launch: node " + std::to_string(node) + " has fewer than " + std::to_string(slots) + " free slots of that type");
  }
  if (running == std::numeric_limits<uint16_t>::max()) throw std::logic_error("launch: a task has at most 65535 running attempts");

  stalled_since_ = kNaN;
  const int64_t a = static_cast<int64_t>(attempts_.size());
  if (a == std::numeric_limits<int32_t>::max()) throw std::length_error("launch: more than 2^31 - 1 attempts");
  Attempt at{};
  at.task = task;
  at.node = node;
  at.start = now_;
  at.status = kRunning;
  at.locality = fresh ? found_.locality : locality(task, node);
  at.slot_type = static_cast<uint8_t>(slot_type);
  at.speculative = speculative ? 1 : 0;
  at.slots = static_cast<uint8_t>(slots);
  at.stage = static_cast<uint8_t>(stage);
  at.job = job;
  int32_t orig_node = -1;
  if (speculative)
    for (int64_t o = last_attempt; o >= 0; o = attempts_[o].prev_same_task)
      if (attempts_[o].status == kRunning) { orig_node = attempts_[o].node; break; }
  if (last_attempt < 0 && stage == kMap) {
    launched_maps_[size_t(task) >> 6] |= 1ULL << (task & 63);
    if (--unlaunched_maps_[job] == 0) {
      clear_job_bits(job);
    } else if (fresh && found_.last) {  // its group has no other never-launched map
      if (found_.locality == kNodeLocal) clear_node_bit(job, node);
      else clear_rack_bit(job, cluster_.rack[node]);
    }
  }
  at.prev_same_task = last_attempt;
  tr.last_attempt = static_cast<int32_t>(a);

  JobState& js = jobs_[job];
  job_changed(job);
  if (state == kPending) {
    tr.state = kActive;
    js.pending[stage]--;
    js.running[stage]++;
    total_pending_[stage]--;
    total_running_[stage]++;
  }
  tr.running = uint16_t(running + 1);
  js.running_attempts[stage]++;
  user_running_[2 * wl_.user[job] + stage]++;
  if (speculative) { spec_running_[2 * job + stage]++; ++spec_running_total_; }
  add_running(node, a);
  if (std::isnan(js.start)) js.start = now_;
  nodes_[node].used[slot_type] += slots;
  if (slot_model_ == SlotModel::Containers) {
    free_vcores_[node] -= wl_.vcores[task];
    free_mem_[node] -= wl_.memory[task];
  }
  // lowest free slot position on the node, for Gantt charts
  int32_t pos = -1;
  if (~nodes_[node].slot_bits) {
    pos = __builtin_ctzll(~nodes_[node].slot_bits);
    nodes_[node].slot_bits |= (1ULL << pos);
  }
  at.slot_pos = static_cast<int8_t>(pos);

  at.done = 0;
  at.updated = now_;
  at.dur = base_duration(at);
  if (slow_[node] != 1.0) at.dur *= slow_[node];
  double copy_end = kNaN;
  bool waits_for_maps = false;  // a reduce whose copy waits for the job's last map
  if (opt_.driven) {
    at.finish = INFINITY;  // it ends when the caller says so
    at.dur = INFINITY;
  } else if (stage == kMap) {
    at.finish = now_ + at.dur;
  } else if (js.done[kMap] == wl_.n_maps[job] && missing_outputs_[job] == 0) {
    copy_end = now_ + wl_.input_bytes.of(size_t(task), job, uint8_t(stage)) / opt_.network_bandwidth;
    at.finish = copy_end + at.dur;
  } else {
    at.finish = kNaN;  // known once the job's last map ends
    waits_for_maps = true;
  }
  // the records' reserved room is faulted in 2 MB ahead of the writes, in one call per 2 MB
  // (not all at once: a run that ends early, by its time limit, would fault in what it never
  // writes); on large runs by attempt_pages_'s thread, a few blocks ahead
  if ((size_t(a) & (kRecordBlock - 1)) == 0) {
    if (attempt_pages_.running())
      attempt_pages_.advance(size_t(a) * sizeof(Attempt));
    else if (attempts_.capacity() > size_t(a))
      populate_memory(attempts_.data() + a, std::min(kRecordBlock, attempts_.capacity() - size_t(a)) * sizeof(Attempt));
  }
  if (attempts_.size() == attempts_.capacity()) attempt_pages_.stop();  // (the room moves)
  attempts_.push_back(at);
  if (dense_copy_end_) {
    reduce_copy_end_.push_back(copy_end);
  } else if (stage == kReduce) {
    reduce_attempts_.push_back(static_cast<int32_t>(a));
    reduce_copy_end_.push_back(copy_end);
  }
  note_result_extras(a, orig_node, effective_speed(node));
  if (waits_for_maps) waiting_reduces_[job].push_back(a);
  else if (!opt_.driven) events_q_.push(at.finish, kAttemptEnd, 0, static_cast<uint64_t>(a));
  return a;
}

// A speculative copy's original node and the node's speed at launch: kept per attempt only once
// some attempt has other values than the defaults (-1, the node's nominal speed), i.e. with
// speculation or faults; before, the columns are empty (the Python layer fills them on demand).
void Sim::note_result_extras(int64_t a, int32_t orig_node, double speed) {
  if (!keep_result_extras_) {
    if (orig_node == -1 && speed == cluster_.speed[size_t(attempts_[size_t(a)].node)]) return;
    keep_result_extras_ = true;
    attempt_orig_node_.reserve(std::max(attempts_.capacity(), size_t(a) + 1));
    attempt_speed_at_start_.reserve(std::max(attempts_.capacity(), size_t(a) + 1));
    attempt_orig_node_.assign(size_t(a), -1.0);
    for (int64_t o = 0; o < a; ++o) attempt_speed_at_start_.push_back(cluster_.speed[size_t(attempts_[size_t(o)].node)]);
  }
  attempt_orig_node_.push_back(orig_node);
  attempt_speed_at_start_.push_back(speed);
}

void Sim::finish_reduce_copy(int32_t job) {
  const int32_t m = std::max<int32_t>(wl_.n_maps[job], 1);
  for (int64_t a : waiting_reduces_[job]) {
    Attempt& at = attempts_[a];
    if (at.status != kRunning) continue;
    const double shuffle = wl_.input_bytes.of(size_t(at.task), at.job, at.stage) / opt_.network_bandwidth;
    const double copy_end = std::max(at.start + shuffle, now_ + shuffle / m);
    copy_end_of(a) = copy_end;
    at.updated = copy_end;
    at.finish = copy_end + at.dur;
    if (std::isfinite(at.finish)) events_q_.push(at.finish, kAttemptEnd, 0, static_cast<uint64_t>(a));
  }
  waiting_reduces_[job].clear();
  waiting_reduces_[job].shrink_to_fit();
}

void Sim::release(int64_t a) {
  Attempt& at = attempts_[a];
  const int32_t node = at.node, task = at.task;
  nodes_[node].used[at.slot_type] -= at.slots;
  if (slot_model_ == SlotModel::Containers) {
    free_vcores_[node] += wl_.vcores[task];
    free_mem_[node] += wl_.memory[task];
  }
  if (at.slot_pos >= 0) nodes_[node].slot_bits &= ~(1ULL << at.slot_pos);
  task_rt_[task].running--;
  const int32_t job = at.job;
  const int stage = at.stage;
  job_changed(job);
  jobs_[job].running_attempts[stage]--;
  user_running_[2 * wl_.user[job] + stage]--;
  if (at.speculative) { spec_running_[2 * job + stage]--; --spec_running_total_; }
  remove_running(node, a);
}

void Sim::add_running(int32_t node, int64_t a) {
  NodeSlots& n = nodes_[node];
  if (!n.spilled && n.n_running < NodeSlots::kInline) {
    n.running[n.n_running++] = static_cast<int32_t>(a);
    return;
  }
  if (!n.spilled) {  // one more than fit: the list moves to a vector of its own, for good
    if (spilled_running_.empty()) spilled_running_.resize(size_t(n_nodes()));
    spilled_running_[node].assign(n.running, n.running + n.n_running);
    n.spilled = 1;
    n.n_running = 0;
  }
  spilled_running_[node].push_back(static_cast<int32_t>(a));
}

void Sim::remove_running(int32_t node, int64_t a) {
  // a few entries at most: finding it beats keeping positions in the attempts, whose update
  // would touch another attempt's memory
  NodeSlots& n = nodes_[node];
  if (n.spilled) {
    auto& list = spilled_running_[node];
    *std::find(list.begin(), list.end(), static_cast<int32_t>(a)) = list.back();
    list.pop_back();
  } else {
    *std::find(n.running, n.running + n.n_running, static_cast<int32_t>(a)) = n.running[n.n_running - 1];
    --n.n_running;
  }
}

void Sim::kill(int64_t a) {
  if (attempts_[a].status != kRunning) return;
  end_attempt(a, kKilled, now_);
}

// An attempt ends without success. On a crashed node it stopped running when the node did.
void Sim::end_attempt(int64_t a, uint8_t status, double at_time) {
  Attempt& at = attempts_[a];
  if (nodes_[at.node].down) at_time = std::min(at_time, down_since_[at.node]);
  accrue(a);
  at.status = status;
  at.finish = at_time;
  release(a);
  const int32_t task = at.task, job = at.job;
  const int stage = at.stage;
  if (jobs_[job].ended) return;  // its job was ended by the caller: nothing to re-run
  if (task_rt_[task].state == kActive && task_rt_[task].running == 0) {
    // the task lost its only attempt: it is pending again and is re-run first
    task_rt_[task].state = kPending;
    jobs_[job].running[stage]--;
    jobs_[job].pending[stage]++;
    total_running_[stage]--;
    total_pending_[stage]++;
    requeued_[stage][job].push_back(task);
    ++requeued_entries_[stage];
    wake_parked_nodes();
  }
}

double Sim::base_duration(const Attempt& at) const {
  double d = wl_.work.of(size_t(at.task), at.job, at.stage) / cluster_.speed[at.node];
  if (at.stage == kMap) {
    if (at.locality == kRackLocal) d *= opt_.rack_local_factor;
    if (at.locality == kRemote) d *= opt_.remote_factor;
  }
  return d;
}

void Sim::accrue(int64_t a) {
  Attempt& at = attempts_[a];
  double from = at.updated;
  if (at.stage == kReduce) {
    const double copy_end = Sim::copy_end(a);
    if (std::isnan(copy_end) || now_ <= copy_end) return;
    from = std::max(from, copy_end);
  }
  if (now_ > from && at.dur > 0) at.done = std::min(1.0, at.done + (now_ - from) / at.dur);
  at.updated = now_;
}

void Sim::retime(int64_t a) {
  Attempt& at = attempts_[a];
  if (at.stage == kReduce) {
    const double copy_end = Sim::copy_end(a);
    if (std::isnan(copy_end)) return;  // still waiting for maps: timed when the copy can end
    at.finish = now_ < copy_end ? copy_end + at.dur : now_ + (1.0 - at.done) * at.dur;
  } else {
    at.finish = now_ + (1.0 - at.done) * at.dur;
  }
  if (std::isfinite(at.finish)) events_q_.push(at.finish, kAttemptEnd, 0, static_cast<uint64_t>(a));
}

void Sim::set_node_rate(int32_t node) {
  for (int64_t a : attempts_on(node)) {
    Attempt& at = attempts_[a];
    accrue(a);
    at.dur = nodes_[node].down ? INFINITY : base_duration(at) * slow_[node];
    retime(a);
  }
}

double Sim::progress(int64_t a) const {
  const Attempt& at = attempts_[a];
  if (at.status == kSucceeded || at.status == kLost) return 1.0;
  if (opt_.driven) return at.done;  // as set by set_progress
  double t = at.status == kRunning ? now_ : at.finish;
  if (at.status == kRunning && nodes_[at.node].down) t = std::min(t, down_since_[at.node]);
  auto part = [&](double from) {
    from = std::max(from, at.updated);
    double p = at.done + (t > from && at.dur > 0 ? (t - from) / at.dur : 0.0);
    return std::clamp(p, 0.0, 1.0);
  };
  if (wl_.task_stage[at.task] == kMap) return part(at.updated);
  const double copy_end = Sim::copy_end(a);
  if (!std::isnan(copy_end) && t >= copy_end) return 1.0 / 3.0 + 2.0 / 3.0 * part(copy_end);
  // copy phase: the fraction of the shuffle fetched, limited by the maps done so far
  double copy;
  if (!std::isnan(copy_end)) {
    copy = copy_end > at.start ? (t - at.start) / (copy_end - at.start) : 1.0;
  } else {
    const int32_t job = wl_.task_job[at.task];
    const double m = wl_.n_maps[job];
    const double shuffle = wl_.input_bytes.of(size_t(at.task), at.job, at.stage) / opt_.network_bandwidth;
    const double by_time = shuffle > 0 ? (t - at.start) / shuffle : 1.0;
    copy = std::min(by_time, m > 0 ? jobs_[job].done[kMap] / m : 1.0);
  }
  return std::clamp(copy, 0.0, 1.0) / 3.0;
}

// ---- faults ---------------------------------------------------------------------------------

void Sim::slowdown_event(int32_t f, bool begin) {
  const Fault& x = faults_[f];
  const int32_t node = x.node;
  // the node's multiplier is the product of its active windows, recomputed exactly
  double m = 1.0;
  for (size_t i = 0; i < faults_.size(); ++i) {
    const Fault& y = faults_[i];
    if (y.kind != Fault::Slowdown || y.node != node) continue;
    const bool active = static_cast<int32_t>(i) == f ? begin : (y.start <= now_ && now_ < y.end);
    if (active) m *= y.factor;
  }
  if (m == slow_[node]) return;
  slow_[node] = m;
  if (!nodes_[node].down) set_node_rate(node);
}

// Whether a job still needs the map outputs it has: some reduce has not fetched everything yet.
bool Sim::map_output_needed(int32_t job) const {
  if (wl_.n_reduces(job) == 0 || !std::isnan(jobs_[job].finish)) return false;
  const JobState& js = jobs_[job];
  if (js.pending[kReduce] > 0) return true;
  for (int64_t t = wl_.task_begin[job] + wl_.n_maps[job]; t < wl_.task_begin[job + 1]; ++t) {
    if (task_rt_[t].state != kActive) continue;
    for (int64_t a = task_rt_[t].last_attempt; a >= 0; a = attempts_[a].prev_same_task) {
      const double copy_end = Sim::copy_end(a);
      if (attempts_[a].status == kRunning && (std::isnan(copy_end) || copy_end > now_)) return true;
    }
  }
  return false;
}

// Reduces of `job` still copying cannot finish their copy: they wait for the lost maps' re-runs.
void Sim::stall_copies(int32_t job) {
  for (int64_t t = wl_.task_begin[job] + wl_.n_maps[job]; t < wl_.task_begin[job + 1]; ++t) {
    if (task_rt_[t].state != kActive) continue;
    for (int64_t a = task_rt_[t].last_attempt; a >= 0; a = attempts_[a].prev_same_task) {
      Attempt& at = attempts_[a];
      double& copy_end = copy_end_of(a);
      if (at.status != kRunning || std::isnan(copy_end) || copy_end <= now_) continue;
      copy_end = kNaN;
      at.finish = kNaN;  // its pending end event is now stale
      at.done = 0;
      at.updated = now_;
      waiting_reduces_[job].push_back(a);
    }
  }
}

void Sim::crash(int32_t node, double restart_after) {
  if (nodes_[node].down) return;  // already down: this crash is absorbed by the current one
  ++crashes_;
  nodes_[node].down = 1;
  down_since_[node] = now_;
  set_node_rate(node);  // freezes its attempts
  // its map outputs are gone from now on; reduces still copying them must wait
  auto& jobs = crash_jobs_[node];
  jobs.clear();
  for (int64_t a : node_map_outputs_[node]) {
    const int32_t j = wl_.task_job[attempts_[a].task];
    if (std::isnan(jobs_[j].finish) && attempts_[a].status == kSucceeded) jobs.push_back(j);
  }
  std::sort(jobs.begin(), jobs.end());
  jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
  for (int32_t j : jobs) {
    if (!map_output_needed(j)) continue;
    missing_outputs_[j]++;
    stall_copies(j);
  }
  jobs.erase(std::remove_if(jobs.begin(), jobs.end(), [&](int32_t j) { return missing_outputs_[j] == 0; }), jobs.end());
  const double restart_at = now_ + restart_after;
  detect_pending_[node] = 1;
  events_q_.push(std::min(now_ + opt_.detection_delay, restart_at), kDetect, static_cast<uint32_t>(node));
  ++fault_events_left_;
  if (std::isfinite(restart_at)) {
    events_q_.push(restart_at, kRestart, static_cast<uint32_t>(node));
    ++fault_events_left_;
  }
}

void Sim::detect(int32_t node) {
  if (!detect_pending_[node]) return;
  detect_pending_[node] = 0;
  // the node's attempts failed when it stopped
  const auto on_node = attempts_on(node);
  const std::vector<int64_t> running(on_node.begin(), on_node.end());  // (ending them changes the list)
  for (int64_t a : running) {
    end_attempt(a, kFailed, down_since_[node]);
    ++failed_attempts_;
  }
  // completed map outputs stored there that a reduce still needs are lost: the maps re-run first
  for (int64_t a : node_map_outputs_[node]) {
    Attempt& at = attempts_[a];
    const int32_t task = at.task, job = wl_.task_job[task];
    if (at.status != kSucceeded || !map_output_needed(job)) continue;
    at.status = kLost;
    ++lost_outputs_;
    JobState& js = jobs_[job];
    job_changed(job);
    task_rt_[task].state = kPending;
    js.done[kMap]--;
    remaining_[kMap]++;
    count_ready_reduces(job);
    js.pending[kMap]++;
    total_pending_[kMap]++;
    requeued_[kMap][job].push_back(task);
    ++requeued_entries_[kMap];
  }
  node_map_outputs_[node].clear();
  for (int32_t j : crash_jobs_[node]) {
    missing_outputs_[j]--;
    if (missing_outputs_[j] == 0 && jobs_[j].done[kMap] == wl_.n_maps[j] && !waiting_reduces_[j].empty()) finish_reduce_copy(j);
  }
  crash_jobs_[node].clear();
  wake_parked_nodes();
  call_scheduler([&] { sched_.on_node_lost(*this, node); });
  if (spec_) spec_->on_node_lost(*this, node);
}

void Sim::restart(int32_t node) {
  if (!nodes_[node].down) return;
  if (detect_pending_[node]) detect(node);
  nodes_[node].down = 0;
  down_since_[node] = kNaN;
  nodes_[node].slot_bits = 0;
  if (hb_dead_[node]) {
    hb_dead_[node] = 0;
    events_q_.push(now_, kHeartbeat, static_cast<uint32_t>(node));
  }
  call_scheduler([&] { sched_.on_node_restarted(*this, node); });
}

void Sim::attempt_end(int64_t a) {
  Attempt& at = attempts_[a];
  if (at.status != kRunning || at.finish != now_) return;  // killed, or rescheduled
  stalled_since_ = kNaN;  // progress
  at.status = kSucceeded;
  at.done = 1;
  at.updated = now_;
  release(a);
  const int32_t task = at.task, job = at.job, node = at.node;
  const int stage = at.stage;
  if (jobs_[job].ended) return;  // its job was ended by the caller (driven mode): its slots only
  if (stage == kMap && keep_map_outputs_) node_map_outputs_[node].push_back(a);
  // first attempt to finish wins; the others (if any still run) are killed
  for (int64_t o = task_rt_[task].running > 0 ? task_rt_[task].last_attempt : -1; o >= 0; o = attempts_[o].prev_same_task)
    if (o != a && attempts_[o].status == kRunning) {
      Attempt& other = attempts_[o];
      accrue(o);
      other.status = kKilled;
      other.finish = nodes_[other.node].down ? std::min(now_, down_since_[other.node]) : now_;
      release(o);
    }
  JobState& js = jobs_[job];
  task_rt_[task].state = kDone;
  js.running[stage]--;
  js.done[stage]++;
  remaining_[stage]--;
  if (stage == kMap) count_ready_reduces(job);
  else if (js.reduces_counted) remaining_ready_reduces_--;
  total_running_[stage]--;
  call_scheduler([&] { sched_.on_attempt_finished(*this, a); });
  if (spec_) spec_->on_attempt_finished(*this, a);
  if (stage == kMap && js.done[kMap] == wl_.n_maps[job]) {
    if (std::isnan(js.map_finish)) js.map_finish = now_;  // the first time; re-runs of lost maps do not move it
    if (missing_outputs_[job] == 0) finish_reduce_copy(job);
    if (!js.map_stage_reported) {
      js.map_stage_reported = true;
      call_scheduler([&] { sched_.on_stage_finished(*this, job, kMap); });
    }
  }
  const int64_t total = wl_.task_begin[job + 1] - wl_.task_begin[job];
  if (js.done[0] + js.done[1] == total && !hold_jobs_) job_done(job);
  if (opt_.out_of_band_heartbeat && unfinished_jobs_ > 0 && !nodes_[node].down) {
    ++oob_heartbeats_;
    if (spec_) spec_->before_heartbeat(*this, node);
    call_scheduler([&] { sched_.on_heartbeat(*this, node); });
    if (spec_) spec_->on_heartbeat(*this, node);
  }
}

void Sim::job_done(int32_t job) {
  JobState& js = jobs_[job];
  if (wl_.n_reduces(job) > 0) call_scheduler([&] { sched_.on_stage_finished(*this, job, kReduce); });
  js.finish = now_;
  active_jobs_.erase(std::find(active_jobs_.begin(), active_jobs_.end(), job));
  --unfinished_jobs_;
  free_job_index(job);
  call_scheduler([&] { sched_.on_job_finished(*this, job); });
  if (!child_begin_.empty()) release_children(job);
}

void Sim::set_slots(int32_t node, int32_t map_slots, int32_t reduce_slots) {
  if (map_slots < 0 || reduce_slots < 0) throw std::logic_error("set_slots: negative slot count");
  total_cap_[0] += map_slots - nodes_[node].cap[0];
  total_cap_[1] += reduce_slots - nodes_[node].cap[1];
  nodes_[node].cap[0] = map_slots;
  nodes_[node].cap[1] = reduce_slots;
}

void Sim::set_timer(double at, uint64_t tag) { events_q_.push(std::max(at, now_), kTimer, 0, tag); }
void Sim::set_speculator_timer(double at, uint64_t tag) { events_q_.push(std::max(at, now_), kSpecTimer, 0, tag); }

TimeSeries& Sim::series(const std::string& name, const std::vector<std::string>& columns) {
  auto it = series_.find(name);
  if (it == series_.end()) it = series_.emplace(name, TimeSeries::with_columns(columns)).first;
  return it->second;
}

void Sim::arrive(int32_t j) {
  if (!parents_left_.empty() && parents_left_[j] > 0) {
    arrived_[j] = 1;  // submitted by release_children when its last parent finishes
    return;
  }
  submit(j);
}

void Sim::release_children(int32_t job) {
  for (int64_t k = child_begin_[job]; k < child_begin_[job + 1]; ++k) {
    const int32_t c = child_job_[k];
    if (--parents_left_[c] == 0 && arrived_[c]) submit(c);
  }
}

void Sim::submit(int32_t j) {
  JobState& js = jobs_[j];
  job_changed(j);
  js.submitted = true;
  js.ready = now_;
  if (own_wl_) own_wl_->submit_time[j] = now_;  // what the scheduler sees as the job's submission
  if (!sched_.accepts(*this, j)) {  // refused: it ends now, failed, none of its tasks counted
    js.ended = kFailed;
    js.finish = now_;
    for (int64_t t = wl_.task_begin[j]; t < wl_.task_begin[j + 1]; ++t) task_rt_[t].state = kDone;
    --unfinished_jobs_;
    if (!child_begin_.empty()) release_children(j);
    return;
  }
  js.pending[kMap] = wl_.n_maps[j];
  js.pending[kReduce] = static_cast<int32_t>(wl_.n_reduces(j));
  total_pending_[kMap] += js.pending[kMap];
  total_pending_[kReduce] += js.pending[kReduce];
  remaining_[kMap] += wl_.n_maps[j];
  remaining_[kReduce] += wl_.n_reduces(j);
  count_ready_reduces(j);
  active_jobs_.push_back(j);
  build_job_index(j);
  call_scheduler([&] { sched_.on_job_submitted(*this, j); });
  wake_parked_nodes();
}

void Sim::wake_parked_nodes() {
  if ((n_parked_ == 0 && n_sleeping_ == 0) || opt_.driven) return;  // (driven: the caller makes nodes heartbeat)
  if (n_sleeping_ > 0) {
    woken_.clear();
    for (int32_t i = 0; i < n_nodes(); ++i)
      if (sleeping_[size_t(i)]) wake_sleeping(i);
    // the heartbeats woken into one gap between sequence numbers, in the order they were pushed:
    // by their (skipped) predecessors' order -- time, a real heartbeat before skipped ones
    std::sort(woken_.begin(), woken_.end(), [](const Woken& x, const Woken& y) {
      if (x.gap != y.gap) return x.gap < y.gap;
      if (x.parent_time != y.parent_time) return x.parent_time < y.parent_time;
      if (x.parent_virtual != y.parent_virtual) return x.parent_virtual < y.parent_virtual;
      return x.node < y.node;
    });
    const uint64_t stride = events_q_.seq_stride();
    for (size_t k = 0, rank = 0; k < woken_.size(); ++k) {
      rank = k > 0 && woken_[k].gap == woken_[k - 1].gap ? rank + 1 : 0;
      const int64_t g = woken_[k].gap;
      const uint64_t before = g < log_base_ + int64_t(log_.size()) ? entry(g).counter : events_q_.next_seq();
      events_q_.push_at_seq(woken_[k].time, before - stride + 1 + rank, kHeartbeat, static_cast<uint32_t>(woken_[k].node));
    }
    if (!woken_.empty()) events_q_.skip_seq();  // (later gaps never meet these numbers)
    n_sleeping_ = 0;
    clear_log();
  }
  for (int32_t i = 0; i < n_nodes(); ++i) {
    if (!parked_[i]) continue;
    parked_[i] = 0;
    // next point of this node's heartbeat grid at or after now
    const double k = std::ceil((now_ - hb_phase_[i]) / hb_interval_ - 1e-12);
    const double t = hb_phase_[i] + std::max(k, 0.0) * hb_interval_;
    events_q_.push(std::max(t, now_), kHeartbeat, static_cast<uint32_t>(i));
  }
  n_parked_ = 0;
}

// The last heartbeat of node's chain that the run would have processed, skipped, before log entry
// w (inclusive), and its position among the logged events.
Sim::Skipped Sim::last_skipped(int32_t node, int64_t w) {
  const double c0 = anchor_time_[size_t(node)], interval = hb_interval_;
  const int64_t g0 = anchor_gap_[size_t(node)];
  const int64_t end = log_base_ + int64_t(log_.size());
  auto counter_at = [&](int64_t g) { return g < end ? entry(g).counter : events_q_.next_seq(); };
  auto entries_at = [&](double t) {
    auto lo = std::lower_bound(log_.begin(), log_.end(), t, [](const LogEntry& x, double v) { return x.time < v; });
    auto hi = std::upper_bound(lo, log_.end(), t, [](double v, const LogEntry& x) { return v < x.time; });
    return std::pair<int64_t, int64_t>{log_base_ + (lo - log_.begin()), log_base_ + (hi - log_.begin())};
  };
  // a skipped heartbeat at time t pushed in gap g comes after the events at t pushed before g
  // (they are in the log in sequence order)
  auto position = [&](double t, int64_t g) {
    const auto [lo, hi] = entries_at(t);
    if (lo == hi) return lo;
    const uint64_t before = counter_at(g);
    const auto first = log_.begin() + (lo - log_base_), last = log_.begin() + (hi - log_base_);
    return log_base_ + int64_t(std::partition_point(first, last, [&](const LogEntry& x) { return x.seq < before; }) - log_.begin());
  };
  // the position of the j-th skipped heartbeat (j >= 1): its gap is its predecessor's position
  // (the anchor's gap for the first). Only events at exactly the predecessors' times make that
  // matter: they are followed back as far as needed.
  auto position_of = [&](uint64_t j) {
    for (uint64_t depth = 4;; depth *= 4) {
      const uint64_t a = j > depth ? j - depth : 1;
      uint64_t taken = 0;
      double c = a == 1 ? c0 : heartbeat_chain(c0, interval, INFINITY, a - 1, taken);
      int64_t g_lo = g0, g_hi = g0;
      if (a > 1) std::tie(g_lo, g_hi) = entries_at(c);
      int64_t p = 0;
      bool exact = true;
      for (uint64_t k = a; k <= j; ++k) {
        c = c + interval;
        p = position(c, g_lo);
        if (g_hi != g_lo && position(c, g_hi) != p) { exact = false; break; }
        g_lo = g_hi = p;
      }
      if (exact) return Skipped{j, c, p};
    }
  };
  const double t_w = entry(w).time;
  uint64_t q = 0;
  double cq = heartbeat_chain(c0, interval, t_w, UINT64_MAX, q);
  if (q == 0) { cq = c0 + interval; q = 1; }  // (the anchor is at t_w)
  if (cq == t_w) {
    const Skipped s = position_of(q);
    if (s.position <= w) return s;
  }
  if (q == 1) return Skipped{0, c0, g0};
  return position_of(q - 1);
}

// The node wakes where its chain of skipped heartbeats stands as the current event (the log's last
// entry) makes something pending: at the next heartbeat the run would process, in the gap of
// sequence numbers it would have been pushed in; or parked, if a skipped one found the cluster idle.
void Sim::wake_sleeping(int32_t node) {
  sleeping_[size_t(node)] = 0;
  const int64_t w = log_base_ + int64_t(log_.size()) - 1;
  const Skipped s = last_skipped(node, w);
  if (s.j > 0 && idle_entry_ >= 0 && s.position >= idle_entry_ + 1) {
    parked_[size_t(node)] = 1;
    ++n_parked_;
    return;
  }
  const double at = s.time + hb_interval_;
  const int64_t gap = s.j > 0 ? s.position : anchor_gap_[size_t(node)];
  woken_.push_back({node, at, gap, s.time, uint8_t(s.j > 0 ? 1 : anchor_skipped_[size_t(node)])});
}

void Sim::clear_log() {
  log_base_ += int64_t(log_.size());
  log_.clear();
  idle_entry_ = -1;
  log_compact_at_ = 4096;
}

// The log has grown: every sleeping node moves its anchor to its last skipped heartbeat (parked if
// that one found the cluster idle), and the entries before the earliest anchor go.
void Sim::compact_log() {
  const int64_t w = log_base_ + int64_t(log_.size()) - 1;
  int64_t keep = w + 1;
  for (int32_t i = 0; i < n_nodes(); ++i) {
    if (!sleeping_[size_t(i)]) continue;
    const Skipped s = last_skipped(i, w);
    if (s.j > 0) {
      if (idle_entry_ >= 0 && s.position >= idle_entry_ + 1) {
        sleeping_[size_t(i)] = 0;
        --n_sleeping_;
        parked_[size_t(i)] = 1;
        ++n_parked_;
        continue;
      }
      anchor_time_[size_t(i)] = s.time;
      anchor_gap_[size_t(i)] = s.position;
      anchor_skipped_[size_t(i)] = 1;
    }
    keep = std::min(keep, anchor_gap_[size_t(i)]);
  }
  if (n_sleeping_ == 0) return clear_log();
  const int64_t drop = keep - log_base_;
  if (drop > 0) {
    log_.erase(log_.begin(), log_.begin() + drop);
    log_base_ = keep;
  }
  log_compact_at_ = std::max<size_t>(4096, 2 * log_.size());
}

void Sim::heartbeat(int32_t node) {
  if (nodes_[node].down) {  // a down node does not report; it resumes at restart
    hb_dead_[node] = 1;
    return;
  }
  if (total_pending_[0] + total_pending_[1] + total_running_[0] + total_running_[1] == 0) {
    parked_[node] = 1;
    ++n_parked_;
    return;
  }
  // pending work and no map running: either nothing runs, or only reduces that may be waiting
  // in their copy phase for maps that can no longer start (a deadlock a scheduler can cause)
  const bool none_pending = total_pending_[0] + total_pending_[1] == 0;
  if (!none_pending && total_running_[kMap] == 0) check_stall();
  offer(node);
  // Nothing was pending at this heartbeat's start, nor after it, and no fault is to come: until
  // something becomes pending (wake_parked_nodes), every heartbeat of every node would begin so,
  // after this one, and change nothing (Scheduler::quiet_without_pending): the node sleeps.
  if (may_sleep_ && none_pending && fault_events_left_ == 0 && total_pending_[0] + total_pending_[1] == 0) {
    if (n_sleeping_ == 0) {
      clear_log();
      log_.push_back({now_, cur_seq_, cur_counter_});
    }
    sleeping_[size_t(node)] = 1;
    anchor_time_[size_t(node)] = now_;
    anchor_gap_[size_t(node)] = log_base_ + int64_t(log_.size());  // (its successor: after this event's pushes)
    anchor_skipped_[size_t(node)] = 0;
    ++n_sleeping_;
    return;
  }
  events_q_.push_later(now_ + hb_interval_, kHeartbeat, static_cast<uint32_t>(node));  // after every earlier such push
}

void Sim::offer(int32_t node) {
  ++heartbeats_;
  if (spec_) spec_->before_heartbeat(*this, node);
  call_scheduler([&] { sched_.on_heartbeat(*this, node); });
  if (spec_) spec_->on_heartbeat(*this, node);
}

void Sim::check_stall() {
  if (std::isnan(stalled_since_)) {
    stalled_since_ = now_;
    return;
  }
  // (at least two heartbeat periods: a scheduler can launch only at a heartbeat, and a period
  // longer than stall_limit is no stall by itself; mrcp with heartbeat_interval 172,801 s and
  // its timers in between was reported stalled before any heartbeat came)
  if (opt_.stall_limit > 0 && now_ - stalled_since_ > std::max(opt_.stall_limit, 2 * hb_interval_)) {
    // an attempt still computing, or a fault still to come (a node yet to restart, a crash yet
    // to be noticed), will change the state: not a stall. A node down for good is no reason to
    // wait (runs with one went on forever).
    if (fault_events_left_ > 0) {
      stalled_since_ = now_;
      return;
    }
    int64_t held = 0;
    for (int32_t i = 0; i < n_nodes(); ++i) {
      for (int64_t a : attempts_on(i)) {
        if (std::isfinite(attempts_[a].finish)) { stalled_since_ = now_; return; }
        ++held;
      }
    }
    int64_t jobs_waiting = 0;
    for (int32_t j : active_jobs_) jobs_waiting += jobs_[j].pending[kMap] + jobs_[j].pending[kReduce] > 0;
    throw std::runtime_error(
        "simulation made no progress: " + std::to_string(total_pending_[kMap]) + " map and " +
        std::to_string(total_pending_[kReduce]) + " reduce tasks of " + std::to_string(jobs_waiting) +
        " jobs are pending and no task has started or ended since t=" + std::to_string(stalled_since_) +
        " s (now t=" + std::to_string(now_) + " s)" +
        (held > 0 ? "; " + std::to_string(held) + " reduce attempts hold slots waiting for maps that cannot start" : "") +
        ": the scheduler never launches them (check its parameters, e.g. a queue with no capacity, or slots of "
        "a type the jobs need); raise or disable (0) the simulate option 'stall_limit' if the wait is intended");
  }
}

void Sim::sample() {
  TimeSeries& ts = series("slots", {"time", "map_slots", "reduce_slots", "running_maps", "running_reduces",
                                     "pending_maps", "pending_reduces", "active_jobs"});
  int64_t rm = 0, rr = 0;
  for (int32_t i = 0; i < n_nodes(); ++i) { rm += nodes_[i].used[0]; rr += nodes_[i].used[1]; }
  const std::initializer_list<double> row = {now_, double(total_cap_[0]), double(total_cap_[1]), double(rm), double(rr),
                                             double(total_pending_[0]), double(total_pending_[1]),
                                             double(active_jobs_.size())};
  ts.add_row(row);
  double next = now_ + opt_.sample_interval;
  // An idle span: the queue holds nothing but the next arrival (every node parked, no attempt,
  // timer or fault pending), so nothing changes until it. The samples that fall before it are
  // written here, each the row its event would have written (the same values, at the same time
  // computed the same way), without going through the queue; one at the arrival's time fires
  // after it (pushed earlier, as before).
  if (!opt_.driven && next_job_ < wl_.n_jobs() && events_q_.size() == 1) {
    const double arrival = wl_.submit_time[next_job_];
    const double now = now_;
    uint64_t written = 0;
    while (next < arrival && next <= opt_.time_limit) {
      now_ = next;
      ts.columns[0].push_back(now_);
      for (size_t c = 1; c < ts.columns.size(); ++c) ts.columns[c].push_back(row.begin()[c]);
      next = now_ + opt_.sample_interval;
      poll_interrupt(events_ + ++written, now_);
    }
    idle_samples_ += double(written);
    now_ = now;
  }
  events_q_.push(next, kSample);
}

void Sim::start() {
  if (started_) throw std::invalid_argument("simulation already started");
  started_ = true;
  dense_copy_end_ = spec_ != nullptr || !faults_.empty();
  // Room for an attempt per task, so that the records do not regrow in the common case. Speculative
  // copies and re-runs after faults add attempts: those runs reserve room for twice as many (address
  // space; a page costs memory once written), lest a regrowth copy every record, and double the
  // records' memory, near the end of the run.
  const size_t room = (dense_copy_end_ ? 2 : 1) * size_t(wl_.n_tasks());
  attempts_.reserve(room);
  if (attempts_.capacity() * sizeof(Attempt) >= kBackgroundPopulateBytes)
    attempt_pages_.start(attempts_.data(), attempts_.capacity() * sizeof(Attempt), kRecordBlock * sizeof(Attempt),
                         kPopulateAhead * kRecordBlock * sizeof(Attempt));
  if (dense_copy_end_) reduce_copy_end_.reserve(room);
  may_sleep_ = !opt_.driven && spec_ == nullptr && sched_.quiet_without_pending();
  if (may_sleep_) {
    // room before every sequence number for the heartbeats woken into it (at most one per node)
    uint64_t stride = 2;
    while (stride < uint64_t(n_nodes()) + 2) stride *= 2;
    events_q_.set_seq_stride(stride);
    sleeping_.assign(size_t(n_nodes()), 0);
    anchor_time_.assign(size_t(n_nodes()), 0.0);
    anchor_gap_.assign(size_t(n_nodes()), 0);
    anchor_skipped_.assign(size_t(n_nodes()), 0);
  }
  sched_.init(*this);
  if (spec_) spec_->init(*this);
  for (size_t i = 0; i < faults_.size(); ++i) {
    const Fault& f = faults_[i];
    if (f.kind == Fault::Slowdown) {
      events_q_.push(f.start, kSlowStart, static_cast<uint32_t>(f.node), i);
      ++fault_events_left_;
      if (std::isfinite(f.end)) {
        events_q_.push(f.end, kSlowEnd, static_cast<uint32_t>(f.node), i);
        ++fault_events_left_;
      }
    } else {
      events_q_.push(f.start, kCrash, static_cast<uint32_t>(f.node), i);
      ++fault_events_left_;
    }
  }
  if (opt_.driven) {
    if (!faults_.empty()) throw std::invalid_argument("driven mode: faults are not supported");
    return;  // jobs come through submit_now, heartbeats through heartbeat_now
  }
  if (wl_.n_jobs() > 0) events_q_.push(wl_.submit_time[0], kArrival, 0);
  if (opt_.sample_interval > 0) events_q_.push(0, kSample);
}

inline void Sim::process(const Event& e) {
  switch (e.kind) {
    case kArrival: {
      // Arrivals are pushed one at a time, so the heap holds O(active) events, not O(jobs).
      const int32_t j = static_cast<int32_t>(next_job_++);
      if (next_job_ < wl_.n_jobs()) events_q_.push(wl_.submit_time[next_job_], kArrival, 0);
      arrive(j);
      break;
    }
    case kHeartbeat: heartbeat(static_cast<int32_t>(e.a)); break;
    case kAttemptEnd: attempt_end(static_cast<int64_t>(e.b)); break;
    case kTimer: call_scheduler([&] { sched_.on_timer(*this, e.b); }); break;
    case kSample: sample(); break;
    case kSpecTimer: if (spec_) spec_->on_timer(*this, e.b); break;
    case kSlowStart: --fault_events_left_; slowdown_event(static_cast<int32_t>(e.b), true); break;
    case kSlowEnd: --fault_events_left_; slowdown_event(static_cast<int32_t>(e.b), false); break;
    case kCrash: --fault_events_left_; crash(static_cast<int32_t>(e.a), faults_[e.b].restart_after); break;
    case kDetect: --fault_events_left_; detect(static_cast<int32_t>(e.a)); break;
    case kRestart: --fault_events_left_; restart(static_cast<int32_t>(e.a)); break;
  }
}

inline void Sim::step(const Event& e) {
  if (!may_sleep_) return process(e);
  cur_seq_ = e.seq;
  cur_counter_ = events_q_.next_seq();
  if (n_sleeping_ > 0) {
    if (log_.size() >= log_compact_at_) compact_log();
    if (n_sleeping_ > 0) log_.push_back({e.time, e.seq, cur_counter_});
  }
  process(e);
  if (n_sleeping_ > 0 && idle_entry_ < 0 &&
      total_pending_[0] + total_pending_[1] + total_running_[0] + total_running_[1] == 0)
    idle_entry_ = log_base_ + int64_t(log_.size()) - 1;
}

SimResult Sim::run() {
  start();
  while (!events_q_.empty() && unfinished_jobs_ > 0) {
    const Event e = events_q_.pop();
    if (e.time > opt_.time_limit) { now_ = opt_.time_limit; break; }
    now_ = e.time;
    ++events_;
    poll_interrupt(events_, now_);
    // the attempt of the heap's next event is usually not in cache: start its load while this
    // event runs (heartbeats use the lane, so the heap's front is mostly an attempt's end)
    if (uint64_t next; events_q_.heap_front_is(kAttemptEnd, next)) __builtin_prefetch(&attempts_[next]);
    step(e);
  }
  attempt_pages_.stop();
  return collect(true);
}

bool Sim::resume() {
  if (!started_) throw std::invalid_argument("resume: call start() first");
  if (opt_.driven) throw std::invalid_argument("resume: not in driven mode");
  if (stepped_out_) return false;
  pause_ = false;
  while (!events_q_.empty() && unfinished_jobs_ > 0) {
    const Event e = events_q_.pop();
    if (e.time > opt_.time_limit) { now_ = opt_.time_limit; break; }
    now_ = e.time;
    ++events_;
    poll_interrupt(events_);
    step(e);
    if (pause_) {
      pause_ = false;
      return true;
    }
  }
  stepped_out_ = true;
  return false;
}

// ---- driven mode ----

namespace {
void require_driven(const Options& o, bool started, const char* what) {
  if (!o.driven) throw std::invalid_argument(std::string(what) + ": only in driven mode");
  if (!started) throw std::invalid_argument(std::string(what) + ": call start() first");
}
}  // namespace

void Sim::advance_to(double t) {
  require_driven(opt_, started_, "advance_to");
  if (!(t >= now_)) throw std::invalid_argument("the clock cannot move backwards (now " + std::to_string(now_) +
                                                " s, asked " + std::to_string(t) + " s)");
  while (!events_q_.empty() && events_q_.top().time <= t) {
    const Event e = events_q_.pop();
    now_ = std::max(now_, e.time);
    ++events_;
    process(e);
  }
  now_ = t;
}

void Sim::set_slowstart_maps(int32_t job, int32_t maps) {
  require_driven(opt_, started_, "set_slowstart_maps");
  if (job < 0 || size_t(job) >= wl_.n_jobs()) throw std::invalid_argument("set_slowstart_maps: no job " + std::to_string(job));
  jobs_[job].slowstart_maps = std::clamp(maps, 0, wl_.n_maps[job]);
  if (jobs_[job].submitted && std::isnan(jobs_[job].finish)) count_ready_reduces(job);
  job_changed(job);
}

void Sim::submit_now(int32_t job) {
  require_driven(opt_, started_, "submit_now");
  if (job < 0 || size_t(job) >= wl_.n_jobs()) throw std::invalid_argument("submit_now: no job " + std::to_string(job));
  if (jobs_[job].submitted || (!arrived_.empty() && arrived_[job]))
    throw std::invalid_argument("submit_now: job " + std::to_string(job) + " was submitted already");
  arrive(job);
}

void Sim::heartbeat_now(int32_t node) {
  require_driven(opt_, started_, "heartbeat_now");
  if (node < 0 || node >= n_nodes()) throw std::invalid_argument("heartbeat_now: no node " + std::to_string(node));
  if (nodes_[node].down) return;
  offer(node);
}

namespace {
void check_attempt(int64_t a, int64_t n, const char* what) {
  if (a < 0 || a >= n) throw std::invalid_argument(std::string(what) + ": no attempt " + std::to_string(a));
}
}  // namespace

void Sim::complete(int64_t a) {
  require_driven(opt_, started_, "complete");
  check_attempt(a, n_attempts(), "complete");
  Attempt& at = attempts_[a];
  if (at.status != kRunning)
    throw std::invalid_argument("complete: attempt " + std::to_string(a) + " is not running (it " +
                                (at.status == kSucceeded || at.status == kLost ? "finished already" : "was killed or failed") + ")");
  at.finish = now_;
  attempt_end(a);
}

void Sim::fail(int64_t a) {
  require_driven(opt_, started_, "fail");
  check_attempt(a, n_attempts(), "fail");
  if (attempts_[a].status != kRunning) throw std::invalid_argument("fail: attempt " + std::to_string(a) + " is not running");
  end_attempt(a, kFailed, now_);
  ++failed_attempts_;
}

namespace {
void check_job(int32_t job, size_t n, const char* what) {
  if (job < 0 || size_t(job) >= n) throw std::invalid_argument(std::string(what) + ": no job " + std::to_string(job));
}
}  // namespace

void Sim::end_job(int32_t job, uint8_t status, bool keep_attempts) {
  require_driven(opt_, started_, "end_job");
  check_job(job, jobs_.size(), "end_job");
  if (status != kKilled && status != kFailed) throw std::invalid_argument("end_job: the status must be killed or failed");
  JobState& js = jobs_[job];
  if (!js.submitted || !std::isnan(js.finish))
    throw std::invalid_argument("end_job: job " + std::to_string(job) + " is not running (never submitted, or finished)");
  job_changed(job);
  if (js.reduces_counted) {
    remaining_ready_reduces_ -= wl_.n_reduces(job) - js.done[kReduce];
    js.reduces_counted = false;
  }
  for (int64_t t = wl_.task_begin[job]; t < wl_.task_begin[job + 1]; ++t) {
    if (task_rt_[t].state == kDone) continue;
    const int stage = wl_.task_stage[t];
    remaining_[stage]--;
    if (task_rt_[t].state == kPending) {
      js.pending[stage]--;
      total_pending_[stage]--;
    } else {
      js.running[stage]--;
      total_running_[stage]--;
    }
    task_rt_[t].state = kDone;  // (no longer to run: the finders skip it)
    if (keep_attempts) continue;
    for (int64_t a = task_rt_[t].last_attempt; a >= 0; a = attempts_[a].prev_same_task) {
      Attempt& at = attempts_[a];
      if (at.status != kRunning) continue;
      accrue(a);
      at.status = kKilled;
      at.finish = nodes_[at.node].down ? std::min(now_, down_since_[at.node]) : now_;
      release(a);
    }
  }
  js.ended = status;
  js.finish = now_;
  active_jobs_.erase(std::find(active_jobs_.begin(), active_jobs_.end(), job));
  --unfinished_jobs_;
  free_job_index(job);
  call_scheduler([&] { sched_.on_job_finished(*this, job); });
}

void Sim::finalize_job(int32_t job) {
  require_driven(opt_, started_, "finalize_job");
  check_job(job, jobs_.size(), "finalize_job");
  const JobState& js = jobs_[job];
  if (!js.submitted || !std::isnan(js.finish))
    throw std::invalid_argument("finalize_job: job " + std::to_string(job) + " is not running (never submitted, or finished)");
  if (js.done[0] + js.done[1] != wl_.task_begin[job + 1] - wl_.task_begin[job])
    throw std::invalid_argument("finalize_job: job " + std::to_string(job) + " has tasks not yet succeeded (end it with end_job)");
  job_done(job);
}

void Sim::set_progress(int64_t a, double p) {
  require_driven(opt_, started_, "set_progress");
  check_attempt(a, n_attempts(), "set_progress");
  if (attempts_[a].status != kRunning) throw std::invalid_argument("set_progress: attempt " + std::to_string(a) + " is not running");
  if (!(p >= 0 && p <= 1)) throw std::invalid_argument("set_progress: progress must be in [0, 1]");
  attempts_[a].done = p;
  attempts_[a].updated = now_;
}

SimResult Sim::collect(bool last) {
  const size_t nj = wl_.n_jobs();
  SimResult r;
  r.events = events_;
  r.end_time = now_;
  r.job_start.resize(nj);
  r.job_finish.resize(nj);
  auto& mf = r.job_extra["map_finish"];
  auto& ready = r.job_extra["ready"];
  mf.resize(nj);
  ready.resize(nj);
  bool any_ended = false;
  for (size_t j = 0; j < nj; ++j) {
    r.job_start[j] = jobs_[j].start;
    r.job_finish[j] = jobs_[j].finish;
    mf[j] = jobs_[j].map_finish;
    ready[j] = jobs_[j].ready;
    any_ended |= jobs_[j].ended != 0;
  }
  if (any_ended) {  // jobs killed, failed or refused at submission: their finish is when they ended
    auto& ended = r.job_extra["ended"];
    ended.resize(nj);
    for (size_t j = 0; j < nj; ++j) ended[j] = double(jobs_[j].ended);
  }
  // The attempt columns, each written once (reserved, not value-initialized first). The task
  // column first: the scheduler and speculator report next, and may read it and the records.
  const size_t na = attempts_.size();
  r.att_task.reserve(na);
  for (const Attempt& at : attempts_) r.att_task.push_back(at.task);
  sched_.finish(*this, r);
  if (spec_) spec_->finish(*this, r);
  r.att_node.reserve(na); r.att_start.reserve(na); r.att_finish.reserve(na);
  r.att_status.reserve(na); r.att_locality.reserve(na); r.att_slot.reserve(na);
  r.att_speculative.reserve(na); r.att_slot_type.reserve(na);
  auto& copy_end = r.att_extra["copy_end"];
  if (!dense_copy_end_) copy_end.reserve(na);
  // On large runs the columns' pages are faulted in by a thread of their own, a few blocks ahead
  // of the conversion below (as the attempt records' are during the run).
  auto column = [](const auto& v) { return PagePopulator::Column{v.data(), sizeof(v[0])}; };
  std::vector<PagePopulator::Column> columns = {column(r.att_node), column(r.att_start), column(r.att_finish),
                                                column(r.att_status), column(r.att_locality), column(r.att_slot),
                                                column(r.att_speculative), column(r.att_slot_type)};
  if (!dense_copy_end_) columns.push_back(column(copy_end));
  size_t row_bytes = 0;
  for (const auto& c : columns) row_bytes += c.row_bytes;
  PagePopulator column_pages;
  if (na * row_bytes >= kBackgroundPopulateBytes) column_pages.start(columns, na, kRecordBlock, kPopulateAhead * kRecordBlock);
  // At the end of a run (`last`) the records are released block by block as they are converted,
  // so that the columns (32 bytes per attempt) never coexist with all the records (64).
  for (size_t b = 0; b < na; b += kRecordBlock) {
    const size_t e = std::min(na, b + kRecordBlock);
    // this block's part of each column faulted in (by column_pages's thread, or here by one call
    // per column), not a fault per page (block by block: the records converted so far are given
    // back as the columns grow)
    if (column_pages.running()) column_pages.advance(b);
    else PagePopulator::populate_rows(columns, b, e - b);
    for (size_t a = b; a < e; ++a) {
      const Attempt& at = attempts_[a];
      r.att_node.push_back(at.node); r.att_start.push_back(at.start);
      r.att_finish.push_back(at.status == kRunning ? kNaN : at.finish);
      r.att_status.push_back(at.status); r.att_locality.push_back(at.locality); r.att_slot.push_back(at.slot_pos);
      r.att_speculative.push_back(at.speculative);
      r.att_slot_type.push_back(at.slot_type);
    }
    if (last) release_memory(attempts_.data() + b, (e - b) * sizeof(Attempt));
  }
  if (last) std::vector<Attempt>().swap(attempts_);
  if (dense_copy_end_) {
    copy_end = std::move(reduce_copy_end_);
  } else {
    column_pages.advance(na);
    copy_end.assign(na, kNaN);
    for (size_t i = 0; i < reduce_attempts_.size(); ++i) copy_end[size_t(reduce_attempts_[i])] = reduce_copy_end_[i];
  }
  r.att_extra["orig_node"] = std::move(attempt_orig_node_);
  r.att_extra["speed_at_start"] = std::move(attempt_speed_at_start_);
  for (const auto& [name, value] : counters_) r.counters[name] = value;
  r.counters["heartbeats"] = double(heartbeats_);
  if (idle_samples_ > 0) r.counters["idle_samples"] = idle_samples_;
  r.counters["out_of_band_heartbeats"] = double(oob_heartbeats_);
  r.counters["heartbeat_interval"] = hb_interval_;
  r.counters["slot_model"] = double(static_cast<int>(slot_model_));  // 0 typed, 1 pooled, 2 containers
  if (opt_.measure_overhead) {
    r.counters["scheduler_seconds"] = double(sched_ns_) * 1e-9;
    r.counters["scheduler_calls"] = double(sched_calls_);
  }
  if (!faults_.empty()) {
    TimeSeries& fs = r.series["faults"];
    fs = TimeSeries::with_columns({"start", "node", "kind", "end", "factor"});  // kind 0 = slowdown, 1 = crash; crash end = restart
    for (const Fault& f : faults_)
      fs.add_row({f.start, double(f.node), double(f.kind), f.kind == Fault::Slowdown ? f.end : f.start + f.restart_after,
                  f.kind == Fault::Slowdown ? f.factor : 0.0});
    r.counters["node_crashes"] = double(crashes_);
    r.counters["lost_map_outputs"] = double(lost_outputs_);
    r.counters["failed_attempts"] = double(failed_attempts_);
  }
  r.series.merge(series_);
  return r;
}

}  // namespace schedlab::mr

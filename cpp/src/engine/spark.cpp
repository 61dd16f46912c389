// The Spark scheduling model (see schedlab/spark.h). Class and method names below are Spark
// 3.x's (core/src/main/scala/org/apache/spark/scheduler/ and ExecutorAllocationManager); the
// behaviour follows them, the code is this project's own.
//
// What is simplified, on purpose:
//  * task failures are drawn (task_failure_probability) or come from executor crashes (the
//    `faults` option);
//  * several applications (a workload's `application` column) share the nodes as the workers
//    of a standalone Master (class Master below): memory is not modelled, workers tie by index,
//    and each application's revive and speculation timers tick from time 0;
//  * lost map outputs (an executor crash without shuffle_service): a reduce attempt reads its
//    shuffle input when it starts, so one running at the loss completes, and one launched while
//    a parent's output is missing fails at once (FetchFailed) after its fixed costs; the new
//    attempt of a failed stage runs the partitions without output and without an attempt still
//    running in the failed attempt (Spark would start a second copy of those); a stage whose
//    failed attempt completes all its partitions ends then, not at its next submission;
//  * a speculative copy may run at the levels its task prefers (PROCESS_LOCAL / NODE_LOCAL /
//    RACK_LOCAL) or, once the task set's allowed level reaches it, NO_PREF / ANY, on a host
//    without an attempt of the task (TaskSetManager.dequeueSpeculativeTask's rule); the
//    speculation rule is the classic one (spark.speculation.efficiency.enabled = false);
//  * killed copies free their core at once; time advances only by events (no RPC latency
//    beyond the calibrated fixed costs of Options).
#include "schedlab/spark.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "schedlab/interrupt.h"
#include "schedlab/mapreduce.h"  // parse_faults: the injected-fault syntax shared with the mapreduce engine

namespace schedlab::spark {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEps = 1e-9;  // time comparisons (Spark compares whole milliseconds)

enum EventKind : uint32_t { kStageSubmit, kTaskEnd, kRevive, kSpecTick, kAllocTick, kExecRegister, kExecLost, kExecRestart,
                            kResubmitFailed };

// A stage's state in the DAGScheduler (waitingStages, runningStages, failedStages)
enum StageState : uint8_t { kStPending, kStSubmitting, kStRunning, kStIdle, kStWaiting, kStDone };

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\n"), b = s.find_last_not_of(" \t\n");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}
}  // namespace

// ------------------------------------------------------------------------------------ options

const std::vector<ParamSpec>& Options::specs() {
  static const std::vector<ParamSpec> s = {
      ParamSpec::number("locality_wait", 3.0, 0, 1e9, "spark.locality.wait: seconds to wait at a locality level before trying a less local one"),
      ParamSpec::number("locality_wait_process", -1, -1, 1e9, "spark.locality.wait.process (-1: locality_wait)"),
      ParamSpec::number("locality_wait_node", -1, -1, 1e9, "spark.locality.wait.node (-1: locality_wait)"),
      ParamSpec::number("locality_wait_rack", -1, -1, 1e9, "spark.locality.wait.rack (-1: locality_wait)"),
      ParamSpec::boolean("locality_wait_legacy_reset", false,
                         "spark.locality.wait.legacyResetOnTaskLaunch: reset the delay timer on every local launch (Spark < 3.1); "
                         "default: only after an offer round without delay-scheduling rejections"),
      ParamSpec::number("revive_interval", 1.0, 1e-3, 1e9, "spark.scheduler.revive.interval: seconds between offers of every free core; at least 1 ms (a tick is an event) while tasks are pending"),
      ParamSpec::integer("task_cpus", 1, 1, 1 << 20, "spark.task.cpus: cores per task"),
      ParamSpec::boolean("shuffle_offers", true, "shuffle the offered executors before each offer round (TaskSchedulerImpl.shuffleOffers; seeded)"),
      ParamSpec::integer("executors_per_host", 1, 1, 1 << 20,
                         "consecutive cluster nodes (executors) that share a host (NODE_LOCAL among them)"),
      ParamSpec::choice("preferred_locations", "executor", {"executor", "host"},
                        "what a task's replicas name: 'executor' = executors caching its partition (PROCESS_LOCAL there, "
                        "NODE_LOCAL on their hosts); 'host' = the hosts of those nodes (NODE_LOCAL, like HDFS blocks)"),
      ParamSpec::boolean("rack_locality", true, "racks are known (YARN topology): tasks get a RACK_LOCAL level when the cluster has racks"),
      ParamSpec::boolean("speculation", false, "spark.speculation: re-launch slow tasks"),
      ParamSpec::number("speculation_interval", 0.1, 1e-3, 1e9, "spark.speculation.interval: seconds between speculation checks; at least 1 ms (a tick is an event) while tasks run"),
      ParamSpec::number("speculation_multiplier", 1.5, 0, 1e9, "spark.speculation.multiplier: x the median successful duration"),
      ParamSpec::number("speculation_quantile", 0.75, 0, 1, "spark.speculation.quantile: fraction of tasks done before speculating"),
      ParamSpec::number("speculation_min_task_runtime", 0.1, 0, 1e9, "spark.speculation.minTaskRuntime: seconds"),
      ParamSpec::boolean("dynamic_allocation", false, "spark.dynamicAllocation.enabled"),
      ParamSpec::integer("min_executors", 0, 0, 1 << 30, "spark.dynamicAllocation.minExecutors"),
      ParamSpec::integer("max_executors", 1 << 30, 0, 1 << 30, "spark.dynamicAllocation.maxExecutors (capped at the cluster's nodes)"),
      ParamSpec::integer("initial_executors", -1, -1, 1 << 30, "spark.dynamicAllocation.initialExecutors (-1: minExecutors)"),
      ParamSpec::number("executor_allocation_ratio", 1.0, 1e-9, 1, "spark.dynamicAllocation.executorAllocationRatio"),
      ParamSpec::number("scheduler_backlog_timeout", 1.0, 0, 1e9, "spark.dynamicAllocation.schedulerBacklogTimeout: seconds"),
      ParamSpec::number("sustained_scheduler_backlog_timeout", -1, -1, 1e9,
                        "spark.dynamicAllocation.sustainedSchedulerBacklogTimeout (-1: scheduler_backlog_timeout)"),
      ParamSpec::number("executor_idle_timeout", 60.0, 0, 1e12, "spark.dynamicAllocation.executorIdleTimeout: seconds"),
      ParamSpec::number("allocation_interval", 0.1, 1e-3, 1e9, "ExecutorAllocationManager's scheduling period (100 ms in Spark); at least 1 ms (a tick is an event) over the whole run)"),
      ParamSpec::number("executor_start_time", 0, 0, 86400,
                        "seconds from the application's start (static) or an executor request (dynamic) to the executor's registration; at most a day (a task waiting that long costs a revive event per revive_interval)"),
      ParamSpec::number("task_launch_overhead", 0, 0, 86400,
                        "seconds added to every attempt (launch RPC, task deserialization, result handling); replayed event logs include it; at most a day (a task waiting that long costs a revive event per revive_interval)"),
      ParamSpec::number("first_task_overhead", 0, 0, 86400,
                        "seconds added to the first attempt on each core of an executor (e.g. a Python worker's start); at most a day (a task waiting that long costs a revive event per revive_interval)"),
      ParamSpec::number("stage_fetch_overhead", 0, 0, 86400,
                        "seconds added to the first attempt of a stage on each executor (its task binary, a broadcast, is "
                        "fetched once per executor; concurrent first attempts there wait for it too); at most a day (a task waiting that long costs a revive event per revive_interval)"),
      ParamSpec::number("stage_submit_delay", 0, 0, 1e9,
                        "seconds from a stage's parents' end (or its job's submission) to its task set's submission"),
      ParamSpec::number("time_limit", INFINITY, 0, INFINITY, "stop the simulation at this time (unfinished jobs get NaN finish times)"),
      ParamSpec::integer("max_failures", 4, 1, 1 << 30,
                         "spark.task.maxFailures: a task failing this many times aborts its task set and fails its Spark job"),
      ParamSpec::number("task_failure_probability", 0, 0, 1,
                        "each attempt fails with this probability, after a uniformly drawn fraction of its run time (seeded)"),
      ParamSpec::boolean("shuffle_service", false,
                         "spark.shuffle.service.enabled: a lost executor's map outputs survive; else they are lost: the "
                         "finished map tasks of an unfinished shuffle-map stage that ran there run again, and a finished "
                         "stage's lost outputs are recomputed (fetch failure, stage re-submission) when a stage reads them"),
      ParamSpec::integer("max_consecutive_attempts", 4, 1, 1 << 30,
                         "spark.stage.maxConsecutiveAttempts: a stage whose attempts fail this many times in a row with "
                         "fetch failures aborts its Spark job"),
      ParamSpec::number("resubmit_timeout", 0.2, 0, 1e9,
                        "seconds from a fetch failure to the re-submission of the failed stages (DAGScheduler.RESUBMIT_TIMEOUT, "
                        "200 ms, a constant in Spark)"),
      ParamSpec::boolean("spread_out", true,
                         "spark.deploy.spreadOut (several applications): the standalone Master spreads an application's "
                         "executors over the workers, one executor's cores at a time; false: fills each worker in turn"),
      ParamSpec::integer("default_cores", 0, 0, 1 << 30,
                         "spark.deploy.defaultCores (several applications): the cores of an application without "
                         "spark.cores.max (0: unlimited, Spark's Int.MaxValue default)"),
      ParamSpec::integer("cores_max", 0, 0, 1 << 30,
                         "spark.cores.max of every application (several applications; 0: unset, default_cores; the "
                         "scheduler parameter application_settings sets it per application)"),
      ParamSpec::integer("executor_cores", 0, 0, 1 << 30,
                         "spark.executor.cores (several applications; 0: unset, as in standalone mode: one executor per "
                         "worker and application with all the cores it can take)"),
      ParamSpec::text("faults", "",
                      "executor crashes, ';'-separated: crash:NODE:AT:RESTART_AFTER, mtbf:MEAN_UPTIME:RESTART_AFTER:HORIZON "
                      "(Python: schedlab.faults.Crash, MTBF); the driver removes a crashed executor at once, its running "
                      "tasks fail (counting towards max_failures) and it registers again, empty, after RESTART_AFTER"),
  };
  return s;
}

Options Options::from(const Params& p) {
  Options o;
  o.locality_wait = p.number("locality_wait");
  o.locality_wait_process = p.number("locality_wait_process");
  o.locality_wait_node = p.number("locality_wait_node");
  o.locality_wait_rack = p.number("locality_wait_rack");
  o.legacy_locality_reset = p.boolean("locality_wait_legacy_reset");
  o.revive_interval = p.number("revive_interval");
  o.task_cpus = static_cast<int32_t>(p.integer("task_cpus"));
  o.shuffle_offers = p.boolean("shuffle_offers");
  o.executors_per_host = static_cast<int32_t>(p.integer("executors_per_host"));
  o.host_preferences = p.choice("preferred_locations") == "host";
  o.rack_locality = p.boolean("rack_locality");
  o.speculation = p.boolean("speculation");
  o.speculation_interval = p.number("speculation_interval");
  o.speculation_multiplier = p.number("speculation_multiplier");
  o.speculation_quantile = p.number("speculation_quantile");
  o.speculation_min_task_runtime = p.number("speculation_min_task_runtime");
  o.dynamic_allocation = p.boolean("dynamic_allocation");
  o.min_executors = static_cast<int32_t>(p.integer("min_executors"));
  o.max_executors = static_cast<int32_t>(p.integer("max_executors"));
  o.initial_executors = static_cast<int32_t>(p.integer("initial_executors"));
  o.executor_allocation_ratio = p.number("executor_allocation_ratio");
  o.backlog_timeout = p.number("scheduler_backlog_timeout");
  o.sustained_backlog_timeout = p.number("sustained_scheduler_backlog_timeout");
  o.executor_idle_timeout = p.number("executor_idle_timeout");
  o.allocation_interval = p.number("allocation_interval");
  o.executor_start_time = p.number("executor_start_time");
  o.task_launch_overhead = p.number("task_launch_overhead");
  o.first_task_overhead = p.number("first_task_overhead");
  o.stage_submit_delay = p.number("stage_submit_delay");
  o.stage_fetch_overhead = p.number("stage_fetch_overhead");
  o.time_limit = p.number("time_limit");
  o.max_failures = static_cast<int32_t>(p.integer("max_failures"));
  o.task_failure_probability = p.number("task_failure_probability");
  o.shuffle_service = p.boolean("shuffle_service");
  o.faults = p.text("faults");
  o.max_consecutive_attempts = static_cast<int32_t>(p.integer("max_consecutive_attempts"));
  o.resubmit_timeout = p.number("resubmit_timeout");
  o.spread_out = p.boolean("spread_out");
  o.default_cores = static_cast<int32_t>(p.integer("default_cores"));
  o.cores_max = static_cast<int32_t>(p.integer("cores_max"));
  o.executor_cores = static_cast<int32_t>(p.integer("executor_cores"));
  if (o.task_failure_probability >= 1)
    throw std::invalid_argument("simulate options (spark engine): task_failure_probability must be below 1 (every attempt "
                                "failing would never end)");
  if (o.min_executors > o.max_executors)
    throw std::invalid_argument("simulate options (spark engine): min_executors (" + std::to_string(o.min_executors) +
                                ") must not exceed max_executors (" + std::to_string(o.max_executors) + ")");
  return o;
}

std::vector<PoolSpec> parse_pools(const std::string& text, int32_t n_pools) {
  std::vector<PoolSpec> pools(std::max(n_pools, 0));
  for (int32_t i = 0; i < n_pools; ++i) pools[i].name = i == 0 ? "default" : "pool" + std::to_string(i);
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ';')) {
    item = trim(item);
    if (item.empty()) continue;
    auto bad = [&](const std::string& why) {
      return std::invalid_argument("parameter 'pools': entry '" + item + "': " + why +
                                   " (expected 'code=name/FIFO|FAIR/weight/minShare')");
    };
    const size_t eq = item.find('=');
    if (eq == std::string::npos) throw bad("no '='");
    char* end = nullptr;
    const long code = std::strtol(item.c_str(), &end, 10);
    if (end != item.c_str() + eq || code < 0) throw bad("the pool code must be a whole number >= 0");
    std::vector<std::string> f;
    std::istringstream fields(item.substr(eq + 1));
    std::string tok;
    while (std::getline(fields, tok, '/')) f.push_back(trim(tok));
    if (f.size() != 4) throw bad("four fields are needed");
    PoolSpec p;
    p.name = f[0];
    if (f[1] == "FAIR") p.fair = true;
    else if (f[1] != "FIFO") throw bad("schedulingMode must be FIFO or FAIR");
    p.weight = std::strtod(f[2].c_str(), &end);
    if (f[2].empty() || *end != '\0' || !(p.weight >= 0) || !std::isfinite(p.weight)) throw bad("weight must be a number >= 0");
    const long ms = std::strtol(f[3].c_str(), &end, 10);
    if (f[3].empty() || *end != '\0' || ms < 0 || ms > (1L << 30)) throw bad("minShare must be a whole number >= 0");
    p.min_share = static_cast<int32_t>(ms);
    if (code < n_pools) pools[code] = p;  // pools without jobs play no part
  }
  return pools;
}

// One whole number per workload job, comma-separated, each in [0, max]; `what` says what an entry
// is in the error, `nouns` what the entries are called (stage_ids and applications).
std::vector<int64_t> parse_per_job_numbers(const std::string& text, size_t n_jobs, const char* name, long long max,
                                           const char* what, const char* nouns) {
  std::vector<int64_t> out;
  if (trim(text).empty()) return out;
  std::istringstream in(text);
  std::string tok;
  while (std::getline(in, tok, ',')) {
    tok = trim(tok);
    char* end = nullptr;
    const long long v = std::strtoll(tok.c_str(), &end, 10);
    if (tok.empty() || *end != '\0' || v < 0 || v > max)
      throw std::invalid_argument(std::string("parameter '") + name + "': entry " + std::to_string(out.size()) +
                                  " ('" + tok + "') is not " + what);
    out.push_back(v);
  }
  if (out.size() != n_jobs)
    throw std::invalid_argument(std::string("parameter '") + name + "': " + std::to_string(out.size()) + " " + nouns +
                                " for " + std::to_string(n_jobs) + " workload jobs (one per job, in job order)");
  return out;
}

std::vector<int64_t> parse_stage_ids(const std::string& text, size_t n_jobs) {
  return parse_per_job_numbers(text, n_jobs, "stage_ids", std::numeric_limits<long long>::max(),
                               "a whole number >= 0", "ids");
}

std::vector<int32_t> parse_applications(const std::string& text, size_t n_jobs) {
  const std::vector<int64_t> v = parse_per_job_numbers(text, n_jobs, "applications", 1LL << 20,
                                                       "an application code (a whole number 0 .. 2^20)", "codes");
  return std::vector<int32_t>(v.begin(), v.end());
}

std::vector<AppSpec> parse_application_settings(const std::string& text) {
  std::vector<AppSpec> specs;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ';')) {
    std::vector<std::string> f;
    std::istringstream fields(item);
    std::string tok;
    while (std::getline(fields, tok, '/')) f.push_back(trim(tok));
    while (f.size() < 3) f.emplace_back();
    auto bad = [&](const std::string& why) {
      return std::invalid_argument("parameter 'application_settings': application " + std::to_string(specs.size()) + " ('" +
                                   trim(item) + "'): " + why + " (expected 'arrival/cores_max/executor_cores', empty fields for defaults)");
    };
    if (f.size() != 3) throw bad("three fields are needed");
    AppSpec sp;
    char* end = nullptr;
    if (!f[0].empty()) {
      sp.arrival = std::strtod(f[0].c_str(), &end);
      if (*end != '\0' || !std::isfinite(sp.arrival) || sp.arrival < 0) throw bad("arrival must be a number of seconds >= 0");
    }
    for (int k : {1, 2}) {
      if (f[k].empty()) continue;
      const long v = std::strtol(f[k].c_str(), &end, 10);
      if (*end != '\0' || v < 0 || v > (1L << 30)) throw bad(std::string(k == 1 ? "cores_max" : "executor_cores") + " must be a whole number >= 0");
      (k == 1 ? sp.cores_max : sp.executor_cores) = static_cast<int32_t>(v);
    }
    specs.push_back(sp);
  }
  return specs;
}

// ------------------------------------------------------------------------------- the model

namespace {

class Master;
void master_request(Master* m, int32_t app, int32_t target);
void master_released(Master* m, int32_t app, int32_t e);

struct List {
  int32_t key;
  int32_t begin, end, cur;  // into Sim::flat_ (16 bytes a list: offer passes scan them)
};

struct TaskSet {
  int32_t stage = 0, job = 0, pool = 0, name_rank = 0;
  int64_t t0 = 0;
  int32_t n = 0;
  int32_t unlaunched = 0, running = 0, succeeded = 0;
  int32_t pend[4] = {0, 0, 0, 0};  // never-launched tasks with executor / host / no / rack preferences
  uint8_t levels[5] = {};
  uint8_t n_levels = 0, cur = 0;
  double last_reset = 0;
  bool nopref_pass = false;  // one of its levels is NO_PREF (a pass that delay scheduling does not cap)
  bool active = false, waiting = false, idle = false;
  int64_t all_cur = 0;
  int32_t exec_b = 0, exec_e = 0, host_b = 0, host_e = 0, rack_b = 0, rack_e = 0;  // into lists_
  int64_t nopref_b = 0, nopref_e = 0, nopref_cur = 0;                               // into flat_
  int32_t live_b = 0, live_e = 0;  // into Sim::live_: its executor lists not yet exhausted
  uint64_t bloom[3][4] = {};  // keys (mod 256) of the executor, host and rack lists: most misses need no search
  std::vector<int32_t> spec;                   // speculatable tasks without a copy yet
  std::vector<int32_t> retry;                  // failed tasks back in the pending lists (taken first: Spark's lists are stacks)
  bool dead = false;                           // aborted with its Spark job
  std::vector<double> lo, hi;                  // successful durations: max-heap lo, min-heap hi
  double median() const {
    if (lo.empty()) return kNaN;
    return lo.size() > hi.size() ? lo.front() : 0.5 * (lo.front() + hi.front());
  }
  void add_duration(double d) {
    if (lo.empty() || d <= lo.front()) { lo.push_back(d); std::push_heap(lo.begin(), lo.end()); }
    else { hi.push_back(d); std::push_heap(hi.begin(), hi.end(), std::greater<double>()); }
    if (lo.size() > hi.size() + 1) {
      std::pop_heap(lo.begin(), lo.end()); hi.push_back(lo.back()); lo.pop_back();
      std::push_heap(hi.begin(), hi.end(), std::greater<double>());
    } else if (hi.size() > lo.size()) {
      std::pop_heap(hi.begin(), hi.end(), std::greater<double>()); lo.push_back(hi.back()); hi.pop_back();
      std::push_heap(lo.begin(), lo.end());
    }
  }
};

class Sim {
 public:
  Sim(const Cluster& c, const Workload& w, bool fair, const std::vector<PoolSpec>& pools, const Options& o, uint64_t seed)
      : cl_(c), wl_(w), fair_(fair), pools_(pools), opt_(o), rng_(seed, 11), fail_rng_(seed, 13), seed_(seed) {
    build();
  }
  SimResult run();
  // stepped by the standalone Master's loop (several applications)
  void start();
  bool step();
  bool has_event() const { return !q_.empty(); }
  double next_time() const { return q_.top().time; }
  SimResult result();
  bool finished() const { return unfinished_ == 0; }
  void attach(Master* cm, int32_t app, bool faults) {
    cm_ = cm;
    app_ = app;
    if (faults) reoffer_ = true;  // (the Master injects its workers' crashes)
  }
  void grant(int32_t e, int32_t cores, double at);  // the Master launched executor e with `cores`
  void worker_lost(int32_t e, double at);           // executor e's worker is lost
  int32_t target() const { return target_; }

 private:
  Master* cm_ = nullptr;  // standalone cluster manager (several applications), or none
  int32_t app_ = 0;
  std::vector<int32_t> cores_;  // per executor: its cores (the node's slots; standalone: as granted)
  bool files_lost_ = false;     // the executor lost is its worker too: map outputs go even with the shuffle service
  // ---- setup
  void build();
  void build_lists(int32_t s);
  // ---- events
  void submit_stage(int32_t s);
  void stage_event(int32_t s);
  void task_end(int64_t att);
  void register_executor(int32_t e);
  void task_failed(int64_t att, bool counts, bool offer);
  void requeue(TaskSet& ts, int32_t t);
  void abort_job(int32_t job);
  void lose_executor(int32_t e);
  void restart_executor(int32_t e);
  int64_t dequeue_retry(TaskSet& ts, int32_t e, uint8_t lv);
  void revive_tick();
  // ---- DAGScheduler: lost map outputs of finished stages, fetch failures, stage re-submission
  bool available(int32_t s) const { return ts_[s].succeeded == ts_[s].n; }  // ShuffleMapStage.isAvailable
  bool parents_available(int32_t s) const;
  bool submit_missing_parents(int32_t s);
  void dag_submit(int32_t s);
  void fetch_failed(int64_t att);
  void resubmit_failed_stages();
  void lose_map_outputs(int32_t e);
  void speculation_tick();
  void allocation_tick();
  double idle_allocation_ticks(double next);
  double idle_alloc_ticks_ = 0;  // allocation ticks of idle spans skipped
  void arm_revive();
  void arm_speculation();
  // ---- TaskSchedulerImpl / TaskSetManager
  void resource_offers(int32_t single_executor);  // -1: every executor with free cores
  void offer_task_set(TaskSet& ts, bool all_free, int64_t& free_total);
  void sorted_task_sets();
  bool can_launch_on(TaskSet& ts, int32_t e);
  void offer_pass(TaskSet& ts, uint8_t max_level, bool& launched, bool& no_rejects, uint8_t& global_min, int64_t& free_total);
  void dense_pass(TaskSet& ts, uint8_t max_level, size_t from, bool& launched, bool& no_rejects, uint8_t& global_min,
                  int64_t& free_total);
  int64_t resource_offer(TaskSet& ts, int32_t e, uint8_t max_level, bool& reject);
  uint8_t allowed_level(TaskSet& ts);
  void compute_levels(TaskSet& ts);
  void reset_timer(TaskSet& ts, uint8_t min_level);
  int64_t dequeue(TaskSet& ts, int32_t e, uint8_t allowed, uint8_t& level);
  int64_t dequeue_speculative(TaskSet& ts, int32_t e, uint8_t allowed, uint8_t& level);
  int64_t take(List& l);
  int64_t take_range(int64_t& cur, int64_t end);
  List* find(int32_t b, int32_t e, int32_t key);
  List* find(const TaskSet& ts, int kind, int32_t key) {  // kind 0 executor, 1 host, 2 rack
    if (!((ts.bloom[kind][(key >> 6) & 3] >> (key & 63)) & 1)) return nullptr;  // no list for this key
    return kind == 0 ? find(ts.exec_b, ts.exec_e, key) : kind == 1 ? find(ts.host_b, ts.host_e, key)
                                                                   : find(ts.rack_b, ts.rack_e, key);
  }
  int64_t launch(TaskSet& ts, int64_t t, int32_t e, uint8_t level, bool speculative);
  void finish_attempt(int64_t att, uint8_t status);
  bool check_speculatable(TaskSet& ts);
  // ---- ExecutorAllocationManager
  int64_t pending_tasks() const { return pending_total_; }
  void backlog_changed();
  void stage_left();
  void request_executors();
  void remove_executor(int32_t e);
  void executors_changed();

  int32_t host(int32_t e) const { return e / opt_.executors_per_host; }
  // FIFOSchedulingAlgorithm: the Spark job's id (priority), then the stage id
  bool fifo_before(int32_t a, int32_t b) const {
    if (ts_[a].job != ts_[b].job) return ts_[a].job < ts_[b].job;
    return opt_.stage_ids.empty() ? a < b : opt_.stage_ids[a] != opt_.stage_ids[b] ? opt_.stage_ids[a] < opt_.stage_ids[b] : a < b;
  }
  double wait_of(uint8_t level) const {
    switch (level) {
      case kProcessLocal: return opt_.locality_wait_process >= 0 ? opt_.locality_wait_process : opt_.locality_wait;
      case kNodeLocal: return opt_.locality_wait_node >= 0 ? opt_.locality_wait_node : opt_.locality_wait;
      case kRackLocal: return opt_.locality_wait_rack >= 0 ? opt_.locality_wait_rack : opt_.locality_wait;
      default: return 0;
    }
  }

  const Cluster& cl_;
  const Workload& wl_;
  bool fair_;
  std::vector<PoolSpec> pools_;
  Options opt_;
  Random rng_;
  Random fail_rng_;  // attempt failures: their own stream, so that a run without them draws the same offers
  uint64_t seed_;
  EventQueue q_;
  double now_ = 0;
  uint64_t events_ = 0;
  bool racks_ = false;
  int32_t n_exec_ = 0;

  // stages (workload jobs)
  std::vector<TaskSet> ts_;
  std::vector<int32_t> parents_left_;
  std::vector<std::vector<int32_t>> children_;
  std::vector<double> stage_start_, stage_finish_, stage_ready_;
  int64_t unfinished_ = 0;
  std::vector<List> lists_;
  std::vector<int32_t> flat_;  // task ids (global)
  std::vector<int32_t> live_;  // per task set, the indexes of its executor lists with tasks left (pruned when met)
  void reset_live(TaskSet& ts) {
    ts.live_e = ts.live_b + (ts.exec_e - ts.exec_b);
    for (int32_t k = ts.exec_b; k < ts.exec_e; ++k) live_[ts.live_b + (k - ts.exec_b)] = k;
  }
  std::vector<uint8_t> task_prefs_;  // per task: bit 0 executor, 1 host, 2 no preference, 3 rack

  // tasks
  std::vector<uint8_t> launched_, done_;
  std::vector<int64_t> run_att_;  // per task: its last attempt, -1 none
  std::vector<int64_t> first_att_;  // per task: its first attempt (a speculative copy is the second)
  std::vector<uint8_t> copies_;
  std::vector<int32_t> failures_;   // per task: failures counting towards max_failures
  std::vector<uint8_t> att_fails_;  // per attempt: it ends in a failure
  std::vector<uint8_t> down_;       // per executor: crashed, not yet restarted
  // stage_fetch_overhead: the (stage, executor incarnation) pairs whose task binary is fetched,
  // an open-addressing set sized by the tasks (each launch adds at most one pair)
  std::vector<int64_t> fetched_;
  std::vector<uint32_t> incarnation_;  // per executor: restarts (a restarted executor fetches again)
  bool first_fetch(int32_t s, int32_t e) {
    const int64_t key = ((int64_t(s) * n_exec_ + e) << 16) | (incarnation_[e] & 0xffff);
    const size_t mask = fetched_.size() - 1;
    size_t i = static_cast<size_t>((uint64_t(key) * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (fetched_[i] != -1) {
      if (fetched_[i] == key) return false;
      i = (i + 1) & mask;
    }
    fetched_[i] = key;
    return true;
  }
  bool reoffer_ = false;            // task sets with nothing to launch are offered too (failures or speculation on)
  std::vector<int32_t> idle_;       // (reoffer_) active task sets with nothing to launch whose delay timer an offer would move
  std::vector<int32_t> sets_;       // scratch: waiting_ and idle_ in FIFO order

  // executors (nodes)
  std::vector<int32_t> free_, running_;
  std::vector<uint8_t> alive_, starting_;
  std::vector<double> idle_since_;
  std::vector<int32_t> slot_stack_;   // per node: free slot positions, cores slots per node
  std::vector<int64_t> slot_base_;
  std::vector<int32_t> slot_top_;
  std::vector<uint8_t> slot_used_;    // per (node, slot): ever used (first_task_overhead)
  std::vector<int32_t> alive_per_host_, alive_per_rack_;
  int32_t n_alive_ = 0, n_starting_ = 0;

  // pools and ordering
  std::vector<int32_t> pool_running_;
  std::vector<int32_t> pool_name_rank_;
  std::vector<int32_t> active_;       // active task sets (stage ids), in FIFO order
  std::vector<int32_t> waiting_;      // those with tasks (or speculative copies) to launch, in FIFO order
  void set_waiting(int32_t s, bool on);
  std::vector<int32_t> order_;        // scratch: sorted task sets
  std::vector<int32_t> pool_order_;   // scratch
  std::vector<int32_t> pool_count_, pool_next_;  // scratch, per pool (zero between rounds)
  struct PoolKey {
    double ratio;
    uint8_t needy, nan;
    int32_t rank;
  };
  std::vector<PoolKey> pool_key_;  // scratch, per pool
  std::vector<int32_t> offer_exec_, offer_free_;
  // per executor, a bit: alive with a free core (offered by a round of every executor)
  std::vector<uint64_t> offerable_;
  void update_offerable(int32_t e) {
    const uint64_t bit = uint64_t(1) << (e & 63);
    if (alive_[e] && free_[e] >= opt_.task_cpus) offerable_[e >> 6] |= bit;
    else offerable_[e >> 6] &= ~bit;
  }
  // rng_.below(n) for the shuffle of the offers, the same draws and results, with each n's
  // remainder by multiplication (Lemire, Kaser and Kurz, "Faster remainder by direct computation",
  // 2019: r % n = ((M * r mod 2^128) * n) >> 128 with M = floor((2^128 - 1) / n) + 1, exact for
  // every 64-bit r and n) instead of a 64-bit division per draw
  std::vector<unsigned __int128> below_magic_;
  uint64_t below(uint64_t n) {  // n in [2, executors]
    for (;;) {  // (Random::below's loop)
      const uint64_t r = rng_.next_u64();
      const unsigned __int128 low = below_magic_[n] * r;
      const unsigned __int128 bottom = (static_cast<unsigned __int128>(static_cast<uint64_t>(low)) * n) >> 64;
      const uint64_t m = static_cast<uint64_t>((bottom + static_cast<unsigned __int128>(static_cast<uint64_t>(low >> 64)) * n) >> 64);
      if (r - m <= UINT64_MAX - n) return m;
    }
  }
  std::vector<int32_t> offer_pos_;    // per executor: its index in the current offers, -1 none
  std::vector<int32_t> cand_;         // offers that can launch at a local level, for the task set in hand
  // per task set: no delay-scheduling rejection since its timer's last reset (TaskSchedulerImpl's
  // noRejectsSinceLastReset)
  std::vector<uint8_t> no_rejects_since_reset_;
  // An offer of one executor (a task's end) walks every waiting task set, and nearly all of them
  // wait for other executors. A task set is *quiet* when such an offer is sure to do nothing to it
  // but a rejection: it waits at PROCESS_LOCAL or NODE_LOCAL (tasks left at that level, its
  // timer short of the level's wait, so getAllowedLocalityLevel changes nothing), with no task
  // without preference that the NO_PREF pass could take, no failed task back in its lists and no
  // speculatable task -- unless the executor or its host is one its waiting tasks prefer, which
  // the indexes below tell. A task set is certified quiet after each time it is offered, and any
  // change to it outside an offer (tasks pending again, speculatable tasks, locality levels
  // recomputed, abort, submission) clears that (unquiet). The walk skips it then with the
  // rejection it would record: the same schedule (Options::sparse_offers = false checks it).
  struct Quiet {
    double reset = 0, wait = 0;  // the timer's last reset and the level's wait (less kEps), as allowed_level compares them
    uint8_t ok = 0;
  };
  std::vector<Quiet> quiet_;
  void certify(int32_t s);
  void unquiet(int32_t s) { quiet_[s].ok = 0; }
  // per executor and per host: (task set, index in lists_) of the lists of an active task set's
  // tasks preferring it (filled on each submission of the task set, when its lists refill;
  // entries whose set is inactive or list is exhausted are dropped when met: failed tasks go to
  // TaskSet::retry, not back into the lists)
  std::vector<std::vector<std::pair<int32_t, int32_t>>> by_exec_, by_host_;
  std::vector<uint64_t> prefers_;  // per task set: the offer round in which the offered executor or its host is preferred
  uint64_t round_ = 0;
  void mark_preferring(int32_t e);
  bool cand_ready_ = false, cand_racks_ = false;
  std::vector<uint64_t> rack_mark_;  // per rack: the candidate building that found a task preferring it
  uint64_t rack_round_ = 0;
  void build_candidates(TaskSet& ts, bool racks);

  // timers
  bool revive_armed_ = false, spec_armed_ = false, alloc_armed_ = false;
  int64_t pending_total_ = 0;   // never-launched tasks of active task sets + speculatable without copy
  int64_t running_total_ = 0;

  // dynamic allocation
  int32_t target_ = 0, to_add_ = 1;
  double add_time_ = kNaN;
  bool initializing_ = true;
  int32_t max_exec_ = 0;

  // attempts
  std::vector<int32_t> att_task_, att_node_, att_slot_;
  std::vector<double> att_start_, att_finish_, att_level_;
  std::vector<uint8_t> att_status_, att_spec_;

  // counters and series
  int64_t offer_rounds_ = 0, spec_launched_ = 0, exec_added_ = 0, exec_removed_ = 0;
  int64_t tasks_failed_ = 0, jobs_failed_ = 0, exec_lost_ = 0, resubmitted_ = 0;

  // DAGScheduler state of each stage (StageState), for lost map outputs of finished stages
  std::vector<uint8_t> st_;
  std::vector<uint8_t> finished_once_;      // per stage: finished at least once (its children counted it)
  std::vector<uint8_t> attempted_;          // per stage: submitted at least once (a submission again is a new attempt)
  std::vector<int32_t> failed_attempts_;    // per stage: consecutive attempts ended by a fetch failure
  std::vector<int64_t> att_base_;           // per stage: the first attempt id of its current stage attempt
  std::vector<int32_t> failed_stages_;      // DAGScheduler.failedStages, awaiting ResubmitFailedStages
  bool outputs_lost_ = false;               // some finished stage lost map outputs: launches check their parents
  int64_t fetch_failures_ = 0, stages_resubmitted_ = 0, outputs_lost_count_ = 0;
  TimeSeries exec_series_;
};

void Sim::build() {
  const size_t nj = wl_.n_jobs(), nt = wl_.n_tasks();
  n_exec_ = static_cast<int32_t>(cl_.size());
  if (n_exec_ == 0) throw std::invalid_argument("cluster has no nodes (executors)");
  if (opt_.executors_per_host > n_exec_) opt_.executors_per_host = n_exec_;
  for (int32_t e = 0; e < n_exec_; ++e)
    if (cl_.slots[e] < opt_.task_cpus)
      throw std::invalid_argument("cluster node " + std::to_string(e) + " has " + std::to_string(cl_.slots[e]) +
                                  " slots (executor cores) but task_cpus is " + std::to_string(opt_.task_cpus) +
                                  ": no task could ever run there; give every node at least task_cpus slots");
  racks_ = opt_.rack_locality && cl_.n_racks > 1;
  int32_t n_pools = 0;
  for (int32_t u : wl_.user) n_pools = std::max(n_pools, u + 1);
  if (static_cast<int32_t>(pools_.size()) < n_pools) {
    std::vector<PoolSpec> defaults = parse_pools("", n_pools);
    for (size_t i = 0; i < pools_.size(); ++i) defaults[i] = pools_[i];
    pools_ = defaults;
  }
  pool_running_.assign(n_pools, 0);
  pool_count_.assign(n_pools, 0);
  pool_key_.assign(n_pools, PoolKey{});
  pool_next_.assign(n_pools, 0);
  {  // pools tie by name (Schedulable.name), task sets by "TaskSet_<stage>.0"
    std::vector<int32_t> idx(n_pools);
    for (int32_t i = 0; i < n_pools; ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](int32_t a, int32_t b) { return pools_[a].name < pools_[b].name; });
    pool_name_rank_.assign(n_pools, 0);
    for (int32_t r = 0; r < n_pools; ++r) pool_name_rank_[idx[r]] = r;
  }
  if (!opt_.stage_ids.empty() && opt_.stage_ids.size() != nj)
    throw std::invalid_argument("parameter 'stage_ids': " + std::to_string(opt_.stage_ids.size()) + " ids for " +
                                std::to_string(nj) + " workload jobs");
  std::vector<int32_t> stage_idx(nj);
  std::vector<std::string> names(nj);  // TaskSet_<stage id>.0: the common prefix and suffix order as the id's digits
  for (size_t s = 0; s < nj; ++s) {
    stage_idx[s] = static_cast<int32_t>(s);
    names[s] = std::to_string(opt_.stage_ids.empty() ? int64_t(s) : opt_.stage_ids[s]) + ".0";
  }
  std::stable_sort(stage_idx.begin(), stage_idx.end(), [&](int32_t a, int32_t b) { return names[a] < names[b]; });

  ts_.resize(nj);
  parents_left_.assign(nj, 0);
  children_.assign(nj, {});
  stage_start_.assign(nj, kNaN);
  stage_finish_.assign(nj, kNaN);
  stage_ready_.assign(nj, kNaN);
  task_prefs_.assign(nt, 0);
  for (size_t s = 0; s < nj; ++s) {
    TaskSet& ts = ts_[s];
    ts.stage = static_cast<int32_t>(s);
    ts.job = wl_.dag[s];
    ts.pool = wl_.user[s];
    ts.t0 = wl_.task_begin[s];
    ts.n = static_cast<int32_t>(wl_.task_begin[s + 1] - wl_.task_begin[s]);
    if (wl_.has_dependencies())
      for (int64_t k = wl_.parent_begin[s]; k < wl_.parent_begin[s + 1]; ++k) {
        parents_left_[s]++;
        children_[wl_.parent_job[k]].push_back(static_cast<int32_t>(s));
      }
    build_lists(static_cast<int32_t>(s));
  }
  for (size_t r = 0; r < nj; ++r) ts_[stage_idx[r]].name_rank = static_cast<int32_t>(r);
  unfinished_ = static_cast<int64_t>(nj);
  st_.assign(nj, kStPending);
  finished_once_.assign(nj, 0);
  attempted_.assign(nj, 0);
  failed_attempts_.assign(nj, 0);
  att_base_.assign(nj, 0);

  launched_.assign(nt, 0);
  done_.assign(nt, 0);
  copies_.assign(nt, 0);
  run_att_.assign(nt, -1);
  first_att_.assign(nt, -1);
  failures_.assign(nt, 0);
  down_.assign(n_exec_, 0);
  incarnation_.assign(n_exec_, 0);
  if (opt_.stage_fetch_overhead > 0) {
    size_t cap = 16;
    while (cap < 2 * nt + 16) cap <<= 1;
    fetched_.assign(cap, -1);
  }

  cores_ = cl_.slots;
  free_.assign(n_exec_, 0);
  running_.assign(n_exec_, 0);
  alive_.assign(n_exec_, 0);
  starting_.assign(n_exec_, 0);
  idle_since_.assign(n_exec_, 0);
  slot_base_.assign(n_exec_ + 1, 0);
  for (int32_t e = 0; e < n_exec_; ++e) slot_base_[e + 1] = slot_base_[e] + cl_.slots[e];
  slot_stack_.assign(slot_base_[n_exec_], 0);
  slot_used_.assign(slot_base_[n_exec_], 0);
  slot_top_.assign(n_exec_, 0);
  alive_per_host_.assign(host(n_exec_ - 1) + 1, 0);
  offer_pos_.assign(n_exec_, -1);
  offerable_.assign((n_exec_ + 63) / 64, 0);
  below_magic_.assign(n_exec_ + 1, 0);
  for (int32_t n = 2; n <= n_exec_; ++n) below_magic_[n] = ~static_cast<unsigned __int128>(0) / unsigned(n) + 1;
  no_rejects_since_reset_.assign(nj, 1);
  quiet_.assign(nj, Quiet{});
  prefers_.assign(nj, 0);
  by_exec_.assign(n_exec_, {});
  by_host_.assign(host(n_exec_ - 1) + 1, {});
  alive_per_rack_.assign(std::max(cl_.n_racks, 1), 0);
  rack_mark_.assign(std::max(cl_.n_racks, 1), 0);
  max_exec_ = std::min(opt_.max_executors, n_exec_);
  exec_series_ = TimeSeries::with_columns({"time", "executors", "target"});
  att_task_.reserve(nt); att_node_.reserve(nt); att_slot_.reserve(nt);
  att_start_.reserve(nt); att_finish_.reserve(nt); att_level_.reserve(nt);
  att_status_.reserve(nt); att_spec_.reserve(nt); att_fails_.reserve(nt);
}

// The pending-task lists of TaskSetManager (PendingTasksByLocality): per executor, host and
// rack, the tasks preferring it in index order; tasks without preferences in noPrefs.
void Sim::build_lists(int32_t s) {
  TaskSet& ts = ts_[s];
  std::vector<std::pair<int32_t, int32_t>> ex, ho, ra;  // (key, task)
  const bool have = wl_.has_replicas();
  for (int64_t t = ts.t0; t < ts.t0 + ts.n; ++t) {
    const int64_t b = have ? wl_.replica_begin[t] : 0, e = have ? wl_.replica_begin[t + 1] : 0;
    if (b == e) { task_prefs_[t] |= 4; continue; }
    const size_t ho0 = ho.size(), ra0 = ra.size();
    for (int64_t k = b; k < e; ++k) {
      const int32_t node = wl_.replica_node[k];
      if (!opt_.host_preferences) ex.emplace_back(node, static_cast<int32_t>(t));
      ho.emplace_back(host(node), static_cast<int32_t>(t));
      if (racks_) ra.emplace_back(cl_.rack[node], static_cast<int32_t>(t));
    }
    // one entry per (key, task)
    std::sort(ho.begin() + ho0, ho.end());
    ho.erase(std::unique(ho.begin() + ho0, ho.end()), ho.end());
    std::sort(ra.begin() + ra0, ra.end());
    ra.erase(std::unique(ra.begin() + ra0, ra.end()), ra.end());
    if (!opt_.host_preferences) task_prefs_[t] |= 1;
    task_prefs_[t] |= 2;
    if (racks_) task_prefs_[t] |= 8;
  }
  auto emit = [&](std::vector<std::pair<int32_t, int32_t>>& v, int32_t& lb, int32_t& le) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    lb = static_cast<int32_t>(lists_.size());
    for (size_t i = 0; i < v.size();) {
      size_t j = i;
      const int32_t begin = static_cast<int32_t>(flat_.size());
      while (j < v.size() && v[j].first == v[i].first) flat_.push_back(v[j++].second);
      if (flat_.size() >= size_t(INT32_MAX))
        throw std::invalid_argument("workload field 'replicas': more than 2^31 - 1 preferred locations in all");
      lists_.push_back(List{v[i].first, begin, static_cast<int32_t>(flat_.size()), begin});
      i = j;
    }
    le = static_cast<int32_t>(lists_.size());
  };
  emit(ex, ts.exec_b, ts.exec_e);
  ts.live_b = static_cast<int32_t>(live_.size());
  live_.resize(live_.size() + (ts.exec_e - ts.exec_b));
  reset_live(ts);
  emit(ho, ts.host_b, ts.host_e);
  emit(ra, ts.rack_b, ts.rack_e);
  const int32_t bounds[3][2] = {{ts.exec_b, ts.exec_e}, {ts.host_b, ts.host_e}, {ts.rack_b, ts.rack_e}};
  for (int k = 0; k < 3; ++k)
    for (int32_t i = bounds[k][0]; i < bounds[k][1]; ++i) {
      const int32_t key = lists_[i].key;
      ts.bloom[k][(key >> 6) & 3] |= uint64_t(1) << (key & 63);
    }
  ts.nopref_b = static_cast<int64_t>(flat_.size());
  for (int64_t t = ts.t0; t < ts.t0 + ts.n; ++t)
    if (task_prefs_[t] & 4) flat_.push_back(static_cast<int32_t>(t));
  ts.nopref_e = ts.nopref_cur = static_cast<int64_t>(flat_.size());
  ts.nopref_cur = ts.nopref_b;
  ts.all_cur = ts.t0;
  ts.unlaunched = ts.n;
  for (int64_t t = ts.t0; t < ts.t0 + ts.n; ++t) {
    if (task_prefs_[t] & 1) ts.pend[0]++;
    if (task_prefs_[t] & 2) ts.pend[1]++;
    if (task_prefs_[t] & 4) ts.pend[2]++;
    if (task_prefs_[t] & 8) ts.pend[3]++;
  }
}

// TaskSetManager.computeValidLocalityLevels: a level counts when some task waits for it and
// some executor alive can serve it.
void Sim::compute_levels(TaskSet& ts) {
  const uint8_t before = ts.n_levels ? ts.levels[ts.cur] : uint8_t(kProcessLocal);
  ts.n_levels = 0;
  bool any = false;
  for (int32_t i = ts.exec_b; i < ts.exec_e && !any; ++i) any = alive_[lists_[i].key];
  if (any) ts.levels[ts.n_levels++] = kProcessLocal;
  any = false;
  for (int32_t i = ts.host_b; i < ts.host_e && !any; ++i) any = alive_per_host_[lists_[i].key] > 0;
  if (any) ts.levels[ts.n_levels++] = kNodeLocal;
  if (ts.nopref_e > ts.nopref_b) ts.levels[ts.n_levels++] = kNoPref;
  any = false;
  for (int32_t i = ts.rack_b; i < ts.rack_e && !any; ++i) any = alive_per_rack_[lists_[i].key] > 0;
  if (any) ts.levels[ts.n_levels++] = kRackLocal;
  ts.levels[ts.n_levels++] = kAny;
  ts.nopref_pass = ts.nopref_e > ts.nopref_b;
  // getLocalityIndex(previous level): the first level not more local than it
  uint8_t k = 0;
  while (before > ts.levels[k]) ++k;
  ts.cur = k;
  unquiet(ts.stage);
}

void Sim::reset_timer(TaskSet& ts, uint8_t min_level) {
  ts.last_reset = now_;
  uint8_t k = 0;
  while (min_level > ts.levels[k]) ++k;
  ts.cur = k;
}

// TaskSetManager.getAllowedLocalityLevel
uint8_t Sim::allowed_level(TaskSet& ts) {
  while (ts.cur + 1 < ts.n_levels) {
    const uint8_t lvl = ts.levels[ts.cur];
    const int idx = lvl == kProcessLocal ? 0 : lvl == kNodeLocal ? 1 : lvl == kNoPref ? 2 : 3;
    const bool more = ts.pend[idx] > 0;
    if (!more) {
      ts.last_reset = now_;
      ++ts.cur;
    } else if (now_ - ts.last_reset >= wait_of(lvl) - kEps) {
      ts.last_reset += wait_of(lvl);
      ++ts.cur;
    } else {
      return lvl;
    }
  }
  return ts.levels[ts.cur];
}

List* Sim::find(int32_t b, int32_t e, int32_t key) {
  int32_t lo = b, hi = e;
  while (lo < hi) {
    const int32_t mid = (lo + hi) >> 1;
    if (lists_[mid].key < key) lo = mid + 1; else hi = mid;
  }
  return lo < e && lists_[lo].key == key ? &lists_[lo] : nullptr;
}

int64_t Sim::take_range(int64_t& cur, int64_t end) {
  while (cur < end && launched_[flat_[cur]]) ++cur;
  return cur < end ? flat_[cur] : -1;
}

int64_t Sim::take(List& l) {
  while (l.cur < l.end && launched_[flat_[l.cur]]) ++l.cur;
  return l.cur < l.end ? flat_[l.cur] : -1;
}

// A failed task re-added to the pending lists (TaskSetManager.addPendingTask) sits at their end,
// where dequeueTaskFromList looks first: at each level, the latest failed task that the level
// admits on executor e (PROCESS_LOCAL: it prefers e; NODE_LOCAL: e's host; NO_PREF: no
// preference; RACK_LOCAL: e's rack; ANY: any).
int64_t Sim::dequeue_retry(TaskSet& ts, int32_t e, uint8_t lv) {
  for (size_t i = ts.retry.size(); i-- > 0;) {
    const int32_t t = ts.retry[i];
    const int64_t b = wl_.has_replicas() ? wl_.replica_begin[t] : 0, en = wl_.has_replicas() ? wl_.replica_begin[t + 1] : 0;
    bool ok = false;
    switch (lv) {
      case kProcessLocal:
        if (!opt_.host_preferences) for (int64_t k = b; k < en && !ok; ++k) ok = wl_.replica_node[k] == e;
        break;
      case kNodeLocal: for (int64_t k = b; k < en && !ok; ++k) ok = host(wl_.replica_node[k]) == host(e); break;
      case kNoPref: ok = b == en; break;
      case kRackLocal:
        if (racks_) for (int64_t k = b; k < en && !ok; ++k) ok = cl_.rack[wl_.replica_node[k]] == cl_.rack[e];
        break;
      default: ok = true;
    }
    if (ok) return t;
  }
  return -1;
}

int64_t Sim::dequeue(TaskSet& ts, int32_t e, uint8_t allowed, uint8_t& level) {
  if (ts.unlaunched > 0 && !ts.retry.empty()) {  // failed tasks first, level by level
    const uint8_t order[5] = {kProcessLocal, kNodeLocal, kNoPref, kRackLocal, kAny};
    for (uint8_t lv : order) {
      if (lv != kProcessLocal && lv > allowed) break;
      const int64_t t = dequeue_retry(ts, e, lv);
      if (t >= 0) { level = lv == kNoPref ? uint8_t(kProcessLocal) : lv; return t; }
      // the regular lists of this level come after the failed tasks
      int64_t r = -1;
      uint8_t got = lv;
      if (lv == kProcessLocal) { if (List* l = find(ts, 0, e)) r = take(*l); }
      else if (lv == kNodeLocal) { if (List* l = find(ts, 1, host(e))) r = take(*l); }
      else if (lv == kNoPref) { r = take_range(ts.nopref_cur, ts.nopref_e); got = kProcessLocal; }
      else if (lv == kRackLocal) { if (racks_) if (List* l = find(ts, 2, cl_.rack[e])) r = take(*l); }
      else {
        while (ts.all_cur < ts.t0 + ts.n && launched_[ts.all_cur]) ++ts.all_cur;
        if (ts.all_cur < ts.t0 + ts.n) r = ts.all_cur;
      }
      if (r >= 0) { level = got; return r; }
    }
  } else if (ts.unlaunched > 0) {
    if (List* l = find(ts, 0, e)) {
      const int64_t t = take(*l);
      if (t >= 0) { level = kProcessLocal; return t; }
    }
    if (allowed >= kNodeLocal)
      if (List* l = find(ts, 1, host(e))) {
        const int64_t t = take(*l);
        if (t >= 0) { level = kNodeLocal; return t; }
      }
    if (allowed >= kNoPref) {
      const int64_t t = take_range(ts.nopref_cur, ts.nopref_e);
      if (t >= 0) { level = kProcessLocal; return t; }  // Spark reports no-preference launches as PROCESS_LOCAL
    }
    if (allowed >= kRackLocal && racks_)
      if (List* l = find(ts, 2, cl_.rack[e])) {
        const int64_t t = take(*l);
        if (t >= 0) { level = kRackLocal; return t; }
      }
    if (allowed >= kAny) {
      while (ts.all_cur < ts.t0 + ts.n && launched_[ts.all_cur]) ++ts.all_cur;
      if (ts.all_cur < ts.t0 + ts.n) { level = kAny; return ts.all_cur; }
    }
  }
  if (!ts.spec.empty()) return dequeue_speculative(ts, e, allowed, level);
  return -1;
}

int64_t Sim::dequeue_speculative(TaskSet& ts, int32_t e, uint8_t allowed, uint8_t& level) {
  const int32_t h = host(e);
  for (uint8_t lv = kProcessLocal; lv <= kAny; ++lv) {
    if (lv > allowed && lv != kProcessLocal) break;
    for (size_t i = 0; i < ts.spec.size(); ++i) {
      const int32_t t = ts.spec[i];
      if (done_[t] || copies_[t] != 1 || host(att_node_[run_att_[t]]) == h) continue;
      bool ok = false;
      const int64_t b = wl_.has_replicas() ? wl_.replica_begin[t] : 0, en = wl_.has_replicas() ? wl_.replica_begin[t + 1] : 0;
      switch (lv) {
        case kProcessLocal:
          if (!opt_.host_preferences) for (int64_t k = b; k < en && !ok; ++k) ok = wl_.replica_node[k] == e;
          break;
        case kNodeLocal:
          for (int64_t k = b; k < en && !ok; ++k) ok = host(wl_.replica_node[k]) == h;
          break;
        case kNoPref: ok = b == en; break;
        case kRackLocal:
          if (racks_) for (int64_t k = b; k < en && !ok; ++k) ok = cl_.rack[wl_.replica_node[k]] == cl_.rack[e];
          break;
        default: ok = true;
      }
      if (ok) {
        level = lv == kNoPref ? uint8_t(kProcessLocal) : lv;
        return t;
      }
    }
  }
  return -1;
}

// TaskSetManager.resourceOffer: the task launched (its attempt id) or -1; `reject` tells a
// delay-scheduling rejection (nothing launched at maxLocality ANY while tasks wait).
int64_t Sim::resource_offer(TaskSet& ts, int32_t e, uint8_t max_level, bool& reject) {
  reject = false;
  uint8_t allowed = max_level;
  if (max_level != kNoPref) {
    allowed = allowed_level(ts);
    if (allowed > max_level) allowed = max_level;
  }
  uint8_t level = kAny;
  const int64_t t = dequeue(ts, e, allowed, level);
  if (t >= 0) {
    const bool spec = launched_[t] != 0;
    if (opt_.legacy_locality_reset && max_level != kNoPref) reset_timer(ts, level);
    return launch(ts, t, e, level, spec);
  }
  reject = max_level == kAny && (ts.unlaunched > 0 || !ts.spec.empty());
  return -1;
}

int64_t Sim::launch(TaskSet& ts, int64_t t, int32_t e, uint8_t level, bool speculative) {
  const int64_t a = static_cast<int64_t>(att_task_.size());
  const int32_t slot = slot_stack_[slot_base_[e] + --slot_top_[e]];
  double dur = wl_.work[t] / cl_.speed[e] + opt_.task_launch_overhead;
  double fixed = opt_.task_launch_overhead;  // the attempt's fixed costs alone
  uint8_t& used = slot_used_[slot_base_[e] + slot];
  if (!used) { used = 1; dur += opt_.first_task_overhead; fixed += opt_.first_task_overhead; }
  if (!fetched_.empty() && first_fetch(ts.stage, e)) { dur += opt_.stage_fetch_overhead; fixed += opt_.stage_fetch_overhead; }
  uint8_t fails = 0;
  if (outputs_lost_ && !parents_available(ts.stage)) {
    // a parent's map output is missing (MapOutputTracker): the shuffle read fails at once
    // (FetchFailed), after the attempt's fixed costs
    fails = 2;
    dur = fixed;
  } else if (opt_.task_failure_probability > 0 && fail_rng_.uniform() < opt_.task_failure_probability) {
    fails = 1;
    dur *= fail_rng_.uniform();  // the failure comes part way through the attempt
  }
  att_fails_.push_back(fails);
  att_task_.push_back(static_cast<int32_t>(t));
  att_node_.push_back(e);
  att_slot_.push_back(slot);
  att_start_.push_back(now_);
  att_finish_.push_back(kNaN);
  att_level_.push_back(level);
  att_status_.push_back(kRunning);
  att_spec_.push_back(speculative ? 1 : 0);
  free_[e] -= opt_.task_cpus;
  update_offerable(e);
  running_[e]++;
  copies_[t]++;
  run_att_[t] = a;
  if (!speculative) first_att_[t] = a;  // a retry after a failure is the task's new original copy
  ts.running++;
  pool_running_[ts.pool]++;
  running_total_++;
  if (speculative) {
    ts.spec.erase(std::find(ts.spec.begin(), ts.spec.end(), static_cast<int32_t>(t)));
    pending_total_--;
    spec_launched_++;
  } else {
    launched_[t] = 1;
    if (!ts.retry.empty()) {
      auto it = std::find(ts.retry.begin(), ts.retry.end(), static_cast<int32_t>(t));
      if (it != ts.retry.end()) ts.retry.erase(it);
    }
    ts.unlaunched--;
    pending_total_--;
    const uint8_t p = task_prefs_[t];
    if (p & 1) ts.pend[0]--;
    if (p & 2) ts.pend[1]--;
    if (p & 4) ts.pend[2]--;
    if (p & 8) ts.pend[3]--;
  }
  if (ts.unlaunched == 0 && ts.spec.empty()) set_waiting(ts.stage, false);
  if (std::isnan(stage_start_[ts.stage])) stage_start_[ts.stage] = now_;
  q_.push(now_ + dur, kTaskEnd, 0, static_cast<uint64_t>(a));
  if (opt_.speculation) arm_speculation();
  if (pending_total_ == 0 && opt_.dynamic_allocation) { add_time_ = kNaN; to_add_ = 1; }  // onSchedulerQueueEmpty
  return a;
}

// Rootpool.getSortedTaskSetQueue: FIFO orders task sets by (job, stage); FAIR orders pools by
// FairSchedulingAlgorithm, then each pool's task sets by the pool's own mode.
void Sim::sorted_task_sets() {
  order_.clear();
  // FairSchedulingAlgorithm.comparator for (running, minShare, weight, name rank)
  auto fair_less = [](int32_t r1, int32_t m1, double w1, int32_t n1, int32_t r2, int32_t m2, double w2, int32_t n2) {
    const bool needy1 = r1 < m1, needy2 = r2 < m2;
    if (needy1 && !needy2) return true;
    if (!needy1 && needy2) return false;
    double c1, c2;
    if (needy1 && needy2) {
      c1 = r1 / std::max(double(m1), 1.0);
      c2 = r2 / std::max(double(m2), 1.0);
    } else {
      c1 = r1 / w1;  // weight 0 gives +inf (or NaN for 0/0, compared as Java's Double.compareTo: NaN last)
      c2 = r2 / w2;
    }
    if (std::isnan(c1) || std::isnan(c2)) {
      if (std::isnan(c1) != std::isnan(c2)) return std::isnan(c2);
    } else if (c1 != c2) {
      return c1 < c2;
    }
    return n1 < n2;
  };
  const std::vector<int32_t>* src = &waiting_;  // kept in FIFO order
  if (!idle_.empty()) {
    sets_ = waiting_;
    for (int32_t s : idle_)
      if (!ts_[s].waiting && ts_[s].active)  // (waiting again: already in waiting_)
        sets_.insert(std::upper_bound(sets_.begin(), sets_.end(), s, [&](int32_t a, int32_t b) { return fifo_before(a, b); }), s);
    src = &sets_;
  }
  const std::vector<int32_t>& sets = *src;
  if (!fair_) {
    order_ = sets;
    return;
  }
  // the pools with task sets, sorted (names differ: a total order), then the task sets placed
  // pool by pool, in FIFO order within each (a counting sort), and sorted in FAIR pools
  pool_order_.clear();
  for (int32_t s : sets)
    if (pool_count_[ts_[s].pool]++ == 0) pool_order_.push_back(ts_[s].pool);
  // fair_less's terms per pool, computed once: (minShare not reached first, then a NaN ratio
  // last, the ratio, the name)
  for (int32_t p : pool_order_) {
    const int32_t r = pool_running_[p], m = pools_[p].min_share;
    PoolKey& k = pool_key_[p];
    k.needy = r < m ? 0 : 1;
    k.ratio = r < m ? r / std::max(double(m), 1.0) : r / pools_[p].weight;
    k.nan = std::isnan(k.ratio) ? 1 : 0;
    k.rank = pool_name_rank_[p];
  }
  std::sort(pool_order_.begin(), pool_order_.end(), [&](int32_t a, int32_t b) {
    const PoolKey &x = pool_key_[a], &y = pool_key_[b];
    if (x.needy != y.needy) return x.needy < y.needy;
    if (x.nan != y.nan) return x.nan < y.nan;
    if (!x.nan && x.ratio != y.ratio) return x.ratio < y.ratio;
    return x.rank < y.rank;
  });
  int32_t at = 0;
  for (int32_t p : pool_order_) {
    pool_next_[p] = at;
    at += pool_count_[p];
  }
  order_.resize(sets.size());
  for (int32_t s : sets) order_[pool_next_[ts_[s].pool]++] = s;
  for (int32_t p : pool_order_) {
    const int32_t end = pool_next_[p], from = end - pool_count_[p];
    pool_count_[p] = 0;
    if (pools_[p].fair)
      std::sort(order_.begin() + from, order_.begin() + end, [&](int32_t a, int32_t b) {
        const TaskSet &x = ts_[a], &y = ts_[b];
        return fair_less(x.running, 0, 1.0, x.name_rank, y.running, 0, 1.0, y.name_rank);
      });
  }
}

// Whether some pass of an offer round could launch a task of `ts` on executor e: a task
// preferring e; else one preferring its host (at NODE_LOCAL, or the NO_PREF pass, which delay
// scheduling does not cap); one without preference (idem); its rack (at RACK_LOCAL); any (ANY).
bool Sim::can_launch_on(TaskSet& ts, int32_t e) {
  const uint8_t allowed = allowed_level(ts);
  bool nopref_pass = false;
  for (uint8_t k = 0; k < ts.n_levels; ++k) nopref_pass |= ts.levels[k] == kNoPref;
  if (ts.unlaunched == 0) return false;
  if (allowed >= kAny || !ts.retry.empty()) return true;  // (failed tasks back in the lists: the full path)
  if (List* l = find(ts, 0, e); l && take(*l) >= 0) return true;
  if (allowed >= kNodeLocal || nopref_pass)
    if (List* l = find(ts, 1, host(e)); l && take(*l) >= 0) return true;
  if ((allowed >= kNoPref || nopref_pass) && ts.pend[2] > 0) return true;
  if (allowed >= kRackLocal && racks_)
    if (List* l = find(ts, 2, cl_.rack[e]); l && take(*l) >= 0) return true;
  return false;
}

// TaskSchedulerImpl.resourceOffers over every executor with free cores (single_executor < 0:
// the revive path, isAllFreeResources) or one executor (a task's end).
void Sim::resource_offers(int32_t single_executor) {
  int64_t free_total = 0;
  if (single_executor >= 0) {
    if (!alive_[single_executor] || free_[single_executor] < opt_.task_cpus) return;
    offer_exec_.resize(1);
    offer_free_.resize(1);
    offer_exec_[0] = single_executor;
    offer_free_[0] = free_[single_executor];
    free_total = free_[single_executor];
  } else {
    // the executors with a free core, in id order (the offerable_ bits), then shuffled
    offer_exec_.resize(n_exec_);
    offer_free_.resize(n_exec_);
    size_t n = 0;
    for (size_t w = 0; w < offerable_.size(); ++w)
      for (uint64_t bits = offerable_[w]; bits; bits &= bits - 1) {
        const int32_t e = static_cast<int32_t>(w * 64 + __builtin_ctzll(bits));
        offer_exec_[n] = e;
        offer_free_[n++] = free_[e];
        free_total += free_[e];
      }
    offer_exec_.resize(n);
    offer_free_.resize(n);
    if (n == 0) return;
    if (opt_.shuffle_offers)
      for (size_t i = n - 1; i > 0; --i) {
        const size_t j = below(i + 1);
        std::swap(offer_exec_[i], offer_exec_[j]);
        std::swap(offer_free_[i], offer_free_[j]);
      }
  }
  if (waiting_.empty() && idle_.empty()) return;
  ++offer_rounds_;
  const bool all_free = single_executor < 0;
  const bool one = offer_exec_.size() == 1 && opt_.sparse_offers;
  // quiet: every pass would find nothing, and the ANY pass reject (tasks wait)
  auto quiet = [&](int32_t s) {
    const Quiet& q = quiet_[s];
    return q.ok && prefers_[s] != round_ && !(now_ - q.reset >= q.wait);  // (allowed_level's comparison)
  };
  if (one) {
    mark_preferring(offer_exec_[0]);
    if (idle_.empty() && std::all_of(waiting_.begin(), waiting_.end(), quiet)) {
      // every task set in the order is quiet: their rejections, in no particular order
      if (!opt_.legacy_locality_reset)
        for (int32_t s : waiting_) no_rejects_since_reset_[s] = 0;
      return;
    }
  }
  for (size_t i = 0; i < offer_exec_.size(); ++i) offer_pos_[offer_exec_[i]] = static_cast<int32_t>(i);
  sorted_task_sets();
  for (int32_t s : order_) {
    if (free_total < opt_.task_cpus) break;  // nothing left to offer: the rest would see no offer
    if (one && quiet(s)) {
      if (!opt_.legacy_locality_reset) no_rejects_since_reset_[s] = 0;
      continue;
    }
    offer_task_set(ts_[s], all_free, free_total);
    certify(s);
  }
  for (int32_t e : offer_exec_) offer_pos_[e] = -1;
  if (!idle_.empty()) {  // those offered now sit at their last level: nothing more to move
    size_t k = 0;
    for (int32_t s : idle_) {
      TaskSet& ts = ts_[s];
      if (ts.active && !ts.waiting && ts.cur + 1 < ts.n_levels) idle_[k++] = s;
      else ts.idle = false;
    }
    idle_.resize(k);
  }
}

// TaskSchedulerImpl.resourceOffers for one task set: resourceOfferSingleTaskSet at each of its
// locality levels until a pass launches nothing, then the delay timer's reset (Spark 3.1+).
void Sim::offer_task_set(TaskSet& ts, bool all_free, int64_t& free_total) {
  if (!ts.active) return;
  if (ts.unlaunched == 0 && ts.spec.empty()) {
    // Offered, a task set with nothing to launch only moves its delay timer: getAllowedLocalityLevel
    // skips the levels without waiting tasks (to ANY, resetting the timer). That matters when
    // tasks wait again later (a failed task, a speculative copy), so it is done when those can
    // happen (reoffer_: the idle_ task sets, whose timer has not reached ANY); otherwise such
    // task sets are not in the order at all.
    allowed_level(ts);
    return;
  }
  if (offer_exec_.size() == 1 && ts.spec.empty() && opt_.sparse_offers && !can_launch_on(ts, offer_exec_[0])) {
    // one executor that no task of this set may run on now: every pass finds nothing, and
    // the ANY pass rejects (tasks wait)
    if (!opt_.legacy_locality_reset) no_rejects_since_reset_[ts.stage] = false;
    return;
  }
  bool launched_any = false, no_rejects = true;
  uint8_t global_min = kAny + 1;
  cand_ready_ = false;
  for (uint8_t li = 0; li < ts.n_levels; ++li) {
    const uint8_t max_level = ts.levels[li];
    bool launched_here;
    do {
      launched_here = false;
      offer_pass(ts, max_level, launched_here, no_rejects, global_min, free_total);
      launched_any |= launched_here;
    } while (launched_here);
  }
  if (!opt_.legacy_locality_reset) {
    if (no_rejects) {
      if (launched_any && (all_free || no_rejects_since_reset_[ts.stage])) {
        reset_timer(ts, global_min);
        no_rejects_since_reset_[ts.stage] = true;
      }
    } else {
      no_rejects_since_reset_[ts.stage] = false;
    }
  }
}

// After an offer: whether the task set is quiet (see Sim::quiet_), and until when.
void Sim::certify(int32_t s) {
  const TaskSet& ts = ts_[s];
  Quiet& q = quiet_[s];
  q.ok = 0;
  if (!ts.active || !ts.waiting || ts.unlaunched == 0 || !ts.spec.empty() || !ts.retry.empty()) return;
  if (ts.cur + 1 >= ts.n_levels) return;  // its last level (ANY): any executor will do
  const uint8_t lvl = ts.levels[ts.cur];
  if (lvl > kNodeLocal || ts.pend[lvl] == 0 || (ts.nopref_pass && ts.pend[2] > 0)) return;
  q.reset = ts.last_reset;
  q.wait = wait_of(lvl) - kEps;
  q.ok = 1;
}

// Marks the task sets with a waiting task preferring executor e or its host (prefers_ = round_).
void Sim::mark_preferring(int32_t e) {
  ++round_;
  for (auto* v : {&by_exec_[e], &by_host_[host(e)]})
    for (size_t i = 0; i < v->size();) {
      const auto [s, k] = (*v)[i];
      if (!ts_[s].active || take(lists_[k]) < 0) {  // done with it: drop the entry
        (*v)[i] = v->back();
        v->pop_back();
        continue;
      }
      prefers_[s] = round_;
      ++i;
    }
}

// One pass of resourceOfferSingleTaskSet: every offer with free cores, in order, once. An offer
// that finds no task has no effect but a possible delay rejection (at maxLocality ANY); so while
// the allowed level admits only tasks with preferences (PROCESS_LOCAL, NODE_LOCAL), the pass
// visits only the offers whose executor or host some waiting task prefers, and accounts for the
// others' rejections -- the same launches, in the same order, as visiting them all.
void Sim::offer_pass(TaskSet& ts, uint8_t max_level, bool& launched, bool& no_rejects, uint8_t& global_min,
                     int64_t& free_total) {
  uint8_t allowed = max_level;
  if (max_level != kNoPref) allowed = std::min(allowed_level(ts), max_level);
  // RACK_LOCAL admits the tasks without preference (NO_PREF is a lower level): a pass at it
  // visits the offers on racks its tasks prefer when there are none
  bool rack_pass = allowed == kRackLocal && racks_ && ts.pend[2] == 0;
  if (rack_pass && !ts.spec.empty()) {
    if (!wl_.has_replicas()) rack_pass = false;
    else
      for (int32_t t : ts.spec) rack_pass &= wl_.replica_begin[t] < wl_.replica_begin[t + 1];
  }
  if (!opt_.sparse_offers || (allowed >= kNoPref && !rack_pass) || !ts.retry.empty() || offer_exec_.size() < 8) {
    dense_pass(ts, max_level, 0, launched, no_rejects, global_min, free_total);
    return;
  }
  // the candidates serve every pass of this task set in this round: offers a waiting task or a
  // speculatable one prefers by executor or host, or rack once RACK_LOCAL is allowed (a superset
  // for a more local pass: an extra offer visited finds nothing, as it would in Spark's pass over
  // every offer)
  if (!cand_ready_ || (rack_pass && !cand_racks_)) build_candidates(ts, rack_pass);
  // rejections of the offers not visited in [from, to): one with free cores while tasks wait
  auto skipped = [&](size_t from, size_t to) {
    if (max_level != kAny || !no_rejects || (ts.unlaunched == 0 && ts.spec.empty())) return;
    for (size_t i = from; i < to; ++i)
      if (offer_free_[i] >= opt_.task_cpus) { no_rejects = false; return; }
  };
  size_t next = 0;
  for (size_t k = 0; k < cand_.size(); ++k) {
    const size_t i = static_cast<size_t>(cand_[k]);
    skipped(next, i);
    next = i + 1;
    if (offer_free_[i] < opt_.task_cpus) continue;
    bool reject = false;
    const int64_t a = resource_offer(ts, offer_exec_[i], max_level, reject);
    no_rejects &= !reject;
    if (a < 0) continue;
    offer_free_[i] -= opt_.task_cpus;
    free_total -= opt_.task_cpus;
    launched = true;
    global_min = std::min<uint8_t>(global_min, static_cast<uint8_t>(att_level_[a]));
    const uint8_t now_allowed = max_level != kNoPref ? std::min(allowed_level(ts), max_level) : max_level;
    if (now_allowed != allowed) {  // a level ran out of tasks: the rest of the pass sees a wider level
      dense_pass(ts, max_level, i + 1, launched, no_rejects, global_min, free_total);
      return;
    }
  }
  skipped(next, offer_exec_.size());
}

void Sim::build_candidates(TaskSet& ts, bool racks) {
  cand_.clear();
  for (int32_t i = ts.live_b; i < ts.live_e;) {  // (cand_ is sorted below: the order does not matter)
    const int32_t k = live_[i];
    if (take(lists_[k]) < 0) {  // exhausted: a list refills only when its stage is submitted again
      live_[i] = live_[--ts.live_e];
      continue;
    }
    const int32_t pos = offer_pos_[lists_[k].key];
    if (pos >= 0) cand_.push_back(pos);
    ++i;
  }
  // one executor a host and executor preferences: the host lists hold what the executor lists do
  const bool host_lists = opt_.executors_per_host > 1 || opt_.host_preferences;
  for (int32_t k = host_lists ? ts.host_b : ts.host_e; k < ts.host_e; ++k) {
    const int32_t h = lists_[k].key;
    const int32_t e0 = h * opt_.executors_per_host, e1 = std::min(e0 + opt_.executors_per_host, n_exec_);
    bool has = false;
    for (int32_t e = e0; e < e1; ++e)
      if (offer_pos_[e] >= 0) {
        if (!has && take(lists_[k]) < 0) break;
        has = true;
        cand_.push_back(offer_pos_[e]);
      }
  }
  if (wl_.has_replicas())  // speculatable tasks: on their preferred executors or hosts (dequeueSpeculativeTask)
    for (int32_t t : ts.spec)
      for (int64_t k = wl_.replica_begin[t]; k < wl_.replica_begin[t + 1]; ++k) {
        const int32_t e0 = host(wl_.replica_node[k]) * opt_.executors_per_host;
        const int32_t e1 = std::min(e0 + opt_.executors_per_host, n_exec_);
        for (int32_t e = e0; e < e1; ++e)
          if (offer_pos_[e] >= 0) cand_.push_back(offer_pos_[e]);
      }
  if (racks) {  // the offers on a rack some waiting or speculatable task prefers
    ++rack_round_;
    for (int32_t k = ts.rack_b; k < ts.rack_e; ++k)
      if (take(lists_[k]) >= 0) rack_mark_[lists_[k].key] = rack_round_;
    for (int32_t t : ts.spec)
      for (int64_t k = wl_.replica_begin[t]; k < wl_.replica_begin[t + 1]; ++k) rack_mark_[cl_.rack[wl_.replica_node[k]]] = rack_round_;
    for (size_t i = 0; i < offer_exec_.size(); ++i)
      if (rack_mark_[cl_.rack[offer_exec_[i]]] == rack_round_) cand_.push_back(static_cast<int32_t>(i));
  }
  std::sort(cand_.begin(), cand_.end());
  cand_.erase(std::unique(cand_.begin(), cand_.end()), cand_.end());
  cand_ready_ = true;
  cand_racks_ = racks;
}

void Sim::dense_pass(TaskSet& ts, uint8_t max_level, size_t from, bool& launched, bool& no_rejects, uint8_t& global_min,
                     int64_t& free_total) {
  for (size_t i = from; i < offer_exec_.size() && free_total >= opt_.task_cpus; ++i) {
    if (offer_free_[i] < opt_.task_cpus) continue;
    if (ts.unlaunched == 0 && ts.spec.empty()) {
      // nothing left to launch: each further offer would find nothing, reject nothing and call
      // getAllowedLocalityLevel, which changes nothing after its first call at this time
      if (max_level != kNoPref) allowed_level(ts);
      return;
    }
    bool reject = false;
    const int64_t a = resource_offer(ts, offer_exec_[i], max_level, reject);
    no_rejects &= !reject;
    if (a >= 0) {
      offer_free_[i] -= opt_.task_cpus;
      free_total -= opt_.task_cpus;
      launched = true;
      global_min = std::min<uint8_t>(global_min, static_cast<uint8_t>(att_level_[a]));
    }
  }
}

// The first tick of a timer of period `interval` after `now` (a time within kEps of a tick is
// taken as that tick). Past about 2^20 s, now / interval can round below the index of the tick
// that is firing: the next tick then came out at `now` itself and re-armed there forever (a run
// with a job at 2^21 s under dynamic allocation or speculation never ended); it is taken one
// period on, so that the clock always moves.
static double next_tick(double now, double interval) {
  double m = std::floor(now / interval + kEps) + 1;
  while (!(m * interval > now)) m += 1;
  return m * interval;
}

void Sim::arm_revive() {
  if (revive_armed_) return;
  revive_armed_ = true;
  q_.push(next_tick(now_, opt_.revive_interval), kRevive);
}

void Sim::arm_speculation() {
  if (spec_armed_) return;
  spec_armed_ = true;
  q_.push(next_tick(now_, opt_.speculation_interval), kSpecTick);
}

void Sim::revive_tick() {
  revive_armed_ = false;
  // with nothing pending an offer round launches nothing; it still moves the delay timers of the
  // task sets offered, which matters only when tasks may wait again (reoffer_). Otherwise the
  // timer re-arms on new work.
  if (pending_total_ == 0 && idle_.empty()) return;
  resource_offers(-1);
  if (pending_total_ > 0 || !idle_.empty()) arm_revive();
}

// DAGScheduler.submitMissingTasks -> TaskSchedulerImpl.submitTasks -> backend.reviveOffers
void Sim::submit_stage(int32_t s) {
  TaskSet& ts = ts_[s];
  if (ts.dead) return;  // its Spark job failed
  st_[s] = kStRunning;
  att_base_[s] = static_cast<int64_t>(att_task_.size());
  if (attempted_[s]) {
    // a new stage attempt (DAGScheduler.submitMissingTasks): a new task set of the partitions
    // without output and without an attempt still running, in index order
    ++stages_resubmitted_;
    if (!std::isnan(stage_finish_[s])) { stage_finish_[s] = kNaN; ++unfinished_; }
    for (int64_t t = ts.t0; t < ts.t0 + ts.n; ++t)
      if (!done_[t] && copies_[t] == 0 && launched_[t]) {
        launched_[t] = 0;
        ts.unlaunched++;
        const uint8_t p = task_prefs_[t];
        if (p & 1) ts.pend[0]++;
        if (p & 2) ts.pend[1]++;
        if (p & 4) ts.pend[2]++;
        if (p & 8) ts.pend[3]++;
      }
    ts.retry.clear();
    for (int32_t i = ts.exec_b; i < ts.exec_e; ++i) lists_[i].cur = lists_[i].begin;
    reset_live(ts);
    for (int32_t i = ts.host_b; i < ts.host_e; ++i) lists_[i].cur = lists_[i].begin;
    for (int32_t i = ts.rack_b; i < ts.rack_e; ++i) lists_[i].cur = lists_[i].begin;
    ts.nopref_cur = ts.nopref_b;
    ts.all_cur = ts.t0;
    no_rejects_since_reset_[s] = 1;
  }
  attempted_[s] = 1;
  ts.active = true;
  ts.n_levels = 0;
  compute_levels(ts);
  ts.cur = 0;
  ts.last_reset = now_;
  if (std::isnan(stage_ready_[s])) stage_ready_[s] = now_;
  if (opt_.sparse_offers) {
    for (int32_t k = ts.exec_b; k < ts.exec_e; ++k) by_exec_[lists_[k].key].emplace_back(s, k);
    if (opt_.executors_per_host > 1 || opt_.host_preferences)  // (else the host lists are the executor lists)
      for (int32_t k = ts.host_b; k < ts.host_e; ++k) by_host_[lists_[k].key].emplace_back(s, k);
  }
  // active_ in FIFO order (job, stage)
  auto pos = std::upper_bound(active_.begin(), active_.end(), s, [&](int32_t a, int32_t b) { return fifo_before(a, b); });
  active_.insert(pos, s);
  set_waiting(s, true);
  pending_total_ += ts.unlaunched;
  initializing_ = false;
  if (opt_.dynamic_allocation && pending_total_ > 0 && std::isnan(add_time_)) add_time_ = now_ + opt_.backlog_timeout;
  arm_revive();
  resource_offers(-1);
}

void Sim::finish_attempt(int64_t a, uint8_t status) {
  att_status_[a] = status;
  att_finish_[a] = now_;
  const int32_t e = att_node_[a];
  const int32_t t = att_task_[a];
  TaskSet& ts = ts_[wl_.task_job[t]];
  free_[e] += opt_.task_cpus;
  update_offerable(e);
  slot_stack_[slot_base_[e] + slot_top_[e]++] = att_slot_[a];
  if (--running_[e] == 0) idle_since_[e] = now_;
  copies_[t]--;
  ts.running--;
  pool_running_[ts.pool]--;
  running_total_--;
}

void Sim::task_end(int64_t a) {
  if (att_status_[a] != kRunning) return;  // a killed copy, or one failed with its executor
  if (att_fails_[a] == 2) {
    fetch_failed(a);
    return;
  }
  if (att_fails_[a]) {
    task_failed(a, true, true);
    return;
  }
  const int32_t t = att_task_[a];
  const int32_t e = att_node_[a];
  const int32_t s = wl_.task_job[t];
  TaskSet& ts = ts_[s];
  finish_attempt(a, kSucceeded);
  done_[t] = 1;
  ts.succeeded++;
  ts.add_duration(now_ - att_start_[a]);
  int32_t killed_exec = -1;
  if (copies_[t] > 0) {  // the other copy is killed (TaskSetManager.handleSuccessfulTask)
    const int64_t b = a == first_att_[t] ? run_att_[t] : first_att_[t];
    finish_attempt(b, kKilled);
    killed_exec = att_node_[b];
  }
  run_att_[t] = a;  // the successful copy (its executor holds the map output)
  {  // speculatable entries of a task done are dropped
    auto it = std::find(ts.spec.begin(), ts.spec.end(), t);
    if (it != ts.spec.end()) { ts.spec.erase(it); pending_total_--; }
    if (ts.unlaunched == 0 && ts.spec.empty()) set_waiting(s, false);
  }
  const bool stage_done = ts.succeeded == ts.n;
  if (stage_done) {
    if (ts.active) {
      ts.active = false;
      active_.erase(std::find(active_.begin(), active_.end(), s));
      stage_left();
    }  // (else the last attempts of a failed stage attempt completed it)
    stage_finish_[s] = now_;
    --unfinished_;
    st_[s] = kStDone;
    failed_attempts_[s] = 0;  // Stage.clearFailures: the attempts counted are consecutive ones
  }
  // CoarseGrainedSchedulerBackend: StatusUpdate -> makeOffers(executorId)
  resource_offers(e);
  if (killed_exec >= 0) resource_offers(killed_exec);
  if (stage_done) {
    if (!finished_once_[s]) {
      finished_once_[s] = 1;
      for (int32_t c : children_[s])
        if (--parents_left_[c] == 0 && !ts_[c].dead)
          q_.push(std::max(now_, wl_.submit_time[c]) + opt_.stage_submit_delay, kStageSubmit, static_cast<uint32_t>(c));
    }
    if (outputs_lost_)  // DAGScheduler.submitWaitingChildStages
      for (int32_t c : children_[s])
        if (st_[c] == kStWaiting) {
          st_[c] = kStIdle;
          dag_submit(c);
        }
  }
}

// TaskSetManager.addPendingTask for a failed task (or a lost map output): back in the pending
// lists, where it is taken before the others.
void Sim::requeue(TaskSet& ts, int32_t t) {
  launched_[t] = 0;
  ts.unlaunched++;
  pending_total_++;
  const uint8_t p = task_prefs_[t];
  if (p & 1) ts.pend[0]++;
  if (p & 2) ts.pend[1]++;
  if (p & 4) ts.pend[2]++;
  if (p & 8) ts.pend[3]++;
  ts.retry.push_back(t);
  unquiet(ts.stage);
  set_waiting(ts.stage, true);
  if (opt_.dynamic_allocation && std::isnan(add_time_)) add_time_ = now_ + opt_.backlog_timeout;
}

// TaskSetManager.handleFailedTask: the attempt's core is free; a failure that counts brings the
// task nearer to spark.task.maxFailures, which aborts the task set and fails its Spark job;
// otherwise the task waits again unless another copy still runs. As the backend does, the
// executor is offered at once (StatusUpdate -> makeOffers(executorId)), and every executor once
// the task is pending again (TaskSchedulerImpl.handleFailedTask -> reviveOffers).
void Sim::task_failed(int64_t a, bool counts, bool offer) {
  const int32_t t = att_task_[a];
  const int32_t e = att_node_[a];
  TaskSet& ts = ts_[wl_.task_job[t]];
  finish_attempt(a, kFailed);
  ++tasks_failed_;
  if (offer) resource_offers(e);
  if (ts.dead || done_[t]) return;
  if (counts && ++failures_[t] >= opt_.max_failures) {
    abort_job(ts.job);
    if (offer) resource_offers(-1);
    return;
  }
  if (copies_[t] == 0 && ts.active) requeue(ts, t);  // (a failed stage attempt's task waits for the next attempt)
  if (offer) {
    arm_revive();
    resource_offers(-1);
  }
}

// DAGScheduler.abortStage -> failJobAndIndependentStages: the Spark job fails; its running
// attempts are killed and its stages (running or not yet submitted) never finish.
void Sim::abort_job(int32_t job) {
  ++jobs_failed_;
  const int32_t nj = static_cast<int32_t>(ts_.size());
  for (int32_t s = 0; s < nj; ++s) {
    TaskSet& ts = ts_[s];
    if (ts.job != job || ts.dead) continue;
    ts.dead = true;  // (a finished stage too: its lost outputs are not recomputed)
    if (!std::isnan(stage_finish_[s])) continue;
    --unfinished_;
    if (!ts.active && ts.running == 0) continue;
    for (int64_t t = ts.t0; t < ts.t0 + ts.n; ++t) {
      if (copies_[t] == 0) continue;
      for (int64_t b : {run_att_[t], first_att_[t]})
        if (b >= 0 && att_status_[b] == kRunning) finish_attempt(b, kKilled);
    }
    if (!ts.active) continue;  // a failed stage attempt's attempts were still running
    pending_total_ -= ts.unlaunched + static_cast<int64_t>(ts.spec.size());
    ts.spec.clear();
    ts.retry.clear();
    ts.active = false;
    unquiet(s);
    active_.erase(std::find(active_.begin(), active_.end(), s));
    set_waiting(s, false);
    stage_left();
  }
}

// TaskSchedulerImpl.executorLost -> TaskSetManager.executorLost: without an external shuffle
// service, the map outputs that finished tasks of unfinished shuffle-map stages left on the
// executor are lost and those tasks run again (Resubmitted); the executor's running attempts
// fail (ExecutorLostFailure, which counts towards maxFailures); the locality levels are
// recomputed and every executor is offered.
void Sim::lose_executor(int32_t e) {
  if (down_[e]) return;
  down_[e] = 1;
  if (starting_[e]) { starting_[e] = 0; --n_starting_; }
  if (!alive_[e]) {
    if (opt_.dynamic_allocation) request_executors();
    return;
  }
  ++exec_lost_;
  std::vector<int64_t> lost;  // attempts running there
  const std::vector<int32_t> sets = active_;
  for (int32_t s : sets) {
    TaskSet& ts = ts_[s];
    if (ts.dead || !ts.active) continue;
    for (int64_t t = ts.t0; t < ts.t0 + ts.n; ++t) {
      if (done_[t]) {
        if ((!opt_.shuffle_service || files_lost_) && !children_[s].empty() && att_node_[run_att_[t]] == e) {
          done_[t] = 0;
          ts.succeeded--;
          ++resubmitted_;
          requeue(ts, static_cast<int32_t>(t));
        }
        continue;
      }
      for (int64_t b : {run_att_[t], first_att_[t]})
        if (b >= 0 && att_status_[b] == kRunning && att_node_[b] == e && std::find(lost.begin(), lost.end(), b) == lost.end())
          lost.push_back(b);
    }
  }
  if (outputs_lost_ || !opt_.shuffle_service || files_lost_) {
    // attempts of failed stage attempts (not active) still running there; map outputs of
    // finished stages held there
    for (int32_t s = 0; s < static_cast<int32_t>(ts_.size()); ++s) {
      const TaskSet& ts = ts_[s];
      if (ts.dead || ts.active || ts.running == 0) continue;
      for (int64_t t = ts.t0; t < ts.t0 + ts.n; ++t)
        for (int64_t b : {run_att_[t], first_att_[t]})
          if (b >= 0 && att_status_[b] == kRunning && att_node_[b] == e && std::find(lost.begin(), lost.end(), b) == lost.end())
            lost.push_back(b);
    }
    if (!opt_.shuffle_service || files_lost_) lose_map_outputs(e);
  }
  for (int64_t b : lost)
    if (att_status_[b] == kRunning) task_failed(b, true, false);
  alive_[e] = 0;
  --n_alive_;
  free_[e] = 0;
  update_offerable(e);
  alive_per_host_[host(e)]--;
  alive_per_rack_[cl_.rack[e]]--;
  executors_changed();
  if (opt_.dynamic_allocation) request_executors();  // the cluster manager replaces it to keep the target
  arm_revive();
  resource_offers(-1);
}

// A crashed executor comes back, empty (new Python workers), after the fault's restart delay:
// with static allocation it registers again; with dynamic allocation its node may be requested.
void Sim::restart_executor(int32_t e) {
  if (!down_[e]) return;
  down_[e] = 0;
  for (int64_t k = slot_base_[e]; k < slot_base_[e + 1]; ++k) slot_used_[k] = 0;
  ++incarnation_[e];
  if (opt_.dynamic_allocation) {
    request_executors();
    return;
  }
  starting_[e] = 1;
  ++n_starting_;
  register_executor(e);
}

// DAGScheduler.handleExecutorLost -> MapOutputTracker.removeOutputsOnExecutor (no external
// shuffle service): the map outputs a finished stage left on the executor are gone. It matters
// to the stages still to read them: a stage submitted later re-submits the parent first
// (getMissingParentStages); a task of a running one fails to fetch them.
void Sim::lose_map_outputs(int32_t e) {
  for (int32_t s = 0; s < static_cast<int32_t>(ts_.size()); ++s) {
    TaskSet& ts = ts_[s];
    if (ts.dead || st_[s] != kStDone || children_[s].empty()) continue;
    bool needed = false;  // some child stage still to finish
    for (int32_t c : children_[s]) needed |= !ts_[c].dead && std::isnan(stage_finish_[c]);
    if (!needed) continue;
    for (int64_t t = ts.t0; t < ts.t0 + ts.n; ++t)
      if (done_[t] && att_node_[run_att_[t]] == e) {
        done_[t] = 0;
        ts.succeeded--;
        ++outputs_lost_count_;
        outputs_lost_ = true;
      }
  }
}

bool Sim::parents_available(int32_t s) const {
  if (!wl_.has_dependencies()) return true;
  for (int64_t k = wl_.parent_begin[s]; k < wl_.parent_begin[s + 1]; ++k)
    if (!available(wl_.parent_job[k])) return false;
  return true;
}

// getMissingParentStages: submits the parents whose outputs are missing; whether there were any.
bool Sim::submit_missing_parents(int32_t s) {
  if (!outputs_lost_ || parents_available(s)) return false;
  for (int64_t k = wl_.parent_begin[s]; k < wl_.parent_begin[s + 1]; ++k)
    if (!available(wl_.parent_job[k])) dag_submit(wl_.parent_job[k]);
  return true;
}

// DAGScheduler.submitStage for a stage submitted before: when its parents' outputs are all
// there its task set is submitted (after stage_submit_delay), else its missing parents are and
// it waits for them (waitingStages).
void Sim::dag_submit(int32_t s) {
  const uint8_t st = st_[s];
  if (ts_[s].dead || st == kStPending || st == kStSubmitting || st == kStRunning || st == kStWaiting) return;
  if (st == kStDone && available(s)) return;
  if (submit_missing_parents(s)) {
    st_[s] = kStWaiting;
    return;
  }
  st_[s] = kStSubmitting;
  q_.push(now_ + opt_.stage_submit_delay, kStageSubmit, static_cast<uint32_t>(s));
}

// A stage's submission event: its first (its Spark job's submission or its parents' end) or a
// re-submission; a parent whose outputs were lost meanwhile is submitted first.
void Sim::stage_event(int32_t s) {
  if (ts_[s].dead || (st_[s] != kStPending && st_[s] != kStSubmitting)) return;
  if (submit_missing_parents(s)) {
    st_[s] = kStWaiting;
    return;
  }
  submit_stage(s);
}

// DAGScheduler.handleTaskCompletion, FetchFailed: the stage attempt fails (its task set becomes
// a zombie: it launches nothing more, its running attempts go on and their results count); after
// spark.stage.maxConsecutiveAttempts such attempts the Spark job aborts; else the stage and its
// parents with missing outputs join failedStages, re-submitted resubmit_timeout later. A fetch
// failure does not count towards spark.task.maxFailures; later ones of the same stage attempt
// change nothing.
void Sim::fetch_failed(int64_t a) {
  const int32_t t = att_task_[a];
  const int32_t e = att_node_[a];
  const int32_t s = wl_.task_job[t];
  TaskSet& ts = ts_[s];
  finish_attempt(a, kFailed);
  ++tasks_failed_;
  ++fetch_failures_;
  resource_offers(e);
  if (ts.dead || done_[t] || st_[s] != kStRunning || a < att_base_[s]) return;
  ts.active = false;
  active_.erase(std::find(active_.begin(), active_.end(), s));
  pending_total_ -= ts.unlaunched + static_cast<int64_t>(ts.spec.size());
  ts.spec.clear();
  set_waiting(s, false);
  stage_left();
  st_[s] = kStIdle;
  if (++failed_attempts_[s] >= opt_.max_consecutive_attempts) {
    abort_job(ts.job);
    return;
  }
  const bool enqueued = std::find(failed_stages_.begin(), failed_stages_.end(), s) != failed_stages_.end();
  failed_stages_.push_back(s);
  for (int64_t k = wl_.parent_begin[s]; k < wl_.parent_begin[s + 1]; ++k)
    if (!available(wl_.parent_job[k])) failed_stages_.push_back(wl_.parent_job[k]);
  if (!enqueued) q_.push(now_ + opt_.resubmit_timeout, kResubmitFailed);
}

// DAGScheduler.resubmitFailedStages: the failed stages by their first Spark job, each submitted
// again (DAGScheduler.submitStage).
void Sim::resubmit_failed_stages() {
  std::vector<int32_t> stages;
  stages.swap(failed_stages_);
  std::sort(stages.begin(), stages.end(), [&](int32_t a, int32_t b) { return ts_[a].job != ts_[b].job ? ts_[a].job < ts_[b].job : a < b; });
  stages.erase(std::unique(stages.begin(), stages.end()), stages.end());
  for (int32_t s : stages) dag_submit(s);
}

// Standalone: the Master launched executor e of this application with `cores` cores on a worker;
// it registers executor_start_time later, a new process (first-task overhead paid again).
void Sim::grant(int32_t e, int32_t cores, double at) {
  cores_[e] = cores;
  down_[e] = 0;
  for (int64_t k = slot_base_[e]; k < slot_base_[e + 1]; ++k) slot_used_[k] = 0;
  ++incarnation_[e];
  starting_[e] = 1;
  ++n_starting_;
  q_.push(at + opt_.executor_start_time, kExecRegister, static_cast<uint32_t>(e), incarnation_[e]);
}

// Standalone: executor e's worker is lost (ExecutorProcessLost with the worker's host): its map
// outputs are lost even with the shuffle service, which lives in the worker.
void Sim::worker_lost(int32_t e, double at) {
  now_ = std::max(now_, at);
  files_lost_ = true;
  lose_executor(e);
  files_lost_ = false;
}

void Sim::set_waiting(int32_t s, bool on) {
  TaskSet& ts = ts_[s];
  if (ts.waiting == on) return;
  ts.waiting = on;
  if (!on && reoffer_ && ts.active && !ts.idle && ts.cur + 1 < ts.n_levels) {
    ts.idle = true;
    idle_.push_back(s);
  }
  if (on) {
    auto pos = std::upper_bound(waiting_.begin(), waiting_.end(), s, [&](int32_t a, int32_t b) { return fifo_before(a, b); });
    waiting_.insert(pos, s);
  } else {
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), s));
  }
}

// TaskSetManager.checkSpeculatableTasks
bool Sim::check_speculatable(TaskSet& ts) {
  if (ts.n == 1 || ts.succeeded == ts.n) return false;
  const int32_t min_finished = std::max(static_cast<int32_t>(std::floor(opt_.speculation_quantile * ts.n)), 1);
  if (ts.succeeded < min_finished) return false;
  const double threshold = std::max(opt_.speculation_multiplier * ts.median(), opt_.speculation_min_task_runtime);
  bool found = false;
  for (int64_t t = ts.t0; t < ts.t0 + ts.n; ++t) {
    if (done_[t] || copies_[t] != 1) continue;
    const int64_t a = run_att_[t];
    if (now_ - att_start_[a] <= threshold + kEps) continue;  // runtime > threshold (Spark: whole ms)
    if (std::find(ts.spec.begin(), ts.spec.end(), static_cast<int32_t>(t)) != ts.spec.end()) continue;
    if (att_spec_[a] || first_att_[t] != a) continue;  // a task gets one speculative copy
    ts.spec.push_back(static_cast<int32_t>(t));
    unquiet(ts.stage);
    pending_total_++;
    set_waiting(ts.stage, true);
    found = true;
  }
  return found;
}

void Sim::speculation_tick() {
  spec_armed_ = false;
  bool found = false;
  for (int32_t s : active_) found |= check_speculatable(ts_[s]);
  if (found) {
    if (opt_.dynamic_allocation && std::isnan(add_time_)) add_time_ = now_ + opt_.backlog_timeout;
    arm_revive();
    resource_offers(-1);
  }
  if (running_total_ > 0) arm_speculation();
}

// ------------------------------------------------------------------ dynamic allocation

void Sim::executors_changed() {
  for (int32_t s : active_) compute_levels(ts_[s]);
  exec_series_.add_row({now_, double(n_alive_), double(target_)});
}

void Sim::register_executor(int32_t e) {
  if (!starting_[e]) return;  // the request was cancelled
  starting_[e] = 0;
  --n_starting_;
  alive_[e] = 1;
  ++n_alive_;
  ++exec_added_;
  free_[e] = cores_[e];
  update_offerable(e);
  slot_top_[e] = cores_[e];
  for (int32_t k = 0; k < cores_[e]; ++k) slot_stack_[slot_base_[e] + k] = cores_[e] - 1 - k;
  idle_since_[e] = now_;
  alive_per_host_[host(e)]++;
  alive_per_rack_[cl_.rack[e]]++;
  executors_changed();
  resource_offers(-1);  // RegisterExecutor -> makeOffers()
}

void Sim::remove_executor(int32_t e) {
  alive_[e] = 0;
  --n_alive_;
  ++exec_removed_;
  free_[e] = 0;
  update_offerable(e);
  alive_per_host_[host(e)]--;
  alive_per_rack_[cl_.rack[e]]--;
  executors_changed();
  if (cm_) master_released(cm_, app_, e);  // killExecutors: the worker's cores go back to the Master
}

// Brings the executors alive or starting to target_: starts the lowest free nodes, or cancels
// the latest starts (the cluster manager drops requests not yet granted).
void Sim::request_executors() {
  if (cm_) {
    master_request(cm_, app_, target_);
    return;
  }  // requestTotalExecutors: the Master's executor limit
  for (int32_t e = 0; e < n_exec_ && n_alive_ + n_starting_ < target_; ++e)
    if (!alive_[e] && !starting_[e] && !down_[e]) {
      starting_[e] = 1;
      ++n_starting_;
      q_.push(now_ + opt_.executor_start_time, kExecRegister, static_cast<uint32_t>(e));
    }
  for (int32_t e = n_exec_ - 1; e >= 0 && n_alive_ + n_starting_ > target_ && n_starting_ > 0; --e)
    if (starting_[e]) { starting_[e] = 0; --n_starting_; }
}

// ExecutorAllocationListener.onStageCompleted (a stage finished, failed or aborted): when no
// submitted stage is left, onSchedulerQueueEmpty clears the backlog timer and the number of
// executors to add. Without it the timer of a backlog that ended without a launch (speculatable
// copies not needed once their originals finished, an aborted job's tasks) stayed set into the
// next job, and through the idle span before it, where it was renewed every
// sustainedSchedulerBacklogTimeout and every allocation tick fired as an event.
void Sim::stage_left() {
  if (opt_.dynamic_allocation && active_.empty()) {
    add_time_ = kNaN;
    to_add_ = 1;
  }
}

// ExecutorAllocationManager.schedule: updateAndSyncNumExecutorsTarget, then removal of
// executors idle past executorIdleTimeout (never below minExecutors or the target).
void Sim::allocation_tick() {
  alloc_armed_ = false;
  const int32_t cores = std::max(cl_.slots[0] / opt_.task_cpus, 1);
  const int64_t needed = static_cast<int64_t>(
      std::ceil(double(pending_total_ + running_total_) * opt_.executor_allocation_ratio / cores - kEps));
  const int32_t old_target = target_;
  if (!initializing_) {
    if (needed < target_) {
      target_ = std::max<int32_t>(static_cast<int32_t>(needed), opt_.min_executors);
      to_add_ = 1;
    } else if (!std::isnan(add_time_) && now_ >= add_time_ - kEps) {
      if (target_ >= max_exec_) {
        to_add_ = 1;
      } else {
        const int32_t before = target_;
        int64_t t = int64_t(target_) + to_add_;
        t = std::min<int64_t>(t, needed);
        t = std::max<int64_t>(std::min<int64_t>(t, max_exec_), opt_.min_executors);
        target_ = static_cast<int32_t>(t);
        const int32_t delta = target_ - before;
        to_add_ = delta == 0 ? 1 : (delta == to_add_ ? to_add_ * 2 : 1);
      }
      const double sustained = opt_.sustained_backlog_timeout >= 0 ? opt_.sustained_backlog_timeout : opt_.backlog_timeout;
      add_time_ = now_ + sustained;
    }
  }
  if (target_ != old_target) {
    request_executors();
    exec_series_.add_row({now_, double(n_alive_), double(target_)});
  }
  for (int32_t e = 0; e < n_exec_; ++e)
    if (alive_[e] && running_[e] == 0 && now_ - idle_since_[e] >= opt_.executor_idle_timeout - kEps) {
      const int32_t total = n_alive_ + n_starting_;
      if (total - 1 < opt_.min_executors || total - 1 < target_) break;
      remove_executor(e);
    }
  if (unfinished_ > 0 || n_alive_ + n_starting_ > std::max(opt_.min_executors, target_)) {
    alloc_armed_ = true;
    q_.push(idle_allocation_ticks(next_tick(now_, opt_.allocation_interval)), kAllocTick);
  }
}

// An idle span of dynamic allocation: nothing pending, running or starting, the target settled
// at minExecutors and no executor due for removal. The ticks from `next` on change nothing until
// the next event, the first tick that removes an executor or the time limit: they are skipped
// (returns the last of them, which fires as an event, so that the clock, the ticks after the span
// and the order of same-time events are those of the run stepping through every tick).
double Sim::idle_allocation_ticks(double next) {
  if (pending_total_ + running_total_ > 0 || n_starting_ > 0) return next;
  if (!initializing_ && !(target_ == std::max(0, opt_.min_executors) && (target_ > 0 ? to_add_ == 1 : std::isnan(add_time_))))
    return next;
  const double ai = opt_.allocation_interval;
  const bool removable = n_alive_ + n_starting_ - 1 >= std::max(opt_.min_executors, target_);
  double until = std::min(q_.empty() ? INFINITY : q_.top().time, opt_.time_limit);
  if (removable)
    for (int32_t e = 0; e < n_exec_; ++e)
      if (alive_[e]) until = std::min(until, idle_since_[e] + opt_.executor_idle_timeout);
  auto quiet = [&](double m) {  // the tick at m x interval removes nothing and fires before anything else
    const double t = m * ai;
    if (!(t < (q_.empty() ? INFINITY : q_.top().time) && t <= opt_.time_limit)) return false;
    if (removable)
      for (int32_t e = 0; e < n_exec_; ++e)
        if (alive_[e] && t - idle_since_[e] >= opt_.executor_idle_timeout - kEps) return false;
    return true;
  };
  const double m = std::round(next / ai);  // (next is a tick, m x interval)
  if (!std::isfinite(until) || !quiet(m + 1)) return next;
  double last = std::floor(until / ai) + 1;
  for (int k = 0; k < 4 && last > m + 1 && !quiet(last); ++k) last -= 1;
  if (!quiet(last) || !(last > m)) return next;
  idle_alloc_ticks_ += last - m;
  return last * ai;
}

// ------------------------------------------------------------------------------ the run

void Sim::start() {
  const size_t nj = wl_.n_jobs();
  // executors: all (static) or the initial ones (dynamic) register at executor_start_time
  if (opt_.dynamic_allocation) {
    target_ = std::min(std::max(opt_.initial_executors, opt_.min_executors), max_exec_);
    request_executors();  // (standalone: the application's initial executor limit)
    alloc_armed_ = true;
    q_.push(opt_.allocation_interval, kAllocTick);
  } else {
    target_ = n_exec_;
    if (!cm_) request_executors();  // (standalone: the Master grants the executors)
  }
  for (size_t s = 0; s < nj; ++s)
    if (parents_left_[s] == 0) q_.push(wl_.submit_time[s] + opt_.stage_submit_delay, kStageSubmit, static_cast<uint32_t>(s));
  if (!opt_.faults.empty()) {
    for (const mr::Fault& f : mr::parse_faults(opt_.faults, n_exec_, seed_)) {
      if (f.kind != mr::Fault::Crash)
        throw std::invalid_argument("simulate options (spark engine): option 'faults': the spark engine models executor "
                                    "crashes (crash, mtbf), not slowdowns");
      q_.push(f.start, kExecLost, static_cast<uint32_t>(f.node));
      if (std::isfinite(f.restart_after)) q_.push(f.start + f.restart_after, kExecRestart, static_cast<uint32_t>(f.node));
    }
    reoffer_ = true;
  }
  if (opt_.task_failure_probability > 0 || opt_.speculation) reoffer_ = true;
}

// One event; false when the next one is past time_limit.
bool Sim::step() {
  const Event ev = q_.top();
  if (ev.time > opt_.time_limit) return false;
  if (unfinished_ == 0 && ev.kind != kAllocTick && ev.kind != kExecRegister) {
    q_.pop();
    return true;  // only the executor bookkeeping of dynamic allocation runs past the last stage
  }
  q_.pop();
  now_ = ev.time;
  ++events_;
  poll_interrupt(events_, now_);
  switch (ev.kind) {
    case kStageSubmit: stage_event(static_cast<int32_t>(ev.a)); break;
    case kResubmitFailed: resubmit_failed_stages(); break;
    case kTaskEnd: task_end(static_cast<int64_t>(ev.b)); break;
    case kRevive: revive_tick(); break;
    case kSpecTick: speculation_tick(); break;
    case kAllocTick: allocation_tick(); break;
    case kExecRegister:
      // (standalone: a launch whose worker was lost before it registered is superseded by the next one)
      if (!cm_ || ev.b == incarnation_[ev.a]) register_executor(static_cast<int32_t>(ev.a));
      break;
    case kExecLost: lose_executor(static_cast<int32_t>(ev.a)); break;
    case kExecRestart: restart_executor(static_cast<int32_t>(ev.a)); break;
  }
  return true;
}

SimResult Sim::run() {
  start();
  while (!q_.empty())
    if (!step()) break;
  return result();
}

SimResult Sim::result() {

  SimResult r;
  r.job_start = std::move(stage_start_);
  r.job_finish = std::move(stage_finish_);
  r.job_extra["ready"] = std::move(stage_ready_);
  const size_t na = att_task_.size();
  r.att_locality.resize(na);
  for (size_t i = 0; i < na; ++i) {
    const uint8_t lv = static_cast<uint8_t>(att_level_[i]);
    r.att_locality[i] = lv <= kNodeLocal ? schedlab::kNodeLocal : lv == kRackLocal ? schedlab::kRackLocal : lv == kAny ? kRemote : kNoLocality;
    if (att_status_[i] == kRunning) att_finish_[i] = kNaN;
  }
  r.att_task = std::move(att_task_);
  r.att_node = std::move(att_node_);
  r.att_start = std::move(att_start_);
  r.att_finish = std::move(att_finish_);
  r.att_status = std::move(att_status_);
  r.att_slot = std::move(att_slot_);
  r.att_speculative = std::move(att_spec_);
  r.att_extra["spark_locality"] = std::move(att_level_);
  r.counters["tasks_launched"] = double(na);
  r.counters["speculative_launched"] = double(spec_launched_);
  r.counters["offer_rounds"] = double(offer_rounds_);
  r.counters["events_pushed"] = double(q_.pushed());
  r.counters["executors_added"] = double(exec_added_);
  r.counters["executors_removed"] = double(exec_removed_);
  if (idle_alloc_ticks_ > 0) r.counters["idle_allocation_ticks"] = idle_alloc_ticks_;
  r.counters["tasks_failed"] = double(tasks_failed_);
  r.counters["jobs_failed"] = double(jobs_failed_);
  r.counters["executors_lost"] = double(exec_lost_);
  r.counters["tasks_resubmitted"] = double(resubmitted_);
  r.counters["map_outputs_lost"] = double(outputs_lost_count_);
  r.counters["fetch_failures"] = double(fetch_failures_);
  r.counters["stages_resubmitted"] = double(stages_resubmitted_);
  if (opt_.dynamic_allocation) r.series["executors"] = std::move(exec_series_);
  r.events = events_;
  r.end_time = now_;
  return r;
}


// ------------------------------------------------------------ several applications (standalone)

// Spark standalone's Master (org.apache.spark.deploy.master.Master: schedule,
// startExecutorsOnWorkers, scheduleExecutorsOnWorkers, handleRequestExecutors,
// handleKillExecutors) sharing the cluster's nodes -- its workers -- between applications, each
// an application model of its own (Sim) with its executors, pools and dynamic allocation. The
// Master serves the registered applications in arrival order (FIFO): each gets the cores it may
// still take (spark.cores.max, default spark.deploy.defaultCores) on the alive workers with the
// most free cores first, spark.executor.cores per executor (unset: one executor per worker with
// the cores it can take), spread over the workers one executor's cores at a time
// (spark.deploy.spreadOut) or packed, never beyond its executor limit (dynamic allocation's
// requested total). An application's executors are the nodes of a cluster of its own: K
// executor places per worker (workers x K), hosts and racks those of the workers.
class Master {
 public:
  Master(const Cluster& workers, const Workload& w, bool fair, const std::vector<PoolSpec>& pools, const Options& o,
         const std::vector<int32_t>& app_of_job, const std::vector<AppSpec>& specs, uint64_t seed);
  SimResult run();
  void request(int32_t a, int32_t target) {
    apps_[a].limit = target;
    schedule();
  }
  void released(int32_t a, int32_t v);

 private:
  struct App {
    Cluster cl;
    Workload wl;
    Options opt;
    std::unique_ptr<Sim> sim;
    std::vector<int32_t> jobs;  // global job ids, in order
    double arrival = 0;
    int32_t cores_max = 0, ec = 0, K = 1;
    bool registered = false, done = false;
    int32_t granted = 0, limit = std::numeric_limits<int32_t>::max(), n_exec = 0;
    std::vector<int32_t> exec_cores;  // per executor place: cores granted (0: none)
    // per executor place, its grants: (time, offset into cores_ of the worker cores it got)
    std::vector<std::vector<std::pair<double, int64_t>>> grants;
  };
  void schedule();
  void schedule_once();
  void launch(int32_t a, int32_t w, int32_t cores);
  void free_executor(int32_t a, int32_t v);
  void app_done(int32_t a);

  const Cluster& workers_;
  const Workload& wl_;
  Options opt_;
  bool spread_out_;
  uint64_t seed_;
  std::vector<App> apps_;
  std::vector<int32_t> order_;  // applications by arrival
  std::vector<int32_t> free_;   // per worker: free cores
  std::vector<uint8_t> alive_;
  std::vector<int64_t> core_base_;
  std::vector<uint8_t> core_used_;  // per worker core
  std::vector<int32_t> cores_;      // worker core indices of every grant (App::grants)
  double now_ = 0;
  bool busy_ = false, again_ = false;
  int64_t launched_ = 0;
};

void master_request(Master* m, int32_t app, int32_t target) { m->request(app, target); }
void master_released(Master* m, int32_t app, int32_t e) { m->released(app, e); }

Master::Master(const Cluster& workers, const Workload& w, bool fair, const std::vector<PoolSpec>& pools,
               const Options& o, const std::vector<int32_t>& app_of_job, const std::vector<AppSpec>& specs, uint64_t seed)
    : workers_(workers), wl_(w), opt_(o), spread_out_(o.spread_out), seed_(seed) {
  const size_t nj = w.n_jobs();
  const int32_t nw = static_cast<int32_t>(workers.size());
  if (nw == 0) throw std::invalid_argument("cluster has no nodes (workers)");
  if (app_of_job.size() != nj)
    throw std::invalid_argument("parameter 'applications': " + std::to_string(app_of_job.size()) + " codes for " +
                                std::to_string(nj) + " workload jobs");
  int32_t n_apps = 0;
  for (int32_t a : app_of_job) n_apps = std::max(n_apps, a + 1);
  if (static_cast<int32_t>(specs.size()) > n_apps) n_apps = static_cast<int32_t>(specs.size());
  apps_.resize(n_apps);
  for (size_t j = 0; j < nj; ++j) apps_[app_of_job[j]].jobs.push_back(static_cast<int32_t>(j));
  int32_t max_slots = 0;
  for (int32_t s : workers.slots) max_slots = std::max(max_slots, s);
  free_ = workers.slots;
  alive_.assign(nw, 1);
  core_base_.assign(nw + 1, 0);
  for (int32_t k = 0; k < nw; ++k) core_base_[k + 1] = core_base_[k] + workers.slots[k];
  core_used_.assign(core_base_[nw], 0);
  std::vector<int32_t> local(nj, -1);
  for (int32_t a = 0; a < n_apps; ++a) {
    App& app = apps_[a];
    const AppSpec sp = a < static_cast<int32_t>(specs.size()) ? specs[a] : AppSpec{};
    app.ec = sp.executor_cores > 0 ? sp.executor_cores : o.executor_cores;
    int32_t cm = sp.cores_max > 0 ? sp.cores_max : o.cores_max > 0 ? o.cores_max : o.default_cores;
    app.cores_max = cm > 0 ? cm : std::numeric_limits<int32_t>::max();
    double first = INFINITY;
    for (int32_t j : app.jobs) first = std::min(first, w.submit_time[j]);
    app.arrival = !std::isnan(sp.arrival) ? sp.arrival : std::isfinite(first) ? first : 0;
    if (app.ec > 0 && app.ec < o.task_cpus)
      throw std::invalid_argument("application " + std::to_string(a) + ": spark.executor.cores (" + std::to_string(app.ec) +
                                  ") is below task_cpus (" + std::to_string(o.task_cpus) + ")");
    app.K = app.ec > 0 ? std::max(max_slots / app.ec, 1) : std::max(max_slots, 1);
    // its executor places: K per worker, each with the cores it may get
    const int32_t nv = nw * app.K;
    for (int32_t v = 0; v < nv; ++v) {
      const int32_t wk = v / app.K;
      const int32_t c = std::max(app.ec > 0 ? app.ec : workers.slots[wk], o.task_cpus);
      app.cl.rack.push_back(workers.rack[wk]);
      app.cl.speed.push_back(workers.speed[wk]);
      app.cl.map_slots.push_back(c);
      app.cl.reduce_slots.push_back(0);
      app.cl.slots.push_back(c);
      app.cl.vcores.push_back(c);
      app.cl.memory.push_back(workers.memory.empty() ? 1024 : workers.memory[wk]);
      app.cl.node_type.push_back(0);
    }
    app.cl.n_racks = workers.n_racks;
    app.exec_cores.assign(nv, 0);
    app.grants.assign(nv, {});
    // its stages
    Workload& sw = app.wl;
    const bool reps = w.has_replicas(), deps = w.has_dependencies();
    if (reps) sw.replica_begin.push_back(0);
    if (deps) sw.parent_begin.push_back(0);
    std::vector<int32_t> dags;
    for (size_t k = 0; k < app.jobs.size(); ++k) {
      const int32_t j = app.jobs[k];
      local[j] = static_cast<int32_t>(k);
      dags.push_back(w.dag[j]);
    }
    std::sort(dags.begin(), dags.end());
    dags.erase(std::unique(dags.begin(), dags.end()), dags.end());
    for (size_t k = 0; k < app.jobs.size(); ++k) {
      const int32_t j = app.jobs[k];
      sw.submit_time.push_back(std::max(w.submit_time[j], app.arrival));
      sw.user.push_back(w.user[j]);
      sw.dag.push_back(static_cast<int32_t>(std::lower_bound(dags.begin(), dags.end(), w.dag[j]) - dags.begin()));
      for (int64_t t = w.task_begin[j]; t < w.task_begin[j + 1]; ++t) {
        sw.task_job.push_back(static_cast<int32_t>(k));
        sw.work.push_back(w.work[t]);
        if (reps) {
          for (int64_t r = w.replica_begin[t]; r < w.replica_begin[t + 1]; ++r) sw.replica_node.push_back(w.replica_node[r] * app.K);
          sw.replica_begin.push_back(static_cast<int64_t>(sw.replica_node.size()));
        }
      }
      if (deps) {
        for (int64_t r = w.parent_begin[j]; r < w.parent_begin[j + 1]; ++r) {
          const int32_t p = w.parent_job[r];
          if (app_of_job[p] != a)
            throw std::invalid_argument("parameter 'applications': job " + std::to_string(j) + " of application " +
                                        std::to_string(a) + " has parent job " + std::to_string(p) + " of application " +
                                        std::to_string(app_of_job[p]) + " (stages read shuffle output of their own application)");
          sw.parent_job.push_back(local[p]);
        }
        sw.parent_begin.push_back(static_cast<int64_t>(sw.parent_job.size()));
      }
    }
    sw.finalize();
    app.opt = o;
    app.opt.faults.clear();
    app.opt.host_preferences = true;  // executors are placed by the Master: tasks prefer workers' hosts
    app.opt.executors_per_host = o.executors_per_host * app.K;
    app.opt.stage_ids.clear();
    for (int32_t j : app.jobs) app.opt.stage_ids.push_back(o.stage_ids.empty() ? int64_t(j) : o.stage_ids[j]);
    app.sim = std::make_unique<Sim>(app.cl, app.wl, fair, pools, app.opt, seed + 0x9E3779B97F4A7C15ull * uint64_t(a));
    app.sim->attach(this, a, !o.faults.empty());
  }
  order_.resize(n_apps);
  for (int32_t a = 0; a < n_apps; ++a) order_[a] = a;
  std::stable_sort(order_.begin(), order_.end(), [&](int32_t x, int32_t y) { return apps_[x].arrival < apps_[y].arrival; });
}

void Master::schedule() {
  if (busy_) { again_ = true; return; }
  busy_ = true;
  do {
    again_ = false;
    schedule_once();
  } while (again_);
  busy_ = false;
}

// Master.startExecutorsOnWorkers and scheduleExecutorsOnWorkers
void Master::schedule_once() {
  const int32_t nw = static_cast<int32_t>(workers_.size());
  std::vector<int32_t> usable, assigned_cores, assigned_execs, candidates;
  for (int32_t a : order_) {
    App& app = apps_[a];
    if (!app.registered || app.done) continue;
    const int32_t min_cores = app.ec > 0 ? app.ec : 1;
    const bool one_per_worker = app.ec <= 0;
    const int64_t left = int64_t(app.cores_max) - app.granted;
    if (left < min_cores) continue;
    usable.clear();
    for (int32_t k = 0; k < nw; ++k)
      if (alive_[k] && free_[k] >= min_cores) usable.push_back(k);
    std::stable_sort(usable.begin(), usable.end(), [&](int32_t x, int32_t y) { return free_[x] > free_[y]; });
    const size_t n = usable.size();
    if (n == 0) continue;
    assigned_cores.assign(n, 0);
    assigned_execs.assign(n, 0);
    int64_t free_sum = 0, execs_sum = 0;
    for (int32_t k : usable) free_sum += free_[k];
    int64_t to_assign = std::min<int64_t>(left, free_sum);
    auto can_launch = [&](size_t pos) {
      const bool keep = to_assign >= min_cores;
      const bool enough = free_[usable[pos]] - assigned_cores[pos] >= min_cores;
      if (!one_per_worker || assigned_execs[pos] == 0) return keep && enough && execs_sum + app.n_exec < app.limit;
      return keep && enough;
    };
    candidates.clear();
    for (size_t pos = 0; pos < n; ++pos)
      if (can_launch(pos)) candidates.push_back(static_cast<int32_t>(pos));
    while (!candidates.empty()) {
      for (int32_t pos : candidates) {
        while (can_launch(pos)) {
          to_assign -= min_cores;
          assigned_cores[pos] += min_cores;
          if (one_per_worker) {
            if (assigned_execs[pos] == 0) ++execs_sum;
            assigned_execs[pos] = 1;
          } else {
            ++assigned_execs[pos];
            ++execs_sum;
          }
          if (spread_out_) break;
        }
      }
      size_t k = 0;
      for (int32_t pos : candidates)
        if (can_launch(pos)) candidates[k++] = pos;
      candidates.resize(k);
    }
    for (size_t pos = 0; pos < n; ++pos) {  // Master.allocateWorkerResourceToExecutors
      if (assigned_cores[pos] == 0) continue;
      if (one_per_worker) launch(a, usable[pos], assigned_cores[pos]);
      else for (int32_t i = 0; i < assigned_cores[pos] / app.ec; ++i) launch(a, usable[pos], app.ec);
    }
  }
}

void Master::launch(int32_t a, int32_t w, int32_t cores) {
  App& app = apps_[a];
  int32_t v = -1;
  for (int32_t k = 0; k < app.K && v < 0; ++k)
    if (app.exec_cores[w * app.K + k] == 0) v = w * app.K + k;
  if (v < 0) return;  // (cannot happen: K places hold a worker's cores)
  const int64_t off = static_cast<int64_t>(cores_.size());
  for (int64_t c = core_base_[w]; c < core_base_[w + 1] && static_cast<int64_t>(cores_.size()) - off < cores; ++c)
    if (!core_used_[c]) {
      core_used_[c] = 1;
      cores_.push_back(static_cast<int32_t>(c - core_base_[w]));
    }
  app.grants[v].emplace_back(now_, off);
  free_[w] -= cores;
  app.granted += cores;
  app.n_exec++;
  app.exec_cores[v] = cores;
  ++launched_;
  app.sim->grant(v, cores, now_);
}

// the executor place v of application a gives its cores back (killed, or its application ended)
void Master::free_executor(int32_t a, int32_t v) {
  App& app = apps_[a];
  const int32_t c = app.exec_cores[v];
  if (c == 0) return;
  const int32_t w = v / app.K;
  if (alive_[w]) {
    free_[w] += c;
    const int64_t off = app.grants[v].back().second;
    for (int32_t i = 0; i < c; ++i) core_used_[core_base_[w] + cores_[off + i]] = 0;
  }
  app.granted -= c;
  app.n_exec--;
  app.exec_cores[v] = 0;
}

void Master::released(int32_t a, int32_t v) {
  free_executor(a, v);
  schedule();
}

void Master::app_done(int32_t a) {
  App& app = apps_[a];
  app.done = true;
  for (int32_t v = 0; v < static_cast<int32_t>(app.exec_cores.size()); ++v) free_executor(a, v);
  schedule();
}

SimResult Master::run() {
  enum : uint32_t { kArrive, kWorkerLost, kWorkerBack };
  EventQueue q;
  const int32_t n_apps = static_cast<int32_t>(apps_.size());
  for (int32_t a : order_) q.push(apps_[a].arrival, kArrive, static_cast<uint32_t>(a));
  if (!opt_.faults.empty())
    for (const mr::Fault& f : mr::parse_faults(opt_.faults, static_cast<int>(workers_.size()), seed_)) {
      if (f.kind != mr::Fault::Crash)
        throw std::invalid_argument("simulate options (spark engine): option 'faults': the spark engine models executor "
                                    "crashes (crash, mtbf), not slowdowns");
      q.push(f.start, kWorkerLost, static_cast<uint32_t>(f.node));
      if (std::isfinite(f.restart_after)) q.push(f.start + f.restart_after, kWorkerBack, static_cast<uint32_t>(f.node));
    }
  for (App& app : apps_) app.sim->start();
  int64_t master_events = 0;
  for (;;) {
    int32_t best = -1;
    double t_best = INFINITY;
    for (int32_t a = 0; a < n_apps; ++a)
      if (!apps_[a].done && apps_[a].sim->has_event() && apps_[a].sim->next_time() < t_best) {
        t_best = apps_[a].sim->next_time();
        best = a;
      }
    const double t_master = q.empty() ? INFINITY : q.top().time;
    if (best < 0 && q.empty()) break;
    if (t_master <= t_best) {
      if (t_master > opt_.time_limit) break;
      const Event ev = q.top();
      q.pop();
      now_ = ev.time;
      ++master_events;
      const int32_t x = static_cast<int32_t>(ev.a);
      if (ev.kind == kArrive) {  // RegisterApplication
        apps_[x].registered = true;
        schedule();
      } else if (ev.kind == kWorkerLost) {
        if (!alive_[x]) continue;
        alive_[x] = 0;
        free_[x] = 0;
        busy_ = true;  // the applications' reactions (dynamic allocation's requests) wait for the end
        for (int32_t a = 0; a < n_apps; ++a) {
          App& app = apps_[a];
          for (int32_t k = 0; k < app.K; ++k) {
            const int32_t v = x * app.K + k;
            if (app.exec_cores[v] == 0) continue;
            free_executor(a, v);
            if (!app.done) app.sim->worker_lost(v, now_);
          }
        }
        busy_ = false;
        for (int32_t a = 0; a < n_apps; ++a)
          if (!apps_[a].done && apps_[a].sim->finished()) app_done(a);  // (its last job failed)
        schedule();
      } else {
        if (alive_[x]) continue;
        alive_[x] = 1;
        free_[x] = workers_.slots[x];
        for (int64_t c = core_base_[x]; c < core_base_[x + 1]; ++c) core_used_[c] = 0;
        schedule();
      }
      continue;
    }
    now_ = t_best;
    if (!apps_[best].sim->step()) break;
    if (!apps_[best].done && apps_[best].sim->finished()) app_done(best);
  }

  // the applications' results, on the workers, in launch order
  SimResult r;
  const size_t nj = wl_.n_jobs();
  r.job_start.assign(nj, kNaN);
  r.job_finish.assign(nj, kNaN);
  std::vector<double> ready(nj, kNaN);
  std::vector<SimResult> parts(n_apps);
  struct Ref { double start; int32_t app; int64_t i; };
  std::vector<Ref> refs;
  for (int32_t a = 0; a < n_apps; ++a) {
    App& app = apps_[a];
    parts[a] = app.sim->result();
    const SimResult& p = parts[a];
    for (size_t k = 0; k < app.jobs.size(); ++k) {
      r.job_start[app.jobs[k]] = p.job_start[k];
      r.job_finish[app.jobs[k]] = p.job_finish[k];
      ready[app.jobs[k]] = p.job_extra.at("ready")[k];
    }
    for (size_t i = 0; i < p.att_task.size(); ++i) refs.push_back({p.att_start[i], a, static_cast<int64_t>(i)});
    for (const auto& kv : p.counters) r.counters[kv.first] += kv.second;
    r.events += p.events;
    r.end_time = std::max(r.end_time, p.end_time);
  }
  std::stable_sort(refs.begin(), refs.end(), [](const Ref& x, const Ref& y) { return x.start < y.start; });
  std::vector<double> level;
  for (const Ref& f : refs) {
    const App& app = apps_[f.app];
    const SimResult& p = parts[f.app];
    const int32_t lt = p.att_task[f.i];
    const int32_t lj = app.wl.task_job[lt];
    const int32_t gj = app.jobs[lj];
    r.att_task.push_back(static_cast<int32_t>(wl_.task_begin[gj] + (lt - app.wl.task_begin[lj])));
    const int32_t v = p.att_node[f.i];
    r.att_node.push_back(v / app.K);
    int64_t off = -1;  // the grant of executor place v at the attempt's start
    for (const auto& g : app.grants[v])
      if (g.first <= p.att_start[f.i]) off = g.second;
    r.att_slot.push_back(off >= 0 ? cores_[off + p.att_slot[f.i]] : p.att_slot[f.i]);
    r.att_start.push_back(p.att_start[f.i]);
    r.att_finish.push_back(p.att_finish[f.i]);
    r.att_status.push_back(p.att_status[f.i]);
    r.att_locality.push_back(p.att_locality[f.i]);
    r.att_speculative.push_back(p.att_speculative[f.i]);
    level.push_back(p.att_extra.at("spark_locality")[f.i]);
  }
  r.job_extra["ready"] = std::move(ready);
  r.att_extra["spark_locality"] = std::move(level);
  r.counters["applications"] = double(n_apps);
  r.counters["executors_launched"] = double(launched_);
  r.events += master_events;
  r.end_time = std::max(r.end_time, now_);
  return r;
}
}  // namespace

SimResult simulate(const Cluster& cluster, const Workload& workload, bool fair, const std::vector<PoolSpec>& pools,
                   const Options& options, uint64_t seed) {
  Sim sim(cluster, workload, fair, pools, options, seed);
  return sim.run();
}

SimResult simulate_standalone(const Cluster& workers, const Workload& workload, bool fair, const std::vector<PoolSpec>& pools,
                              const Options& options, const std::vector<int32_t>& app_of_job,
                              const std::vector<AppSpec>& specs, uint64_t seed) {
  Master m(workers, workload, fair, pools, options, app_of_job, specs, seed);
  return m.run();
}

void register_engine() {
  EngineInfo e;
  e.name = "spark";
  e.summary = "Apache Spark's task scheduler in one application: stages of jobs, resource offers, FIFO/FAIR pools, "
              "delay scheduling, speculation, dynamic allocation";
  e.options = Options::specs();
  e.run = [](const RunRequest& r) {
    const SchedulerInfo& info = find_scheduler(r.scheduler);
    Params sp(info.name, info.params, r.scheduler_params);
    Params op("simulate options (spark engine)", Options::specs(), r.options);
    int32_t n_pools = 0;
    for (int32_t u : r.workload->user) n_pools = std::max(n_pools, u + 1);
    const bool fair = info.name == "spark_fair";
    const std::vector<PoolSpec> pools = parse_pools(sp.has("pools") ? sp.text("pools") : "", n_pools);
    Options o = Options::from(op);
    o.stage_ids = parse_stage_ids(sp.text("stage_ids"), r.workload->n_jobs());
    const std::vector<int32_t> apps = parse_applications(sp.text("applications"), r.workload->n_jobs());
    if (!apps.empty())
      return simulate_standalone(*r.cluster, *r.workload, fair, pools, o, apps,
                                 parse_application_settings(sp.text("application_settings")), r.seed);
    return simulate(*r.cluster, *r.workload, fair, pools, o, r.seed);
  };
  schedlab::register_engine(std::move(e));

  const std::string cite = "Apache Spark 3.5, org.apache.spark.scheduler: TaskSchedulerImpl.resourceOffers, "
                           "TaskSetManager.resourceOffer/getAllowedLocalityLevel, Pool.getSortedTaskSetQueue";
  const ParamSpec stage_ids = ParamSpec::text(
      "stage_ids", "",
      "the Spark stage id of each workload job, 'id,id,...' in job order (task sets are named TaskSet_<id>.0: FAIR "
      "ties compare the names as strings, FIFO orders a Spark job's stages by id); Python fills it from the "
      "workload's job_id labels when they are whole numbers; '': the dense job ids");
  const ParamSpec applications = ParamSpec::text(
      "applications", "",
      "the Spark application of each workload job, 'code,code,...' in job order: several applications share the "
      "cluster's nodes as the workers of a standalone Master (FIFO by arrival, spark.deploy.spreadOut, "
      "spark.cores.max, spark.executor.cores); Python fills it from the workload's 'application' job column; '': "
      "one application whose executors are the nodes");
  const ParamSpec app_settings = ParamSpec::text(
      "application_settings", "",
      "per application code, 'arrival/cores_max/executor_cores;...': its registration time in seconds (empty: its "
      "first job's submission), spark.cores.max and spark.executor.cores (empty or 0: the engine options)");
  SchedulerInfo fifo;
  fifo.name = "spark_fifo";
  fifo.params = {stage_ids, applications, app_settings};
  fifo.engine = "spark";
  fifo.citation = cite + ", FIFOSchedulingAlgorithm";
  fifo.summary = "Spark's FIFO scheduling mode (spark.scheduler.mode=FIFO): task sets by job id, then stage id";
  schedlab::register_scheduler(fifo);
  SchedulerInfo fair;
  fair.name = "spark_fair";
  fair.engine = "spark";
  fair.citation = cite + ", FairSchedulingAlgorithm, FairSchedulableBuilder";
  fair.summary = "Spark's FAIR scheduling mode: pools (weight, minShare, FIFO or FAIR inside) from a fairscheduler.xml";
  fair.params = {ParamSpec::text("pools", "",
                                 "the pools, as schedlab.spark.pools() encodes a fairscheduler.xml file or a dict: "
                                 "'code=name/FIFO|FAIR/weight/minShare;...' by pool (job 'user') code; pools not given are "
                                 "FIFO with weight 1 and minShare 0"),
                 stage_ids, applications, app_settings};
  schedlab::register_scheduler(fair);
}

}  // namespace schedlab::spark

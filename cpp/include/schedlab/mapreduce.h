// The MapReduce slot simulator: Hadoop-1 TaskTrackers that heartbeat to a JobTracker, typed
// map/reduce slots (or one untyped pool, or YARN-style <vcores, memory> containers), map
// locality, a reduce shuffle that cannot end before the job's last map, and slowstart.
//
// A scheduler (mr::Scheduler) is called on heartbeats and other events and acts only through
// the narrow set of operations of mr::Sim (launch, kill, set a node's slot split, timers).
//
// Faults [Wang 2017, §5.3]: time-windowed slowdowns of a node (stragglers), and node crashes
// that stop the node's attempts at once, are noticed by the master only after a detection delay
// (then the attempts fail and the completed map outputs stored there that a reduce still needs
// are lost, so those maps re-run), and end with a restart. Attempts keep their progress as
// Hadoop defines it (map: fraction of input done; reduce: 1/3 copy + 1/3 sort + 1/3 reduce), so
// a slowdown re-times the attempts in flight. A speculator (mr::Speculator, an engine option
// composable with every scheduler) may add speculative attempts.
//
// DAG jobs [Hadoop 1 workflows: Pig, Hive and Oozie run a DAG of stages as a DAG of MapReduce
// jobs]: a job with parents (Workload::parent_job) is submitted to the JobTracker, and so to the
// scheduler, only when its last parent has finished, at max(its submit_time, that finish). The
// scheduler sees that submission time: for such a job `workload().submit_time` reads the time it
// was submitted (JobInProgress's start time, which Hadoop's FIFO and fair-share orders use) once
// it is; JobState::ready holds it for every job.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "schedlab/cluster.h"
#include "schedlab/event_queue.h"
#include "schedlab/huge_pages.h"
#include "schedlab/params.h"
#include "schedlab/random.h"
#include "schedlab/registry.h"
#include "schedlab/results.h"
#include "schedlab/workload.h"

namespace schedlab::mr {

// How slots are accounted on a node.
enum class SlotModel : uint8_t {
  Typed,       // Hadoop 1: map_slots run maps, reduce_slots run reduces (a scheduler may borrow)
  Pooled,      // one pool of map_slots + reduce_slots; the scheduler types a slot when it uses it
  Containers,  // YARN: a task fits when its <vcores, memory> fits in the node's free capacity
};

enum TaskState : uint8_t { kPending = 0, kActive = 1, kDone = 2 };

// One injected fault. Slowdown: between `start` and `end` the node does 1/factor of its normal
// work per second. Crash: at `start` the node stops; the master notices after the detection
// delay (or at the restart, if sooner); the node rejoins, empty, at start + restart_after.
struct Fault {
  enum Kind : uint8_t { Slowdown = 0, Crash = 1 };
  Kind kind = Slowdown;
  int32_t node = 0;
  double start = 0;
  double end = std::numeric_limits<double>::infinity();   // Slowdown: end of the window
  double factor = 1;                                       // Slowdown: duration multiplier (> 0)
  double restart_after = std::numeric_limits<double>::infinity();  // Crash
};

// Parses the `faults` option: items separated by ';', each one of
//   slowdown:NODE:START:END:FACTOR     crash:NODE:AT:RESTART_AFTER     mtbf:MEAN:RESTART_AFTER:HORIZON
// ("inf" is accepted for END and RESTART_AFTER). An mtbf item draws, for every node, crashes with
// exponential times between failures (mean MEAN seconds of uptime) until HORIZON, from a stream of
// the run's seed. Throws std::invalid_argument naming the item.
std::vector<Fault> parse_faults(const std::string& text, int32_t n_nodes, uint64_t seed);

// A node's heartbeat times: c, c + interval, ... each sum rounded as the engine adds them. Returns
// the first of them that is >= `at_or_after`, or the one `max_steps` steps after c if that comes
// first, and the steps taken in `steps`; in O(binades crossed) rather than O(steps).
double heartbeat_chain(double c, double interval, double at_or_after, uint64_t max_steps, uint64_t& steps);

struct Options {
  double heartbeat_interval = -1;  // seconds; < 0 = Hadoop 1's max(1 s * ceil(nodes/100), 0.3 s)
  bool out_of_band_heartbeat = false;  // a node also heartbeats as soon as a task ends on it
  double slowstart = 0.05;             // completed-map fraction before reduces may start
  double rack_local_factor = 1.2;      // map duration multiplier when reading from the rack
  double remote_factor = 1.5;          // map duration multiplier when reading off-rack
  double network_bandwidth = 1.25e8;   // bytes/s a reduce fetches its shuffle input at
  int replication = 3;                 // replicas drawn per map when the workload has none
  double time_limit = std::numeric_limits<double>::infinity();
  double stall_limit = 86400;          // error after this long with tasks pending and nothing running (0 = never)
  double sample_interval = 0;          // > 0: record slot-usage time series every so many seconds
  bool measure_overhead = false;       // time every scheduler callback (counters scheduler_seconds/_calls)
  std::string faults;                  // fault list (see parse_faults)
  double detection_delay = 600;        // seconds from a crash until the master declares the node lost
  std::string speculation = "none";    // speculator name (see speculation.h)
  std::string speculation_params;      // "name:value,..." for the speculator
  // Driven mode (the scheduler harness, schedlab/harness.h; not a simulate option): no periodic
  // heartbeats, no arrivals of their own and no drawn durations. The caller submits jobs
  // (submit_now), advances the clock (advance_to), makes nodes heartbeat (heartbeat_now) and
  // ends attempts (complete, fail, kill) and sets their progress (set_progress) itself.
  bool driven = false;

  static const std::vector<ParamSpec>& specs();
  static Options from(const Params& p);
};

// One attempt of a task: the record the simulation reads and updates while it runs. One cache
// line (64 bytes, aligned), because an attempt's end reads it at a random place among millions.
// What only the results need (a reduce's copy end, a speculative copy's original node, the
// node's speed at launch) is kept apart in per-attempt columns (Sim::copy_end and friends).
struct alignas(64) Attempt {
  int32_t task;
  int32_t node;
  int32_t job;              // its task's job, copied (as stage): an attempt's end reads no per-task array for them
  int32_t prev_same_task;   // previous attempt of the same task, or -1 (attempt ids stay below 2^31)
  double start;
  double finish;       // planned finish while running; actual end once over
  // progress bookkeeping (maps: the whole attempt; reduces: the sort+reduce part after the copy)
  double dur;               // duration of that part at the node's current speed (inf while it is down)
  double done;              // fraction of that part done by time `updated`
  double updated;
  uint8_t status;      // AttemptStatus
  uint8_t locality;    // Locality
  uint8_t slot_type;   // kMap or kReduce: which kind of slot it occupies
  uint8_t speculative;
  uint8_t slots;       // slots of slot_type it holds (> 1: a task borrowing smaller slots, DynamicMR slot weights)
  uint8_t stage;       // its task's stage
  int8_t slot_pos;     // position of the slot on its node (Gantt charts); -1 past 64
};
static_assert(sizeof(Attempt) == 64, "Attempt: keep the per-attempt record in one cache line");

enum : uint8_t { kLost = 4 };  // AttemptStatus extension: succeeded, but its map output was lost with its node

struct JobState {
  int32_t pending[2] = {0, 0};
  int32_t running[2] = {0, 0};  // tasks with at least one running attempt
  int32_t done[2] = {0, 0};
  int32_t running_attempts[2] = {0, 0};
  double start = std::numeric_limits<double>::quiet_NaN();
  double finish = std::numeric_limits<double>::quiet_NaN();
  double map_finish = std::numeric_limits<double>::quiet_NaN();
  bool submitted = false;
  bool map_stage_reported = false;  // on_stage_finished(kMap) was called (only once, even after re-runs)
  double ready = std::numeric_limits<double>::quiet_NaN();  // when it was submitted to the scheduler
  int32_t slowstart_maps = 0;    // completed maps its reduces wait for (slowstart; all maps at most)
  bool reduces_counted = false;  // its remaining reduces are in Sim::remaining_ready_reduces()
  uint8_t ended = 0;  // kKilled or kFailed once ended without success (driven mode: Sim::end_job; or refused
                      // at submission, Scheduler::accepts); finish is then set
};

class Sim;

// What a scheduler reports of its state when asked (the scheduler harness reads it): named values
// per pool (or queue) id, per job id, and for the whole scheduler. Names are the scheduler's own,
// e.g. "map_fair_share"; a scheduler reports what it has.
struct SchedulerReport {
  std::map<std::string, std::vector<double>> pool;  // indexed by pool (queue) id
  std::map<std::string, std::vector<double>> job;   // indexed by job id
  std::map<std::string, std::vector<double>> user;  // indexed by user id
  std::map<std::string, std::vector<double>> node;  // indexed by node id
  std::map<std::string, double> scalar;
};

// A scheduling policy plugged into the MapReduce engine.
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // How the engine accounts this scheduler's slots; read once, when the simulation is set up.
  virtual SlotModel slot_model() const { return SlotModel::Typed; }
  virtual void init(Sim&) {}
  // Whether a job is accepted at its submission (Hadoop's CapacitySchedulerQueue.
  // checkJobSubmissionLimits refuses jobs past its limits); a refused job ends at once, failed
  // (JobState::ended), without tasks run, and on_job_submitted is not called for it.
  virtual bool accepts(Sim&, int32_t /*job*/) { return true; }
  virtual void on_job_submitted(Sim&, int32_t /*job*/) {}
  // Hadoop assigns tasks only here: the node reports its free slots and gets work back.
  virtual void on_heartbeat(Sim&, int32_t node) = 0;
  virtual void on_attempt_finished(Sim&, int64_t /*attempt*/) {}
  virtual void on_stage_finished(Sim&, int32_t /*job*/, int /*stage*/) {}
  virtual void on_job_finished(Sim&, int32_t /*job*/) {}
  virtual void on_timer(Sim&, uint64_t /*tag*/) {}
  // A crashed node was declared lost (its attempts have failed, lost map outputs re-queued).
  virtual void on_node_lost(Sim&, int32_t /*node*/) {}
  // A crashed node rejoined, empty.
  virtual void on_node_restarted(Sim&, int32_t /*node*/) {}
  // Called at the end so a scheduler can add its counters and series.
  virtual void finish(Sim&, SimResult&) {}
  // Its state now, for the scheduler harness (reading only).
  virtual void report(Sim&, SchedulerReport&) {}
  // A job's priority (the workload's priority column) changed while it runs (Hadoop's
  // JobInProgress.setPriority: the scheduler harness); a scheduler that orders or weighs jobs by
  // priority re-sorts.
  virtual void on_priority_changed(Sim&, int32_t /*job*/) {}
  // Runs one of its periodic actions now, by name (the harness drives them as Hadoop's tests do,
  // e.g. fair's "update" and "preempt"); false if it has no such action.
  virtual bool act(Sim&, const std::string& /*action*/) { return false; }
  // Whether a heartbeat that begins with no task pending anywhere, after another such heartbeat,
  // changes nothing that a later decision or the results read (it can launch nothing and keeps
  // no per-heartbeat state that matters). Then, while nothing is pending, the engine lets nodes
  // sleep instead of heartbeating (see Sim::heartbeat); false (the default) keeps every heartbeat.
  virtual bool quiet_without_pending() const { return false; }
};

// A speculative-execution policy, composable with every scheduler: the engine calls it around the
// scheduler on each heartbeat, on its own timers, and when attempts finish. Implementations: schedlab/speculation.h.
class Speculator {
 public:
  virtual ~Speculator() = default;
  virtual void init(Sim&) {}
  // Before the scheduler on a heartbeat (Hadoop 1 offers a job's speculative copy before the
  // pending tasks of the jobs behind it), and after it (slots the scheduler left free).
  virtual void before_heartbeat(Sim&, int32_t /*node*/) {}
  virtual void on_heartbeat(Sim&, int32_t /*node*/) {}
  virtual void on_attempt_finished(Sim&, int64_t /*attempt*/) {}
  virtual void on_timer(Sim&, uint64_t /*tag*/) {}
  virtual void on_node_lost(Sim&, int32_t /*node*/) {}
  virtual void finish(Sim&, SimResult&) {}
  // Its state now, for the scheduler harness (reading only; added to the scheduler's report).
  virtual void report(Sim&, SchedulerReport&) {}
};

using SchedulerFactory = std::function<std::unique_ptr<Scheduler>(const Params&)>;
void register_scheduler(SchedulerInfo info, SchedulerFactory factory);
// A registered mapreduce-engine scheduler built with `given` parameters (validated against its
// declared ones), e.g. for a scheduler that runs another one on a configuration it computes.
std::unique_ptr<Scheduler> make_scheduler(const std::string& name, const ParamValues& given);

class Sim {
 public:
  Sim(const Cluster& cluster, const Workload& workload, Scheduler& scheduler, const Options& options,
      uint64_t seed);
  // Plugs in a speculator (not owned); call before run().
  void set_speculator(Speculator* s) { spec_ = s; }
  SimResult run();

  // ---- driven mode (Options::driven; the scheduler harness) ----
  // start() once; then, in any order: submit_now(job) hands a job to the scheduler now;
  // advance_to(t) runs the timers due up to t and sets the clock to t; heartbeat_now(node) is the
  // node's heartbeat (speculator and scheduler, exactly as in run()); complete(a) ends a running
  // attempt successfully, fail(a) as failed; set_progress(a, p) sets its progress score.
  // collect() returns the results so far. Misuse throws std::invalid_argument.
  void start();
  void advance_to(double t);
  void submit_now(int32_t job);
  void heartbeat_now(int32_t node);
  void complete(int64_t attempt);
  void fail(int64_t attempt);
  void set_progress(int64_t attempt, double progress);
  // The completed maps `job`'s reduces wait for (instead of the slowstart option's share).
  void set_slowstart_maps(int32_t job, int32_t maps);
  // Ends an unfinished job now without success, status kKilled or kFailed (Hadoop's
  // JobInProgress.kill/fail: JobTracker.killJob, or finalizeJob(job, KILLED/FAILED) of its tests):
  // its pending tasks are dropped, the scheduler hears of it (on_job_finished), and its running
  // attempts are killed, or with `keep_attempts` go on holding their slots (a tracker that has not
  // reported them yet) until the caller ends them, which then frees their slots and nothing else.
  void end_job(int32_t job, uint8_t status, bool keep_attempts);
  // hold_jobs(true): a job whose tasks have all succeeded stays unfinished (Hadoop's fake job stays
  // RUNNING, and the schedulers count it) until finalize_job(job) finishes it.
  void hold_jobs(bool hold) { hold_jobs_ = hold; }
  void finalize_job(int32_t job);
  SimResult collect() { return collect(false); }

  // ---- stepping (reinforcement-learning environments: schedlab.gym) ----
  // start() once; then resume() runs events as run() does until a scheduler callback calls
  // pause() (it returns true once that event is fully processed, the clock at its time: the
  // caller may act, e.g. launch(), before resuming) or the run is over (false: no event left,
  // every job finished, or time_limit reached); collect() returns the results. run() itself
  // ignores pause().
  void pause() { pause_ = true; }
  bool resume();

  // ---- reading state ----
  double now() const { return now_; }
  const Cluster& cluster() const { return cluster_; }
  const Workload& workload() const { return wl_; }
  const Options& options() const { return opt_; }
  int32_t n_nodes() const { return static_cast<int32_t>(cluster_.size()); }
  const JobState& job(int32_t j) const { return jobs_[j]; }
  TaskState task_state(int32_t t) const { return static_cast<TaskState>(task_rt_[size_t(t)].state); }
  const Attempt& attempt(int64_t a) const { return attempts_[a]; }
  // A reduce attempt's end of copy (shuffle) phase, NaN until known and for maps.
  double copy_end(int64_t a) const {
    if (dense_copy_end_) return reduce_copy_end_[size_t(a)];
    return attempts_[size_t(a)].stage == kReduce ? reduce_copy_end_[reduce_index(a)] : std::numeric_limits<double>::quiet_NaN();
  }
  int64_t n_attempts() const { return static_cast<int64_t>(attempts_.size()); }
  const std::vector<int32_t>& active_jobs() const { return active_jobs_; }  // submitted, unfinished, in submission order
  bool reduces_allowed(int32_t job) const { return jobs_[job].done[kMap] >= jobs_[job].slowstart_maps; }  // slowstart met
  // Over the submitted, unfinished jobs: tasks of a stage not yet completed, and reduces not yet
  // completed of the jobs past slowstart (Hadoop's remaining map/reduce loads), kept up to date
  // so that schedulers need not sum them over every job at every heartbeat.
  int64_t remaining_tasks(int stage) const { return remaining_[stage]; }
  int64_t remaining_ready_reduces() const { return remaining_ready_reduces_; }
  int32_t map_capacity(int32_t node) const { return nodes_[node].cap[0]; }
  int32_t reduce_capacity(int32_t node) const { return nodes_[node].cap[1]; }
  int32_t running_on(int32_t node, int slot_type) const { return nodes_[node].used[slot_type]; }
  int32_t free_slots(int32_t node, int slot_type) const {  // depends on the slot model
    if (nodes_[node].down) return 0;  // a down node offers nothing
    switch (slot_model_) {
      case SlotModel::Typed: return nodes_[node].cap[slot_type] - nodes_[node].used[slot_type];
      case SlotModel::Pooled: return nodes_[node].cap[0] + nodes_[node].cap[1] - nodes_[node].used[0] - nodes_[node].used[1];
      case SlotModel::Containers: return free_vcores_[node] > 1e-9 && free_mem_[node] > 1e-9 ? 1 : 0;
    }
    return 0;
  }
  double free_vcores(int32_t node) const { return free_vcores_[node]; }
  double free_memory(int32_t node) const { return free_mem_[node]; }
  int32_t total_map_slots() const { return total_cap_[0]; }
  int32_t total_reduce_slots() const { return total_cap_[1]; }
  int64_t total_pending(int stage) const { return total_pending_[stage]; }
  int64_t total_running(int stage) const { return total_running_[stage]; }
  double heartbeat_interval() const { return hb_interval_; }
  Locality locality(int32_t task, int32_t node) const;
  const std::vector<int32_t>& replicas_of(int32_t task, std::vector<int32_t>& scratch) const;
  double expected_duration(int32_t task, int32_t node) const;  // work / speed * locality factor
  Random& rng() { return sched_rng_; }
  uint64_t seed() const { return seed_; }
  uint64_t events_processed() const { return events_; }

  // ---- faults and progress ----
  bool node_up(int32_t node) const { return !nodes_[node].down; }
  double slowdown(int32_t node) const { return slow_[node]; }        // current duration multiplier
  double effective_speed(int32_t node) const {
    return nodes_[node].down ? 0.0 : slow_[node] == 1.0 ? cluster_.speed[node] : cluster_.speed[node] / slow_[node];
  }
  // Hadoop's progress score of a running attempt now, in [0, 1]: maps the fraction of their input
  // processed; reduces 1/3 x copy fraction + 1/3 x sort + 1/3 x reduce. An attempt on a crashed
  // node keeps the progress it had when the node stopped. Finished attempts: 1 if succeeded.
  double progress(int64_t attempt) const;
  // Attempts running on a node (unordered).
  std::span<const int32_t> attempts_on(int32_t node) const {
    const NodeSlots& n = nodes_[node];
    if (n.spilled) return spilled_running_[node];
    return {n.running, size_t(n.n_running)};
  }
  // Running speculative attempts of a job's stage.
  int32_t speculative_running(int32_t job, int stage) const { return spec_running_[2 * job + stage]; }
  int64_t speculative_running_total() const { return spec_running_total_; }
  // Running attempts of a stage over all jobs of a user (the Fair Scheduler's pool), kept up to date.
  int32_t user_running_attempts(int32_t user, int stage) const { return user_running_[2 * user + stage]; }
  const std::vector<Fault>& faults() const { return faults_; }

  // ---- change log, for schedulers that keep job orders across heartbeats ----
  // track_job_changes() (call it in init) opens a log and returns its id: from then on every job
  // whose JobState or running attempts change (submission, a launch, an attempt's end, a
  // re-queued task or lost output) is logged there once until drain_changed_jobs(id, f), which
  // calls f(job) for each and empties that log. Each caller (a scheduler, or one nested in
  // another) gets its own log.
  int track_job_changes() {
    change_logs_.push_back(ChangeLog{std::vector<uint8_t>(wl_.n_jobs(), 0), {}});
    return static_cast<int>(change_logs_.size()) - 1;
  }
  // Whether `job` is in log `log_id` now; and, for a caller that has fully accounted for the
  // launch it just made of a job not logged before it, taking that entry back (it is the last).
  bool job_logged(int log_id, int32_t job) const { return change_logs_[size_t(log_id)].flag[size_t(job)] != 0; }
  void unlog_last(int log_id, int32_t job) {
    ChangeLog& log = change_logs_[size_t(log_id)];
    if (!log.jobs.empty() && log.jobs.back() == job) {
      log.flag[size_t(job)] = 0;
      log.jobs.pop_back();
    }
  }
  template <class F>
  void drain_changed_jobs(int log_id, F&& f) {
    ChangeLog& log = change_logs_[size_t(log_id)];
    for (size_t i = 0; i < log.jobs.size(); ++i) {  // (f may log more: they are drained too)
      log.flag[size_t(log.jobs[i])] = 0;
      f(log.jobs[i]);
    }
    log.jobs.clear();
  }

  // Whether `task` could start on `node` in a slot of `slot_type` now (slot model aware).
  bool fits(int32_t task, int32_t node, int slot_type) const;
  // Attempts of a task, newest first: for (a = last_attempt(t); a >= 0; a = attempt(a).prev_same_task)
  int64_t last_attempt(int32_t task) const { return task_rt_[task].last_attempt; }
  int32_t running_attempts(int32_t task) const { return task_rt_[task].running; }
  void prefetch_task_runtime(int32_t task) const { __builtin_prefetch(&task_rt_[task]); }  // (last_attempt, running_attempts)

  // ---- finding pending tasks of a job (Hadoop's per-job task caches) ----
  // A job's re-queued tasks of a stage (failed attempts, lost map outputs) wait in a list served
  // first, from its front; entries whose task is no longer pending are dropped from the front
  // when a lookup reads the list, so which entry a later lookup meets first depends on when the
  // lookups were made. A scheduler that skips a lookup it knows would launch nothing calls
  // drop_stale_requeued instead, to leave the list as the lookup would have.
  bool has_requeued(int32_t job, int stage) const { return !requeued_[stage][job].empty(); }
  bool any_requeued() const { return requeued_entries_[kMap] + requeued_entries_[kReduce] > 0; }
  void drop_stale_requeued(int32_t job, int stage);
  // A pending map of `job` whose input is on `node` (kNodeLocal), on its rack (kRackLocal) or
  // anywhere (kRemote); returns -1 if none at or better than `max_level`.
  int32_t find_map(int32_t job, int32_t node, Locality max_level) {
    // the common answer while delay scheduling scans job after job for one node: nothing
    // node-local here, read from the node's row of job bits without a call
    // (every pending map found by place, read from two counters, spares the job's own checks)
    if (max_level == kNodeLocal && !fresh_map_on_node(job, node) &&
        (maps_found_by_place() || (requeued_[kMap][job].empty() && !unplaced_maps_[job])))
      return -1;
    return find_map_anywhere(job, node, max_level);
  }
  // Whether some active job may have a never-launched map with input on `node` (its row of job
  // bits: false is exact, true a hint; see PlaceIndex).
  bool fresh_map_on(int32_t node) const {
    const uint64_t* row = node_job_bits_.data() + size_t(node) * size_t(job_words_);
    uint64_t any = 0;
    for (int32_t w = 0; w < job_words_; ++w) any |= row[w];
    return any != 0;
  }
  // fresh_map_on(node) and fresh_map_on_rack(job, rack) with their hints confirmed: a set bit
  // whose group has no pending map left is cleared on the way. While maps_found_by_place(),
  // exact: true only if some active job (that job) has a never-launched map with input there.
  bool confirm_fresh_map_on(int32_t node);
  bool confirm_fresh_map_on_rack(int32_t job, int32_t rack);
  // Whether `job` may have a never-launched map with input on `node` (the node's bit of the job:
  // false is exact; true a hint, which find_map confirms or clears).
  bool fresh_map_on_node(int32_t job, int32_t node) const {
    const int32_t slot = job_slot_[job];
    return (node_job_bits_[size_t(node) * size_t(job_words_) + size_t(slot >> 6)] >> (slot & 63)) & 1;
  }
  // Whether `job` may have a never-launched map with input on `rack` (its rack index's bit; the
  // same kind of hint).
  bool fresh_map_on_rack(int32_t job, int32_t rack) const {
    const auto& has = rack_index_[job].has;
    return !has.empty() && ((has[size_t(rack >> 6)] >> (rack & 63)) & 1);
  }
  // Whether every pending map is a never-launched one with replicas, found through the place
  // indexes only: no map is re-queued and no active job has a map without replicas. Then
  // find_map(j, node, kNodeLocal) is -1 for every job when !fresh_map_on(node), and
  // find_map(j, node, kRackLocal) too unless fresh_map_on_rack(j, rack of node).
  bool maps_found_by_place() const { return requeued_entries_[kMap] == 0 && unplaced_active_jobs_ == 0; }
  int32_t find_reduce(int32_t job);
  int32_t find_pending(int32_t job, int stage) { return stage == kMap ? find_map(job, 0, kRemote) : find_reduce(job); }
  bool has_local_map(int32_t job, int32_t node, Locality max_level);

  // ---- acting ----
  // Starts an attempt of `task` on `node` in a slot of type `slot_type` (default: the task's
  // own stage), holding `slots` such slots (typed slots only; > 1 when a task borrows slots
  // smaller than its own, DynamicMR's slot weights). Throws std::logic_error if the node has no
  // room: schedulers must check.
  int64_t launch(int32_t task, int32_t node, int slot_type = -1, bool speculative = false, int32_t slots = 1);
  void kill(int64_t attempt);
  void set_slots(int32_t node, int32_t map_slots, int32_t reduce_slots);
  void set_timer(double at, uint64_t tag);
  void set_speculator_timer(double at, uint64_t tag);  // delivered to the speculator's on_timer
  void add_counter(const std::string& name, double v) { counters_[name] += v; }
  TimeSeries& series(const std::string& name, const std::vector<std::string>& columns);

 private:
  enum EventKind : uint32_t { kArrival, kHeartbeat, kAttemptEnd, kTimer, kSample, kSpecTimer,
                              kSlowStart, kSlowEnd, kCrash, kDetect, kRestart };
  void submit(int32_t job);
  void arrive(int32_t job);         // its submit_time has come: submit it unless a parent is unfinished
  void release_children(int32_t job);  // `job` finished: submit the children it was the last parent of
  void heartbeat(int32_t node);
  void step(const Event& e);  // one event of run() or resume()
  void wake_sleeping(int32_t node);
  void offer(int32_t node);  // a heartbeat's calls: speculator, scheduler, speculator
  void process(const Event& e);
  void attempt_end(int64_t a);
  void wake_parked_nodes();
  void finish_reduce_copy(int32_t job);
  void schedule_attempt_end(int64_t a);
  void sample();
  void check_stall();  // throws when tasks have waited stall_limit seconds with no attempt computing
  void release(int64_t attempt);
  SimResult collect(bool last);  // last (the end of run()): the attempt records are freed as they are converted
  void note_result_extras(int64_t a, int32_t orig_node, double speed);
  void place_replicas();
  void draw_replicas(const std::vector<std::vector<int32_t>>& rack_nodes, int replicas);  // (place_replicas)
  void build_job_index(int32_t job);
  template <class F>
  void call_scheduler(F&& f);  // runs one scheduler callback, timing it when measure_overhead is set
  double base_duration(const Attempt& at) const;  // `dur` at full speed
  void accrue(int64_t a);                   // bring `done` up to now at the current rate
  void retime(int64_t a);                   // recompute the finish of a running attempt and push its end
  void set_node_rate(int32_t node);         // after a speed change of the node
  void slowdown_event(int32_t fault, bool begin);
  void crash(int32_t node, double restart_after);
  void detect(int32_t node);
  void restart(int32_t node);
  void end_attempt(int64_t a, uint8_t status, double at_time);  // kill or fail: release, re-queue the task if orphaned
  void job_done(int32_t job);  // its tasks have all succeeded: it finishes now
  void requeue(int32_t task);
  bool map_output_needed(int32_t job) const;
  void stall_copies(int32_t job);

  const Cluster& cluster_;
  std::unique_ptr<Workload> own_wl_;  // DAG workloads: a copy whose submit_time becomes the ready time
  const Workload& wl_;
  Scheduler& sched_;
  SlotModel slot_model_;  // the scheduler's
  Options opt_;
  uint64_t seed_;
  EventQueue events_q_;
  Random sched_rng_;
  double now_ = 0;
  double stalled_since_ = std::numeric_limits<double>::quiet_NaN();  // no launch or end since then (NaN = progress)
  uint64_t events_ = 0;
  double hb_interval_ = 1;
  size_t next_job_ = 0;     // next job to arrive (arrivals are pushed one at a time)
  bool started_ = false;
  bool pause_ = false, stepped_out_ = false;  // stepping: a pause asked; the run is over

  // Replicas: task t's input replicas are rep_node_[lo .. hi) for {lo, hi} = rep_range(t); the
  // workload's columns (read in place), or drawn here when it has none: then rep_per_map_ per
  // map, none per reduce, found from the maps before the task's job (map_base_), without a
  // per-task offset.
  struct RepRange {
    int64_t lo, hi;
  };
  RepRange rep_range(int64_t t) const { return rep_range(task_rt_[size_t(t)].job, t); }
  RepRange rep_range(int32_t j, int64_t t) const {  // (task t of job j: no read of its run record)
    if (wl_rep_begin_) return {wl_rep_begin_[t], wl_rep_begin_[t + 1]};
    const int64_t k = t - wl_.task_begin[size_t(j)], m = wl_.n_maps[size_t(j)];
    const int64_t lo = rep_per_map_ * (map_base_[size_t(j)] + std::min(k, m));
    return {lo, k < m ? lo + rep_per_map_ : lo};
  }
  const int64_t* wl_rep_begin_ = nullptr;  // the workload's replica_begin, or null (drawn)
  const int32_t* rep_node_ = nullptr;
  std::unique_ptr<int32_t[]> drawn_rep_node_;
  std::vector<int64_t> map_base_;  // per job: map tasks of the jobs before it (drawn replicas)
  int64_t rep_per_map_ = 0;
  // Drawn replicas are written on replica_drawer_'s thread on large workloads (see
  // place_replicas), job by job: the tasks below tasks_drawn_ have theirs. Readers of a task's
  // replicas wait for them.
  std::atomic<int64_t> tasks_drawn_{0};
  mutable int64_t tasks_drawn_seen_ = 0;  // (the simulation's last reading of tasks_drawn_)
  // On the same thread, once every replica is drawn, the place indexes of the jobs about to
  // arrive are built ahead of their arrival (at most kIndexAheadReplicas replicas' worth not yet
  // taken): per job, index_state_ says who builds it (the thread claims a job from kIndexNone to
  // kIndexBuilding and hands it over as kIndexBuilt; an arrival that finds kIndexNone builds it
  // itself, as kIndexMain). The indexes are the same whoever builds them.
  enum : uint8_t { kIndexNone, kIndexBuilding, kIndexBuilt, kIndexMain };
  std::unique_ptr<std::atomic<uint8_t>[]> index_state_;  // (null: every index is built at arrival)
  std::atomic<int32_t> arrival_front_{0};   // 1 + the highest id of an arrived job
  std::atomic<int64_t> prebuilt_replicas_{0};  // replicas of the indexes built ahead, not yet taken
  void build_indexes_ahead();
  bool take_prebuilt_index(int32_t j);
  void await_replicas(int64_t task_end) const {  // the replicas of the tasks below task_end are drawn
    if (task_end > tasks_drawn_seen_) await_replicas_slow(task_end);
  }
  void await_replicas_slow(int64_t task_end) const;

  std::vector<JobState> jobs_;
  // Per task, what a launch and an attempt's end read and write, in one record (one cache miss
  // each where separate arrays took several): its newest attempt (attempt ids stay below 2^31:
  // launch checks), its job and stage (copied from the workload), its running attempts and its
  // state.
  struct TaskRun {
    int32_t last_attempt;
    int32_t job;
    uint16_t running;  // (launch checks the bound)
    uint8_t stage;
    uint8_t state;     // TaskState
  };
  static_assert(sizeof(TaskRun) == 12);
  std::vector<TaskRun> task_rt_;
  std::vector<Attempt> attempts_;
  // faults in the records' reserved room ahead of the launches on another thread, on large runs
  // (declared after attempts_: stopped before the room is freed)
  PagePopulator attempt_pages_;
  // Apart from the records: the reduce attempts' copy ends (see copy_end()), in launch order with
  // their attempt ids (maps have none: NaN), found by binary search; or, where copy ends are read
  // often (a speculator or faults: progress and re-timing), one per attempt (dense_copy_end_).
  // And two per-attempt columns only the results read (a speculative attempt's original node, else
  // -1; the node's speed at launch).
  std::vector<int32_t> reduce_attempts_;
  std::vector<double> reduce_copy_end_;
  bool dense_copy_end_ = false;  // set by start()
  size_t reduce_index(int64_t a) const {  // (a: a reduce attempt)
    if (dense_copy_end_) return size_t(a);
    return size_t(std::lower_bound(reduce_attempts_.begin(), reduce_attempts_.end(), int32_t(a)) - reduce_attempts_.begin());
  }
  double& copy_end_of(int64_t a) { return reduce_copy_end_[reduce_index(a)]; }  // (a: a reduce attempt)
  std::vector<double> attempt_orig_node_, attempt_speed_at_start_;
  bool keep_result_extras_ = false;  // attempt_orig_node_ and attempt_speed_at_start_ are kept (see note_result_extras)
  std::vector<int32_t> active_jobs_;
  std::vector<int32_t> fresh_cursor_[2];  // next never-launched task per job and stage
  std::vector<std::vector<int32_t>> requeued_[2];  // tasks to re-run, served first
  // Per job, built at submission and freed when it ends: its map tasks grouped by replica node
  // (and by rack) in flat arrays sorted by place, found through a directory of place ranges.
  // Each group is consumed from the back (lowest task index last) skipping tasks launched
  // before, known from launched_maps_.
  // A group's bit (`has`, or the job's bit in node_job_bits_) is set while some task of the
  // group may never have been launched: a launch elsewhere does not touch the groups of a map's
  // other replicas (random places, a cache miss each); a lookup that finds a group's tasks all
  // launched clears its bit, so does the launch of a map its lookup found to be the group's
  // last never-launched one (found_.last), and the job's last never-launched map clears all of
  // them. A set bit is thus a hint that take_local() confirms; a clear bit is exact. A task
  // re-queued after it ran is served from requeued_ first (find_map_anywhere reaches a group only
  // when no re-queued pending map has a replica there), so the index need not track it.
  struct PlaceIndex {
    struct Group {
      int32_t place;  // node (or rack) id; groups are sorted by it
      int32_t begin;  // the group's tasks are tasks[begin .. end)
      int32_t end;
    };
    std::vector<Group> groups;
    std::vector<int32_t> tasks;
    std::vector<uint64_t> has;      // rack index: a bit per rack whose group has fresh tasks
    // the groups of places p with p >> shift == b are groups[dir[b] .. dir[b + 1]): about one
    // group per range, so a place's group is found in a probe or two, without a search
    std::vector<int32_t> dir;
    int shift = 0;
    bool dense = false;  // groups[p] is place p's group, for every place (empty ones too): no directory
    void clear() { *this = PlaceIndex{}; }
  };
  template <bool kPrefetchRun = false>  // true: the caller launches the task found (its run record is prefetched)
  int32_t take_local(PlaceIndex& index, int32_t place);
  struct IndexScratch {  // a place index build's work arrays (one set per thread that builds)
    std::vector<uint64_t> keys, keys2;
    std::vector<int32_t> task_of;
  };
  template <class PlaceOf>
  void build_place_index(PlaceIndex& index, int32_t job, int32_t n_places, bool keep_bits, PlaceOf place_of,
                         IndexScratch& scratch) const;
  void build_place_indexes(int32_t job, IndexScratch& scratch);  // the job's node and rack indexes
  void clear_job_bits(int32_t job);  // every group's bit of the job: none of its maps is unlaunched
  void clear_node_bit(int32_t job, int32_t node) {
    const int32_t slot = job_slot_[job];
    node_job_bits_[size_t(node) * size_t(job_words_) + size_t(slot >> 6)] &= ~(1ULL << (slot & 63));
  }
  void clear_rack_bit(int32_t job, int32_t rack) { rack_index_[job].has[size_t(rack >> 6)] &= ~(1ULL << (rack & 63)); }
  void free_job_index(int32_t job);  // the job ended: its index and slot go
  int32_t find_map_anywhere(int32_t job, int32_t node, Locality max_level);
  std::vector<PlaceIndex> node_index_, rack_index_;
  // The last never-launched map found by the place index, the node it was found for, its job
  // and its locality there (node-local in the node's group, else rack-local); see launch().
  struct {
    int32_t task = -1, node = -1, job = -1;
    Locality locality = kNodeLocal;
    bool last = false;  // the last never-launched map of its group
  } found_;
  bool found_last_ = false;  // take_local<true>'s answer found the last never-launched map of its group
  // The node-local "may have a pending map here" bits, transposed: each active job holds a slot,
  // and each node a row of job_words_ words with a bit per slot. Delay scheduling asks one node
  // about job after job; a row keeps those answers in a few cache lines.
  std::vector<uint64_t> node_job_bits_;
  int32_t job_words_ = 1;
  int32_t n_job_slots_ = 1;  // slots handed out so far (slot 0: jobs not, or no longer, active)
  std::vector<int32_t> job_slot_, free_job_slots_;
  std::vector<int32_t> slot_job_;  // the active job holding each slot
  std::vector<int32_t> unlaunched_maps_;  // per active job: its maps never launched
  // A bit per task, set at a map's first launch: the place index's lookups step over launched
  // entries, at FB-2010 scale two per lookup; read here (a bit per task, where the tasks' run
  // records take 12 bytes) they mostly hit the cache.
  std::vector<uint64_t> launched_maps_;
  bool map_launched(int32_t t) const { return (launched_maps_[size_t(t) >> 6] >> (t & 63)) & 1; }
  std::vector<uint8_t> unplaced_maps_;  // per job: some map has no replica (it may run anywhere)
  int64_t unplaced_active_jobs_ = 0;    // active jobs with unplaced_maps_
  int64_t requeued_entries_[2] = {0, 0};  // entries in requeued_[stage] over all jobs
  IndexScratch index_scratch_;
  std::vector<std::vector<int64_t>> waiting_reduces_;  // reduces in copy phase waiting for maps

  // A node's slots and the attempts running there, in one cache line (a heartbeat, a launch and
  // an attempt's end read and write one line for them): capacity and use per slot type, occupied
  // slot positions, whether it is down, and its running attempts.
  struct alignas(64) NodeSlots {
    static constexpr int kInline = 8;
    int32_t cap[2] = {0, 0};
    int32_t used[2] = {0, 0};
    uint64_t slot_bits = 0;
    uint8_t down = 0;
    uint8_t spilled = 0;         // its running attempts outgrew `running`: in spilled_running_[node]
    int32_t n_running = 0;       // (while not spilled)
    int32_t running[kInline]{};  // its running attempts (ids < 2^31) in attempts_on's order
  };
  std::vector<NodeSlots> nodes_;
  std::vector<std::vector<int32_t>> spilled_running_;  // (sized n_nodes on the first spill)
  void add_running(int32_t node, int64_t a);
  void remove_running(int32_t node, int64_t a);
  std::vector<double> free_vcores_, free_mem_;
  std::vector<uint8_t> parked_;
  std::vector<double> hb_phase_;
  // Sleeping heartbeats: while nothing is pending (and the scheduler is quiet_without_pending, no
  // speculator, no fault to come), a node whose heartbeat found nothing pending stops; the
  // heartbeats it skips would have changed nothing. When something becomes pending, it is woken
  // at the heartbeat of its own chain that the run would have reached next, with the sequence
  // number that heartbeat would have had (so it fires in the same order among simultaneous
  // events), found from a log of the events processed while some node sleeps: their time,
  // sequence number and the queue's next sequence number before each. If the cluster went idle
  // meanwhile, a heartbeat it skipped would have parked it: it resumes as a parked node does.
  struct LogEntry {
    double time;
    uint64_t seq;
    uint64_t counter;
  };
  // Entries are numbered from the first of a sleep; log_ holds those from log_base_ on (older ones
  // are dropped once no sleeping node needs them: compact_log).
  std::vector<LogEntry> log_;
  int64_t log_base_ = 0;
  const LogEntry& entry(int64_t k) const { return log_[size_t(k - log_base_)]; }
  size_t log_compact_at_ = 4096;
  // Per sleeping node, its anchor: a heartbeat (its last real one, or a skipped one) whose time it
  // has and the gap its successor was pushed in (the entry number before whose own pushes it was).
  std::vector<uint8_t> sleeping_;
  std::vector<double> anchor_time_;
  std::vector<int64_t> anchor_gap_;
  std::vector<uint8_t> anchor_skipped_;
  int64_t n_sleeping_ = 0;
  int64_t idle_entry_ = -1;  // the log entry after which nothing ran or waited, or -1
  struct Skipped {          // a skipped heartbeat: its number on the node's chain, time and position
    uint64_t j;
    double time;
    int64_t position;       // the number of logged events processed before it
  };
  Skipped last_skipped(int32_t node, int64_t w);  // the last one processed before log entry w (j = 0: none)
  void compact_log();
  void clear_log();
  bool may_sleep_ = false;   // set by start()
  int64_t fault_events_left_ = 0;
  uint64_t cur_seq_ = 0, cur_counter_ = 0;  // the event being processed: its sequence, the queue's next before it
  struct Woken {
    int32_t node;
    double time;
    int64_t gap;  // pushed between the sequence numbers of log entries gap - 1 and gap
    double parent_time;
    uint8_t parent_virtual;
  };
  std::vector<Woken> woken_;
  uint64_t heartbeats_ = 0, oob_heartbeats_ = 0;
  int32_t total_cap_[2] = {0, 0};
  int64_t total_pending_[2] = {0, 0};
  int64_t total_running_[2] = {0, 0};
  int64_t remaining_[2] = {0, 0};
  int64_t remaining_ready_reduces_ = 0;
  void count_ready_reduces(int32_t job);  // after a job's completed maps changed
  struct ChangeLog {
    std::vector<uint8_t> flag;  // per job: in `jobs`
    std::vector<int32_t> jobs;
  };
  std::vector<ChangeLog> change_logs_;
  void job_changed(int32_t job) {
    for (ChangeLog& log : change_logs_)
      if (!log.flag[size_t(job)]) { log.flag[size_t(job)] = 1; log.jobs.push_back(job); }
  }
  int64_t unfinished_jobs_ = 0;
  bool hold_jobs_ = false;  // driven mode: jobs finish only by finalize_job
  // job dependencies: children of each job (CSR), unfinished parents, and whether it has arrived
  std::vector<int64_t> child_begin_;
  std::vector<int32_t> child_job_;
  std::vector<int32_t> parents_left_;
  std::vector<uint8_t> arrived_;
  int64_t n_parked_ = 0;
  double idle_samples_ = 0;  // samples written in idle spans, without events
  int64_t sched_ns_ = 0;
  uint64_t sched_calls_ = 0;
  std::map<std::string, double> counters_;
  std::map<std::string, TimeSeries> series_;

  // faults and speculation
  Speculator* spec_ = nullptr;
  std::vector<Fault> faults_;
  std::vector<uint8_t> hb_dead_, detect_pending_;
  std::vector<double> slow_, down_since_;
  std::vector<std::vector<int64_t>> node_map_outputs_;  // succeeded map attempts per node (outputs stored there)
  bool keep_map_outputs_ = false;                        // a node may crash: node_map_outputs_ is kept
  std::vector<int32_t> spec_running_;                  // per job and stage
  std::vector<int32_t> user_running_;                  // running attempts per user and stage
  std::vector<int32_t> missing_outputs_;               // per job: crashed, not yet detected nodes holding its map outputs
  std::vector<std::vector<int32_t>> crash_jobs_;       // per node: jobs whose outputs it held when it crashed
  uint64_t crashes_ = 0, lost_outputs_ = 0, failed_attempts_ = 0;
  int64_t spec_running_total_ = 0;

  struct Drawer {  // the thread, asked to stop and joined when the simulation goes
    std::atomic<bool> stop{false};
    std::atomic<uint32_t> wake{0};  // bumped (and waited on) when the thread may go on
    std::thread thread;
    void nudge() {
      wake.fetch_add(1, std::memory_order_release);
      wake.notify_one();
    }
    ~Drawer() {
      stop.store(true, std::memory_order_relaxed);
      nudge();
      if (thread.joinable()) thread.join();
    }
  } replica_drawer_;  // (the last member: joined before anything it reads or writes goes)
};

}  // namespace schedlab::mr

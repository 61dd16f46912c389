// The worker-queue simulator for distributed and hybrid schedulers (Sparrow, Hawk, Eagle and
// the schemes built on them), following the public Hawk/Eagle simulator's semantics
// [the Hawk/Eagle simulator, epfl-labos/eagle@371b51f; Zhou 2019]:
//
//  * Each slot of a node is an independent 1-slot worker with its own probe queue (the
//    simulator's stated equivalence for multi-slot nodes). Worker w belongs to node
//    worker_node(w); workers [0, first_general()) form the short-only partition, the rest the
//    general partition (the simulator's "big" partition is the top of the id range).
//  * Schedulers send probes (reservations) to workers; a probe arrives after the one-way
//    network delay. A free worker takes a probe from its queue (the order is the scheduler's:
//    FIFO, SRPT with a starvation cap, sticky probes...) and asks the probe's job for a task
//    (late binding). The request and its reply take a round trip: the task starts executing
//    2 x delay after the worker took the probe, and a request that finds every task of the
//    job launched frees the worker after the round trip (a no-op reply).
//  * Task durations are the workload's `work`, truncated to whole seconds by default (the
//    simulator's int(float(x))); a job's estimated task duration is the truncated mean of its
//    tasks' estimates; a job is long iff that mean exceeds the cutoff (strict >).
//  * Events at the same time fire in the simulator's class order: task ends, job arrivals,
//    no-op replies, timers, probe deliveries, remaining-time updates; within a class, in
//    creation order.
//
// A scheduler (worker::Scheduler) reacts to job arrivals, probe deliveries, probe selection,
// task requests, task ends, idleness and timers, and acts through worker::Sim.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <new>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedlab/cluster.h"
#include "schedlab/event_queue.h"
#include "schedlab/params.h"
#include "schedlab/random.h"
#include "schedlab/registry.h"
#include "schedlab/results.h"
#include "schedlab/workload.h"

namespace schedlab::worker {

enum class Estimation : uint8_t { Mean, Constant, Random };

struct Options {
  double network_delay = 0.0005;   // one-way, seconds
  double cutoff = 90.5811;         // long iff estimated mean task duration > cutoff
  double short_partition = 0.02;   // fraction of workers reserved for short jobs
  bool truncate = true;            // int(x) on task durations and job mean estimates
  Estimation estimation = Estimation::Mean;
  double estimate_error = 0;       // relative error of Constant / Random estimation
  double window = 60;              // seconds per window of the 'windows' series (0 = off)
  double time_limit = std::numeric_limits<double>::infinity();
  bool measure_overhead = false;   // time every scheduler callback (counters scheduler_seconds/_calls)

  static const std::vector<ParamSpec>& specs();
  static Options from(const Params& p);
};

enum TaskState : uint8_t { kTaskUnlaunched = 0, kTaskRunning = 1, kTaskSuspended = 2, kTaskDone = 3 };
enum ProbeFlags : uint8_t { kProbeLong = 1, kProbeSticky = 2, kProbeStolen = 4 };

// One probe queued at a worker (a slot of a shared pool; its id is the handle schedulers use).
struct Probe {
  int32_t job;
  int32_t pos;  // its entry in the worker's queue array
  uint8_t flags;
};

// A worker's queue is an array of entries in queue order (Sim::queue_begin / queue_end), which
// schedulers that scan whole queues read as one contiguous run (Eagle's SRPT pick). Removed
// probes leave a hole (ref < 0) until the array is compacted on a later append; the first entry
// is never a hole.
struct QueueEntry {
  int32_t ref;  // probe id x 2 + 1 if the probe is long; -1: a hole
  int32_t job;
  double acc;   // delay accumulated from probes that bypassed it (Eagle's starvation cap)
  bool live() const { return ref >= 0; }
  int32_t probe() const { return ref >> 1; }
  bool is_long() const { return ref & 1; }
};

// A worker's state, one cache line (what a suspended task needs to resume lives apart, in Sim).
struct alignas(64) WorkerState {
  int32_t qlen = 0;
  int32_t qlong = 0;            // long probes queued
  int64_t attempt = -1;         // attempt running (or being set up) on the slot, -1 if none
  double busy_since = 0;        // when the slot was taken
  uint8_t busy = 0;             // slot taken (request in flight, task running, suspending, resuming)
  uint8_t exec_long = 0;        // the slot was taken for a long probe ("executing_big"; Sim::long_run)
  uint8_t resume_due = 0;       // the suspension timer of the suspended task expired
  int32_t suspended_task = -1;  // a long task suspended on this worker
};

// Window statistics handed to the scheduler at the end of each window.
struct WindowStats {
  double start, end;
  double short_wait_mean;  // mean waiting time (start - submit) of short tasks started in the window; NaN if none
  int64_t short_tasks;
  double util, util_short, util_general;  // time-averaged busy fraction of the slots
};

class Sim;

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual void init(Sim&) {}
  virtual void on_job_arrival(Sim&, int32_t job) = 0;
  // A probe has just been appended to worker w's queue (before the worker may serve it): it is
  // the queue array's last entry (queue_end(w) - 1).
  virtual void on_probe_arrival(Sim&, int32_t /*w*/, int32_t /*probe*/) {}
  // The probe worker w serves next, or -1. May drop stale probes with Sim::drop_probe.
  // With short_only, long probes must be skipped (a long task is suspended on w).
  virtual int32_t pick_probe(Sim& sim, int32_t w, bool short_only);
  // The same choice as its entry in w's queue array, nullptr if none: what the engine calls. The
  // default asks pick_probe; a scheduler that finds the entry itself overrides both (the engine
  // then reads the probe's job from the entry, in the queue it just scanned, instead of from the
  // probe's record, a cache miss when the probe was queued long ago).
  virtual const QueueEntry* pick_entry(Sim& sim, int32_t w, bool short_only);
  // The task a request for `job` from worker w gets, or -1 for a no-op reply. *clone is set to
  // true when the task handed out is a second copy of a running task.
  virtual int32_t choose_task(Sim& sim, int32_t w, int32_t job, bool* clone);
  // Whether the probe stays queued after its request got a task (sticky probing).
  virtual bool keep_probe(Sim&, int32_t /*w*/, int32_t /*probe*/) { return false; }
  // Execution time of a copy of `task` launched on worker w (default: the task's duration; a
  // scheduler may model e.g. a speedup from migrated input or a clone's own runtime).
  virtual double task_duration(Sim& sim, int32_t w, int32_t task, bool clone);
  virtual void on_launch(Sim&, int32_t /*w*/, int64_t /*attempt*/) {}
  virtual void on_task_end(Sim&, int32_t /*w*/, int64_t /*attempt*/, bool /*first_copy*/) {}
  // Worker w's slot has just been freed (task end or no-op reply) and its queue is empty.
  virtual void on_idle(Sim&, int32_t /*w*/) {}
  virtual void on_window(Sim&, const WindowStats&) {}
  virtual void on_timer(Sim&, uint32_t /*a*/, uint64_t /*tag*/) {}
  virtual void finish(Sim&, SimResult&) {}
  // Whether remaining-time updates (Eagle's SRPT bookkeeping) are needed.
  virtual bool tracks_remaining() const { return false; }
};

using SchedulerFactory = std::function<std::unique_ptr<Scheduler>(const Params&)>;
void register_scheduler(SchedulerInfo info, SchedulerFactory factory);
// A built-in worker-engine scheduler by name, with parameters checked (tests, environments).
std::unique_ptr<Scheduler> make_scheduler(const std::string& name, const ParamValues& given);

class Sim {
 public:
  Sim(const Cluster& cluster, const Workload& workload, Scheduler& scheduler, const Options& options, uint64_t seed);
  SimResult run();

  // ---- stepping (reinforcement-learning environments: schedlab.gym) ----
  // start() once; then resume() runs events as run() does until a scheduler callback calls
  // pause() (it returns true once that event is fully processed, the clock at its time: the
  // caller may act, e.g. send_probes() or kick(), before resuming) or the run is over (false: no
  // event left, every job finished, or time_limit reached). collect() returns the results so far
  // (the scheduler's finish() is called each time). run() itself ignores pause().
  void start();
  void pause() { pause_ = true; }
  bool resume();
  SimResult collect();

  // ---- reading state ----
  double now() const { return now_; }
  const Options& options() const { return opt_; }
  const Workload& workload() const { return wl_; }
  double delay() const { return opt_.network_delay; }
  int32_t n_workers() const { return static_cast<int32_t>(workers_.size()); }
  int32_t first_general() const { return first_general_; }  // workers [0, first_general) are short-only
  int32_t worker_node(int32_t w) const { return worker_node_[w]; }
  const WorkerState& worker(int32_t w) const { return workers_[w]; }
  // The long probe worker w's slot was taken for (WorkerState::exec_long): when, and its job's
  // estimated task duration (>= 0); est == -1 while the slot is not taken for a long probe. Kept
  // apart from the worker records, 16 bytes a worker, for scans over every worker (Hawk's and
  // Eagle's least-waiting-time placement reads nothing else of a worker's state).
  struct LongRun {
    double start, est;
  };
  const LongRun& long_run(int32_t w) const { return long_run_[w]; }
  // Whether worker w runs, queues or holds suspended long work.
  bool has_long_work(int32_t w) const { return long_work_[w] != 0; }
  bool is_long(int32_t job) const { return job_long_[job] != 0; }
  double est(int32_t job) const { return job_srpt_[job].est; }  // estimated duration of each task of the job
  double duration(int32_t task) const {  // actual (truncated) duration
    const double w = work_ ? work_[task] : wl_.work[task];
    return opt_.truncate ? std::trunc(w) : w;
  }
  int64_t task_begin(int32_t job) const { return wl_.task_begin[job]; }
  int32_t n_tasks(int32_t job) const { return static_cast<int32_t>(wl_.task_begin[job + 1] - wl_.task_begin[job]); }
  int32_t unlaunched(int32_t job) const { return n_tasks(job) - job_launched_[job]; }
  double remaining(int32_t job) const { return job_srpt_[job].remaining; }  // SRPT: -1 once nothing is left
  double submit(int32_t job) const { return submit_[job]; }
  TaskState task_state(int32_t t) const { return static_cast<TaskState>(task_sc_[2 * size_t(t)]); }
  int32_t task_copies(int32_t t) const { return task_sc_[2 * size_t(t) + 1]; }  // copies ever launched (clones)
  int32_t suspensions(int32_t t) const { return task_susp_[t]; }
  const Probe& probe(int32_t p) const { return pool_[p]; }
  void prefetch_probe(int32_t p) const { __builtin_prefetch(&pool_[p]); }
  // The first probe of worker w's queue, -1 if it is empty.
  int32_t queue_head(int32_t w) const { return workers_[w].qlen ? queues_[w].data()[queues_[w].first].probe() : -1; }
  // Worker w's queue array [queue_begin, queue_end): holes (!live()) among the probes in queue
  // order. Stays valid while no probe is added to w's queue (dropping probes is fine).
  QueueEntry* queue_begin(int32_t w) { return queues_[w].data() + queues_[w].first; }
  QueueEntry* queue_end(int32_t w) { return queues_[w].data() + queues_[w].size(); }
  // The entry of probe p, queued at worker w.
  QueueEntry* queue_entry(int32_t w, int32_t p) { return queues_[w].data() + pool_[p].pos; }
  int32_t att_task(int64_t a) const { return res_.att_task[a]; }
  double att_start(int64_t a) const { return res_.att_start[a]; }
  double att_finish(int64_t a) const { return res_.att_finish[a]; }
  bool att_is_clone(int64_t a) const { return res_.att_speculative[a] != 0; }
  bool att_running(int64_t a) const { return res_.att_status[a] == kRunning; }
  int32_t att_worker(int64_t a) const { return node_first_worker_[res_.att_node[a]] + res_.att_slot[a]; }
  Random& rng() { return rng_; }
  uint64_t events_processed() const { return events_; }
  int64_t busy_workers() const { return busy_short_ + busy_general_; }  // slots taken now

  // ---- acting ----
  // Sends one probe of `job` to each of targets[0..n) (repeats allowed), arriving after `delay`.
  void send_probes(int32_t job, const int32_t* targets, size_t n, double delay);
  // The next unlaunched task of `job` in trace order, or -1 (the default task choice).
  int32_t next_task(int32_t job) const;
  // Removes a probe from worker w's queue and frees it.
  void drop_probe(int32_t w, int32_t p);
  // The same for the probe of entry e of w's queue array (a live entry in [queue_begin,
  // queue_end)): it reads the entry only, not the probe's slot (a queue scan dropping stale probes
  // touches no probe record, which would be a cache miss each).
  void drop_entry(int32_t w, QueueEntry* e);
  // Moves a probe from worker `from`'s queue to the tail of worker `to`'s queue.
  void move_probe(int32_t from, int32_t to, int32_t p);
  // Serves worker w's queue if its slot is free (after a scheduler added probes to it).
  void kick(int32_t w) { serve(w); }
  // Suspends the long task running on w (it must have started executing): the slot stays busy
  // for `suspend_delay`, then serves short probes only; the task resumes with its remaining work
  // plus `resume_delay` once `timeout` has passed and the running short task ends, or as soon
  // as w has no short probe left. Returns false (doing nothing) if w runs no long task.
  bool suspend(int32_t w, double suspend_delay, double timeout, double resume_delay);
  // Stops attempt `a`, executing on worker w, now (e.g. a redundant copy of a finished task): it
  // ends as killed, and the slot frees and serves its queue. Returns false (doing nothing) if a
  // is not the attempt executing on w.
  bool stop_attempt(int32_t w, int64_t a);
  void set_timer(double at, uint32_t a, uint64_t tag);
  void add_counter(const std::string& name, double v) { counters_[name] += v; }
  TimeSeries& series(const std::string& name, const std::vector<std::string>& columns);
  std::vector<double>& att_extra(const std::string& name);  // per-attempt extra column (NaN-filled)

 private:
  enum EventKind : uint32_t { kTaskEnd, kArrival, kNoop, kTimer, kWindow, kSuspendDone, kResumeDue, kProbeBatch, kUpdate };
  struct Delivery {
    int32_t job;
    std::vector<int32_t> targets;
  };
  void serve(int32_t w);
  // p: the probe served, at position pos of w's queue (or -1: none)
  void launch(int32_t w, int32_t p, int32_t pos, int32_t task, bool clone);
  // Drops the probe p just picked at position pos of w's queue through its queue entry: its own
  // record, written when it was queued long before, is not read (it would wait for memory).
  void drop_picked(int32_t w, int32_t pos, int32_t p);
  void resume(int32_t w);
  void free_slot(int32_t w);
  // A task end event: worker w, attempt a (< 2^32) and its task in the payload.
  void push_task_end(double at, int32_t w, int64_t a, int32_t task);
  void task_end(int32_t w, int64_t a, int32_t task);
  void deliver(int32_t d);
  bool loop();  // runs events; true if a scheduler paused (stepping), false once the run is over
  SimResult finish_result(SimResult r, bool last);
  void set_busy(int32_t w, bool busy);
  void close_window();
  // closes the windows of an idle span before the next arrival without events; returns the
  // time of the next window to queue
  double idle_windows(double next);
  [[noreturn]] void throw_never_finish() const;
  // Cache prefetches of worker w's record, queue header and own probe slots; of its queue array.
  void prefetch_worker(int32_t w) const {
    __builtin_prefetch(&workers_[w]);
    __builtin_prefetch(&queues_[w]);
    __builtin_prefetch(reinterpret_cast<const char*>(&queues_[w]) + 64);
    __builtin_prefetch(&pool_[static_cast<size_t>(w) * kOwnProbes]);
  }
  void prefetch_queue(int32_t w) const {
    const QueueArray& qa = queues_[w];
    if (qa.on_heap()) {
      __builtin_prefetch(qa.heap + qa.first);
      __builtin_prefetch(qa.heap + qa.n);
    }
  }
  int32_t alloc_probe(int32_t w);
  void free_probe(int32_t p);
  void append(int32_t w, int32_t p, int32_t job, uint8_t flags, double acc = 0.0);
  void unlink(int32_t w, int32_t p) { unlink_at(w, pool_[p].pos, (pool_[p].flags & kProbeLong) != 0); }
  void unlink_at(int32_t w, int32_t pos, bool is_long);
  int64_t new_attempt(int32_t task, int32_t w, double start, double finish, bool clone);

  const Cluster& cluster_;
  const Workload& wl_;
  Scheduler& sched_;
  Options opt_;
  EventQueue q_;
  Random rng_;
  double now_ = 0;
  uint64_t events_ = 0;
  size_t next_job_ = 0;
  bool started_ = false, stepping_ = false, pause_ = false, stepped_out_ = false;

  int32_t first_general_ = 0;
  std::vector<int32_t> worker_node_, worker_slot_, node_first_worker_;
  std::vector<WorkerState> workers_;
  // has_long_work per worker, kept apart from the worker records: Eagle's probing reads it for
  // every probe, on random workers (one byte each instead of a record's cache line)
  std::vector<uint8_t> long_work_;
  std::vector<LongRun> long_run_;  // long_run(w): written where exec_long changes
  void refresh_long_work(int32_t w) {
    const WorkerState& s = workers_[w];
    long_work_[w] = s.exec_long || s.qlong > 0 || s.suspended_task >= 0;
  }
  // Probes: each worker owns kOwnProbes slots side by side at the start of the pool, in one
  // aligned cache line (the probes it receives take them first, so a short queue's probes are
  // one line, fetched with the worker's record); the rest of the pool is shared, with a free list.
  static constexpr int32_t kOwnProbes = 4;
  class ProbePool {
   public:
    Probe& operator[](size_t i) { return lines_[i / kOwnProbes].p[i % kOwnProbes]; }
    const Probe& operator[](size_t i) const { return lines_[i / kOwnProbes].p[i % kOwnProbes]; }
    size_t size() const { return n_; }
    void reserve(size_t n) { lines_.reserve((n + kOwnProbes - 1) / kOwnProbes); }
    void resize(size_t n) {
      lines_.resize((n + kOwnProbes - 1) / kOwnProbes);
      n_ = n;
    }
    void push_back(const Probe& x) {
      if (n_ == lines_.size() * kOwnProbes) lines_.emplace_back();
      (*this)[n_++] = x;
    }

   private:
    struct alignas(64) Line {
      Probe p[kOwnProbes];
    };
    static_assert(sizeof(Line) == 64, "a worker's own probe slots are one cache line");
    std::vector<Line> lines_;
    size_t n_ = 0;
  };
  ProbePool pool_;
  std::vector<uint8_t> own_free_;  // per worker: bit i set = its slot i is free
  // A worker's queue array: up to kInline entries inside the record itself, with the header (a
  // short queue, the usual one, is one aligned pair of cache lines), longer queues on the heap.
  // A queue that empties goes back to the record (its heap block is kept for the next long
  // spell), and a full record is compacted before the queue moves out to the heap.
  struct alignas(128) QueueArray {
    static constexpr int32_t kInline = 6;
    QueueEntry* heap = nullptr;  // the heap block (kept while the entries are inline again)
    int32_t n = 0, cap = kInline;  // cap == kInline: the entries are in inline_
    int32_t first = 0;  // entries before it are holes
    int32_t holes = 0;
    int32_t heap_cap = 0;
    QueueEntry inline_[kInline];
    bool on_heap() const { return cap != kInline; }
    QueueEntry* data() { return on_heap() ? heap : inline_; }
    const QueueEntry* data() const { return on_heap() ? heap : inline_; }
    size_t size() const { return static_cast<size_t>(n); }
    QueueEntry& operator[](size_t i) { return data()[i]; }
    void clear() {
      n = 0;
      cap = kInline;
    }
    void shrink(size_t k) { n = static_cast<int32_t>(k); }
    void push_back(const QueueEntry& x) {
      if (n == cap) grow();
      data()[n++] = x;
    }
    void grow() {
      if (!on_heap() && heap_cap >= 2 * kInline) {
        std::copy(inline_, inline_ + n, heap);
        cap = heap_cap;
        return;
      }
      const int32_t c = on_heap() ? 2 * cap : std::max(2 * kInline, heap_cap);
      QueueEntry* h = new QueueEntry[static_cast<size_t>(c)];
      std::copy(data(), data() + n, h);
      delete[] heap;
      heap = h;
      heap_cap = cap = c;
    }
    QueueArray() = default;
    QueueArray(QueueArray&& o) noexcept
        : heap(o.heap), n(o.n), cap(o.cap), first(o.first), holes(o.holes), heap_cap(o.heap_cap) {
      std::copy(o.inline_, o.inline_ + kInline, inline_);
      o.heap = nullptr;
      o.heap_cap = 0;
      o.cap = kInline;
    }
    QueueArray(const QueueArray&) = delete;
    QueueArray& operator=(const QueueArray&) = delete;
    ~QueueArray() { delete[] heap; }
  };
  static_assert(sizeof(QueueArray) == 128, "a queue array's record is two cache lines");
  std::vector<QueueArray> queues_;
  std::vector<int32_t> free_probes_;
  struct Suspension {
    double remaining = 0;     // work left of the suspended task
    double resume_delay = 0;
    uint64_t gen = 0;         // invalidates the timers of an earlier suspension
  };
  std::vector<Suspension> susp_;
  std::vector<Delivery> deliveries_;
  std::vector<int32_t> free_deliveries_;

  // jobs
  std::vector<double> submit_;
  struct JobSrpt {
    double remaining, est;  // read together by an SRPT pick: one cache line
  };
  std::vector<JobSrpt> job_srpt_;
  std::vector<uint8_t> job_long_;
  std::vector<int32_t> job_launched_, job_done_;
  mutable std::vector<int64_t> job_cursor_;
  // tasks
  const double* work_ = nullptr;  // the workload's work per task (null if held per job and stage)
  // A byte per task, zero-filled by calloc: the system hands out zeroed pages, each touched only
  // when a task's byte in it is first written (no pass writing zeros over 15 M tasks' pages).
  class TaskBytes {
   public:
    void assign_zeros(size_t n) {
      p_.reset(static_cast<uint8_t*>(std::calloc(n ? n : 1, 1)));
      if (!p_) throw std::bad_alloc();
    }
    uint8_t& operator[](size_t i) { return p_.get()[i]; }
    uint8_t operator[](size_t i) const { return p_.get()[i]; }

   private:
    struct Free {
      void operator()(uint8_t* p) const { std::free(p); }
    };
    std::unique_ptr<uint8_t[], Free> p_;
  };
  // a task's state and its copies launched side by side (a launch writes both: one cache line)
  TaskBytes task_sc_;
  uint8_t& task_state_at(size_t t) { return task_sc_[2 * t]; }
  uint8_t& task_copies_at(size_t t) { return task_sc_[2 * t + 1]; }
  TaskBytes task_susp_;
  int64_t unfinished_ = 0;

  // windows and utilization
  double win_start_ = 0, busy_mark_ = 0;
  int64_t busy_short_ = 0, busy_general_ = 0;
  double busy_int_short_ = 0, busy_int_general_ = 0;
  double win_wait_sum_ = 0;
  int64_t win_wait_n_ = 0;
  double idle_windows_ = 0;  // windows closed in idle spans, without events

  SimResult res_;
  std::map<std::string, double> counters_;
  std::map<std::string, TimeSeries> series_;
  uint64_t noops_ = 0, launches_ = 0, clones_ = 0;
  double probes_ = 0;  // probes sent (counter "probes")
};

}  // namespace schedlab::worker

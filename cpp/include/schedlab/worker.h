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

// One probe queued at a worker, as Sim::probe(p) describes it (its id is the handle schedulers use).
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
  int32_t ref;  // probe id x 8 + the probe's flags (ProbeFlags); -1: a hole
  int32_t job;
  double acc;   // delay accumulated from probes that bypassed it (Eagle's starvation cap)
  bool live() const { return ref >= 0; }
  int32_t probe() const { return ref >> 3; }
  uint8_t flags() const { return static_cast<uint8_t>(ref & 7); }
  bool is_long() const { return ref & kProbeLong; }
};

// A worker's state, as Sim::worker(w) describes it (the engine keeps it in the worker's record,
// beside its queue; what a suspended task needs to resume lives apart, in Sim).
struct WorkerState {
  int32_t qlen = 0;             // probes queued
  int32_t qlong = 0;            // long probes queued
  int64_t attempt = -1;         // attempt running (or being set up) on the slot, -1 if none
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
  // The task a request for `job` from worker w gets (a task of `job`), or -1 for a no-op reply.
  // *clone is set to true when the task handed out is a second copy of a running task.
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
  int32_t n_workers() const { return n_workers_; }
  int32_t first_general() const { return first_general_; }  // workers [0, first_general) are short-only
  int32_t worker_node(int32_t w) const { return worker_node_[w]; }
  WorkerState worker(int32_t w) const {
    const Rec& r = recs_[w];
    return WorkerState{r.qlen(), r.qlong, r.attempt == kNoAttempt ? int64_t(-1) : int64_t(r.attempt), r.busy, r.exec_long,
                       r.resume_due, r.suspended_task};
  }
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
  // Probe p while it is queued (its job, its entry's position, its flags); job -1 if p is no probe.
  Probe probe(int32_t p) const;
  // The flags of probe p, queued. Those of the probe that has just arrived (on_probe_arrival) or
  // was just picked (choose_task, keep_probe, task_duration, on_launch) are at hand: they are
  // not read from its entry or record, written an instant before or long ago (a cache miss).
  uint8_t probe_flags(int32_t p) const { return p == hint_probe_ ? hint_flags_ : probe(p).flags; }
  // The first probe of worker w's queue, -1 if it is empty.
  int32_t queue_head(int32_t w) const { return recs_[w].qlen() ? recs_[w].data()[recs_[w].first].probe() : -1; }
  // Worker w's queue array [queue_begin, queue_end): holes (!live()) among the probes in queue
  // order. Stays valid while no probe is added to w's queue (dropping probes is fine).
  QueueEntry* queue_begin(int32_t w) { return recs_[w].data() + recs_[w].first; }
  QueueEntry* queue_end(int32_t w) { return recs_[w].data() + recs_[w].n; }
  // The array's position 0 (at or before queue_begin), and a number that changes whenever its
  // entries move to other positions: until it does, a position holds the same probe or a hole.
  QueueEntry* queue_data(int32_t w) { return recs_[w].data(); }
  uint32_t queue_layout(int32_t w) const { return recs_[w].layout; }
  // The entry of probe p, queued at worker w (nullptr if it is not queued there).
  QueueEntry* queue_entry(int32_t w, int32_t p) {
    const int32_t pos = pos_in(w, p);
    return pos < 0 ? nullptr : recs_[w].data() + pos;
  }
  int32_t att_task(int64_t a) const { return res_.att_task[a]; }
  double att_start(int64_t a) const { return res_.att_start[a]; }
  double att_finish(int64_t a) const { return res_.att_finish[a]; }
  bool att_is_clone(int64_t a) const { return res_.att_speculative[a] != 0; }
  bool att_running(int64_t a) const { return res_.att_status[a] == kRunning; }
  int32_t att_worker(int64_t a) const { return node_first_worker_[res_.att_node[a]] + res_.att_slot[a]; }
  Random& rng() { return rng_; }
  // A cache prefetch of worker w's record (its state, queue header, own probes and short queue),
  // for a scheduler about to read a random worker's state or queue.
  void prefetch_worker(int32_t w) const {
    __builtin_prefetch(&recs_[w]);
    __builtin_prefetch(reinterpret_cast<const char*>(&recs_[w]) + 64);
  }
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
  // The same for the probe of entry e of from's queue array (a live entry in [queue_begin,
  // queue_end)); if to != from, from's array stays valid (the entry becomes a hole).
  void move_entry(int32_t from, int32_t to, QueueEntry* e);
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
  void launch(int32_t w, int32_t p, int32_t pos, int32_t job, int32_t task, bool clone);
  // The entry at position pos of w's queue if it still holds probe p, just picked there, else
  // nullptr (the scheduler moved the queue meanwhile): the engine reaches a picked probe through
  // its entry, not through a lookup by id.
  QueueEntry* picked_entry(int32_t w, int32_t pos, int32_t p);
  // Drops the probe p just picked at position pos of w's queue, through its entry when there.
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
  // What a launch of task t reads of the per-task columns: its state and duration.
  void prefetch_task(size_t t) const {
    if (t >= wl_.n_tasks()) return;
    __builtin_prefetch(task_sc_.data() + 2 * t);
    if (work_) __builtin_prefetch(work_ + t);
  }
  // A cache prefetch of worker w's queue array when on the heap. Whether it is comes from
  // heap_q_, not from w's record: most queues are in their records, and reading a record
  // fetched only an instant before would wait for memory for nothing.
  void prefetch_queue(int32_t w) const {
    if (!heap_q_[w]) return;
    const Rec& qa = recs_[w];
    __builtin_prefetch(qa.heap + qa.first);
    __builtin_prefetch(qa.heap + qa.n);
  }
  int32_t alloc_probe(int32_t w);
  void free_probe(int32_t p);
  void append(int32_t w, int32_t p, int32_t job, uint8_t flags, double acc = 0.0);
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
  int32_t n_workers_ = 0;
  // has_long_work per worker, kept apart from the worker records: Eagle's probing reads it for
  // every probe, on random workers (one byte each instead of a record's cache line)
  std::vector<uint8_t> long_work_;
  std::vector<uint8_t> heap_q_;  // per worker: its record's on_heap (written where append changes it)
  std::vector<LongRun> long_run_;  // long_run(w): written where exec_long changes
  // Probes: each worker owns kOwnProbes ids (w x kOwnProbes + i), free or not as its record says
  // (such a probe is found by its id in the queue it is in: the engine itself reaches probes
  // through their entries); the ids above are shared, their worker and position in shared_
  // (with a free list). A worker's queue takes a shared id only once it holds more probes than
  // it owns: an arrival writes the worker's record only, not a record elsewhere.
  static constexpr int32_t kOwnProbes = 32;
  static constexpr uint32_t kNoAttempt = 0xFFFFFFFFu;
  // A worker's record, one aligned pair of cache lines: its state, its queue array's header, which
  // of its own probe ids are free and up to kInline queue entries. A short queue (the usual one) is all there; longer
  // queues move to the heap. A queue that empties goes back to the record (its heap block is kept
  // for the next long spell), and a full record is compacted before the queue moves out (a full
  // heap block before it grows, when at least half of it is removed probes). Probes
  // go to random workers: one record is all that a probe's arrival or a task's end fetches of its
  // worker.
  struct alignas(128) Rec {
    static constexpr int32_t kInline = 5;
    static constexpr int32_t kFirstHeap = 128;  // entries of a first heap block (then x4)
    QueueEntry* heap = nullptr;  // the heap block (kept while the entries are inline again)
    int32_t n = 0;               // entries (holes included)
    int32_t first = 0;           // entries before it are holes
    int32_t holes = 0;           // holes in [first, n)
    int32_t heap_cap = 0;
    int32_t qlong = 0;           // long probes queued
    int32_t suspended_task = -1; // a long task suspended on this worker
    uint32_t attempt = kNoAttempt;  // attempt running (or being set up) on the slot
    uint32_t own_free = ~0u;     // bit i set = own probe i is free
    uint8_t busy = 0, exec_long = 0, resume_due = 0;
    uint8_t on_heap = 0;         // the entries are in the heap block
    uint32_t layout = 0;         // changes whenever entries move to other positions (compaction, clear)
    QueueEntry inline_[kInline];
    int32_t qlen() const { return n - first - holes; }
    int32_t cap() const { return on_heap ? heap_cap : kInline; }
    QueueEntry* data() { return on_heap ? heap : inline_; }
    const QueueEntry* data() const { return on_heap ? heap : inline_; }
    size_t size() const { return static_cast<size_t>(n); }
    QueueEntry& operator[](size_t i) { return data()[i]; }
    void clear() {
      n = first = holes = 0;
      on_heap = 0;
    }
    void shrink(size_t k) { n = static_cast<int32_t>(k); }
    void push_back(const QueueEntry& x) {
      if (n == cap()) grow();
      data()[n++] = x;
    }
    void grow() {
      if (!on_heap && heap_cap >= kFirstHeap) {
        std::copy(inline_, inline_ + n, heap);
        on_heap = 1;
        return;
      }
      // (a queue that outgrows the record is often an overloaded worker's, which goes on
      // growing: few large steps, each an allocation and a copy)
      const int32_t c = on_heap ? 4 * heap_cap : std::max(kFirstHeap, heap_cap);
      QueueEntry* h = new QueueEntry[static_cast<size_t>(c)];
      std::copy(data(), data() + n, h);
      delete[] heap;
      heap = h;
      heap_cap = c;
      on_heap = 1;
    }
    Rec() = default;
    Rec(const Rec&) = delete;
    Rec& operator=(const Rec&) = delete;
    ~Rec() { delete[] heap; }
  };
  static_assert(sizeof(Rec) == 128, "a worker's record is two cache lines");
  // A shared probe's worker and position (its job and flags are its entry's).
  struct SharedProbe {
    int32_t w, pos;
  };
  std::unique_ptr<Rec[]> recs_;
  void refresh_long_work(int32_t w) {
    const Rec& s = recs_[w];
    long_work_[w] = s.exec_long || s.qlong > 0 || s.suspended_task >= 0;
  }
  std::vector<SharedProbe> shared_;  // probes [n_workers x kOwnProbes, ...)
  std::vector<int32_t> free_probes_;
  // the worker a worker's own probe is queued at if another (moved there), else -1; allocated on
  // the first move
  std::vector<int32_t> moved_to_;
  int32_t worker_of(int32_t p) const {
    if (!own(p)) return shared(p).w;
    return !moved_to_.empty() && moved_to_[p] >= 0 ? moved_to_[p] : p / kOwnProbes;
  }
  // the probe that just arrived or was just picked, and its flags (probe_flags)
  int32_t hint_probe_ = -1;
  uint8_t hint_flags_ = 0;
  bool own(int32_t p) const { return p < n_workers_ * kOwnProbes; }
  const SharedProbe& shared(int32_t p) const { return shared_[static_cast<size_t>(p - n_workers_ * kOwnProbes)]; }
  SharedProbe& shared(int32_t p) { return shared_[static_cast<size_t>(p - n_workers_ * kOwnProbes)]; }
  // The position of probe p in worker w's queue array, -1 if it is not queued there.
  int32_t pos_in(int32_t w, int32_t p) const {
    const Rec& q = recs_[w];
    if (!own(p)) {
      const SharedProbe& r = shared(p);
      return r.w == w && r.pos >= q.first && r.pos < q.n && q.data()[r.pos].live() && q.data()[r.pos].probe() == p ? r.pos
                                                                                                                  : -1;
    }
    for (int32_t i = q.first; i < q.n; ++i)
      if (q.data()[i].live() && q.data()[i].probe() == p) return i;
    return -1;
  }
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
    const uint8_t* data() const { return p_.get(); }

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

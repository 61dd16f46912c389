// The worker-queue simulator (see schedlab/worker.h) [the Hawk/Eagle simulator, epfl-labos/eagle@371b51f "Time,
// network delay and the slot model", "Event ordering"; Zhou 2019, §2.2.1].
//
// Timing of one probe served at time t by a free worker (delay = one-way network delay d):
//   task handed out:  executes from t + 2d to dur + (t + 2d)   (the simulator's float order)
//   no task left:     the slot is busy until t + 2d (no-op reply), then serves its next probe
// Same-time events fire in the simulator's class order (task end, job arrival, no-op reply,
// timers, probe delivery, remaining-time update), then in creation order. The simulator breaks
// same-class ties by object address, which cannot be reproduced; creation order is used.
#include "schedlab/interrupt.h"
#include "schedlab/timing.h"
#include "schedlab/worker.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

namespace schedlab::worker {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Same-time order of event classes (lower fires first).
enum Rank : uint32_t { kRankTaskEnd = 0, kRankArrival = 1, kRankNoop = 2, kRankTimer = 3, kRankProbe = 4, kRankUpdate = 5 };

std::unordered_map<std::string, SchedulerFactory>& factories() {
  static std::unordered_map<std::string, SchedulerFactory> f;
  return f;
}
}  // namespace

const std::vector<ParamSpec>& Options::specs() {
  static const std::vector<ParamSpec> s = {
      ParamSpec::number("network_delay", 0.0005, 0, 1e3,
                        "one-way network delay in seconds on probes, task requests and replies (Eagle simulator: 0.5 ms)"),
      ParamSpec::number("cutoff", 90.5811, 0, INFINITY,
                        "a job is long iff its estimated mean task duration exceeds this (seconds); see schedlab.hybrid.preset()"),
      ParamSpec::number("short_partition", 0.02, 0, 0.999,
                        "fraction of workers (the lowest ids) reserved for short jobs; the rest is the general partition"),
      ParamSpec::boolean("truncate", true,
                         "truncate task durations and each job's mean estimate to whole seconds (the Eagle simulator's int(float(x)))"),
      ParamSpec::choice("estimation", "mean", {"mean", "constant", "random"},
                        "runtime estimate of every task of a job: 'mean' = the job's mean task duration (the simulator's MEAN); "
                        "'constant' = mean x (1 + estimate_error); 'random' = mean x U(1 - e, 1 + e) drawn per job"),
      ParamSpec::number("estimate_error", 0, -0.99, 100, "relative estimate error for estimation='constant' or 'random'"),
      ParamSpec::number("window", 60, 0, 1e9,
                        "seconds per window of the 'windows' series (short-task waiting time, utilization) and of window-driven "
                        "controllers such as Dice; 0 = no windows"),
      ParamSpec::number("time_limit", INFINITY, 0, INFINITY, "stop the simulation at this time (unfinished jobs get NaN finish times)"),
      ParamSpec::boolean("measure_overhead", false,
                         "measure the wall time of every scheduler callback (counters 'scheduler_seconds' and "
                         "'scheduler_calls', and per callback 'scheduler_seconds_<callback>', 'scheduler_calls_<callback>')"),
  };
  return s;
}

Options Options::from(const Params& p) {
  Options o;
  o.network_delay = p.number("network_delay");
  o.cutoff = p.number("cutoff");
  o.short_partition = p.number("short_partition");
  o.truncate = p.boolean("truncate");
  const std::string& e = p.choice("estimation");
  o.estimation = e == "constant" ? Estimation::Constant : e == "random" ? Estimation::Random : Estimation::Mean;
  o.estimate_error = p.number("estimate_error");
  o.window = p.number("window");
  o.time_limit = p.number("time_limit");
  o.measure_overhead = p.boolean("measure_overhead");
  return o;
}

void register_scheduler(SchedulerInfo info, SchedulerFactory factory) {
  info.engine = "worker";
  factories()[info.name] = std::move(factory);
  schedlab::register_scheduler(std::move(info));
}

namespace {
// Times every callback of a scheduler (the measure_overhead option), forwarding it unchanged.
class TimedScheduler final : public Scheduler {
 public:
  explicit TimedScheduler(Scheduler& inner) : in_(inner) {}
  void init(Sim& s) override { t_[kInit]([&] { in_.init(s); }); }
  void on_job_arrival(Sim& s, int32_t j) override { t_[kArrival]([&] { in_.on_job_arrival(s, j); }); }
  void on_probe_arrival(Sim& s, int32_t w, int32_t p) override { t_[kProbeArrival]([&] { in_.on_probe_arrival(s, w, p); }); }
  int32_t pick_probe(Sim& s, int32_t w, bool so) override { return t_[kPick]([&] { return in_.pick_probe(s, w, so); }); }
  const QueueEntry* pick_entry(Sim& s, int32_t w, bool so) override {
    return t_[kPick]([&] { return in_.pick_entry(s, w, so); });
  }
  int32_t choose_task(Sim& s, int32_t w, int32_t j, bool* c) override {
    return t_[kChoose]([&] { return in_.choose_task(s, w, j, c); });
  }
  bool keep_probe(Sim& s, int32_t w, int32_t p) override { return t_[kKeep]([&] { return in_.keep_probe(s, w, p); }); }
  double task_duration(Sim& s, int32_t w, int32_t t, bool c) override {
    return t_[kDuration]([&] { return in_.task_duration(s, w, t, c); });
  }
  void on_launch(Sim& s, int32_t w, int64_t a) override { t_[kLaunch]([&] { in_.on_launch(s, w, a); }); }
  void on_task_end(Sim& s, int32_t w, int64_t a, bool f) override { t_[kTaskEnd]([&] { in_.on_task_end(s, w, a, f); }); }
  void on_idle(Sim& s, int32_t w) override { t_[kIdle]([&] { in_.on_idle(s, w); }); }
  void on_window(Sim& s, const WindowStats& ws) override { t_[kWindow]([&] { in_.on_window(s, ws); }); }
  void on_timer(Sim& s, uint32_t a, uint64_t tag) override { t_[kTimer]([&] { in_.on_timer(s, a, tag); }); }
  void finish(Sim& s, SimResult& r) override { t_[kFinish]([&] { in_.finish(s, r); }); }
  bool tracks_remaining() const override { return in_.tracks_remaining(); }

  void report(SimResult& r) const {
    static const char* const names[kN] = {"init", "on_job_arrival", "on_probe_arrival", "pick_probe", "choose_task",
                                          "keep_probe", "task_duration", "on_launch", "on_task_end", "on_idle",
                                          "on_window", "on_timer", "finish"};
    int64_t ns = 0, calls = 0;
    for (int i = 0; i < kN; ++i) {
      ns += t_[i].ns;
      calls += t_[i].calls;
      if (t_[i].calls == 0) continue;
      r.counters[std::string("scheduler_seconds_") + names[i]] = double(t_[i].ns) * 1e-9;
      r.counters[std::string("scheduler_calls_") + names[i]] = double(t_[i].calls);
    }
    r.counters["scheduler_seconds"] = double(ns) * 1e-9;
    r.counters["scheduler_calls"] = double(calls);
  }

 private:
  enum { kInit, kArrival, kProbeArrival, kPick, kChoose, kKeep, kDuration, kLaunch, kTaskEnd, kIdle, kWindow, kTimer,
         kFinish, kN };
  Scheduler& in_;
  CallTimer t_[kN];
};
}  // namespace

std::unique_ptr<Scheduler> make_scheduler(const std::string& name, const ParamValues& given) {
  const SchedulerInfo& info = find_scheduler(name);
  auto it = factories().find(info.name);
  if (info.engine != "worker" || it == factories().end())
    throw std::invalid_argument("scheduler '" + name + "' does not run on the worker engine");
  return it->second(Params(info.name, info.params, given));
}

void register_engine() {
  EngineInfo e;
  e.name = "worker";
  e.summary = "worker probe-queue simulator for distributed and hybrid schedulers (Hawk/Eagle simulator semantics)";
  e.options = Options::specs();
  e.run = [](const RunRequest& r) {
    const SchedulerInfo& info = find_scheduler(r.scheduler);
    Params sp(info.name, info.params, r.scheduler_params);
    Params op("simulate options (worker engine)", Options::specs(), r.options);
    auto sched = factories().at(info.name)(sp);
    const Options opt = Options::from(op);
    if (opt.measure_overhead) {
      TimedScheduler timed(*sched);
      Sim sim(*r.cluster, *r.workload, timed, opt, r.seed);
      SimResult res = sim.run();
      timed.report(res);
      return res;
    }
    Sim sim(*r.cluster, *r.workload, *sched, opt, r.seed);
    return sim.run();
  };
  schedlab::register_engine(std::move(e));
}

// ---------------------------------------------------------------------------------------------
// Default scheduler behaviour: FIFO queues, tasks in trace order.

int32_t Scheduler::pick_probe(Sim& sim, int32_t w, bool short_only) {
  if (!short_only) return sim.queue_head(w);
  for (const QueueEntry* e = sim.queue_begin(w); e != sim.queue_end(w); ++e)
    if (e->live() && !e->is_long()) return e->probe();
  return -1;
}

const QueueEntry* Scheduler::pick_entry(Sim& sim, int32_t w, bool short_only) {
  const int32_t p = pick_probe(sim, w, short_only);
  if (p < 0) return nullptr;
  // FIFO's pick is the head, whose entry pick_probe has just read: found without the probe's
  // record (a cache miss on an overloaded cluster's long queues)
  const QueueEntry* const head = sim.queue_begin(w);
  return head->live() && head->probe() == p ? head : sim.queue_entry(w, p);
}

double Scheduler::task_duration(Sim& sim, int32_t, int32_t task, bool) { return sim.duration(task); }

int32_t Scheduler::choose_task(Sim& sim, int32_t, int32_t job, bool* clone) {
  *clone = false;
  return sim.next_task(job);
}

// ---------------------------------------------------------------------------------------------

Sim::Sim(const Cluster& cluster, const Workload& workload, Scheduler& scheduler, const Options& options, uint64_t seed)
    : cluster_(cluster), wl_(workload), sched_(scheduler), opt_(options), rng_(seed, 2) {
  for (size_t i = 0; i < cluster_.size(); ++i) {
    node_first_worker_.push_back(static_cast<int32_t>(worker_node_.size()));
    for (int32_t s = 0; s < cluster_.slots[i]; ++s) {
      worker_node_.push_back(static_cast<int32_t>(i));
      worker_slot_.push_back(s);
    }
  }
  const int32_t W = static_cast<int32_t>(worker_node_.size());
  if (W == 0) throw std::invalid_argument("cluster: the worker engine needs at least one slot ('slots' per node), got none");
  if (W > (1 << 28) / kOwnProbes / 2)
    throw std::invalid_argument("cluster: the worker engine runs at most " + std::to_string((1 << 28) / kOwnProbes / 2) +
                                " slots, got " + std::to_string(W));
  if (wl_.has_dependencies())
    throw std::invalid_argument("workload field 'parents': the worker engine does not run jobs with dependencies "
                                "(DAGs of jobs); use the mapreduce engine");
  for (size_t t = 0; t < wl_.n_tasks(); ++t)
    if (wl_.task_stage[t] != kMap)
      throw std::invalid_argument("workload: the worker engine runs single-stage jobs, but task " + std::to_string(t) +
                                  " is a reduce task");
  const int32_t n_general = static_cast<int32_t>(std::floor(W * (1.0 - opt_.short_partition) + 1e-9));
  first_general_ = W - std::max(n_general, 0);
  n_workers_ = W;
  recs_.reset(new Rec[static_cast<size_t>(W)]);
  long_work_.assign(W, 0);
  heap_q_.assign(W, 0);
  long_run_.assign(W, LongRun{0.0, -1.0});
  susp_.assign(W, Suspension{});

  const size_t nj = wl_.n_jobs(), nt = wl_.n_tasks();
  submit_ = wl_.submit_time;
  job_srpt_.resize(nj);
  job_long_.resize(nj);
  job_launched_.assign(nj, 0);
  job_done_.assign(nj, 0);
  job_cursor_.resize(nj);
  if (!wl_.work.per_block()) work_ = wl_.work.values().data();
  Random est_rng(seed, 3);
  for (size_t j = 0; j < nj; ++j) {
    const int64_t b = wl_.task_begin[j], e = wl_.task_begin[j + 1];
    double sum = 0;
    for (int64_t t = b; t < e; ++t) sum += wl_.estimate[t];
    double mean = sum / double(e - b);
    if (opt_.truncate) mean = std::trunc(mean);
    job_long_[j] = mean > opt_.cutoff ? 1 : 0;
    double est = mean;
    if (opt_.estimation == Estimation::Constant) est = mean * (1.0 + opt_.estimate_error);
    else if (opt_.estimation == Estimation::Random) est = mean * est_rng.uniform(1.0 - opt_.estimate_error, 1.0 + opt_.estimate_error);
    job_srpt_[j].est = std::max(est, 0.0);
    job_srpt_[j].remaining = job_srpt_[j].est * double(e - b);
    job_cursor_[j] = b;
  }
  static_assert(kTaskUnlaunched == 0, "task states start zero-filled");
  task_sc_.assign_zeros(2 * nt);
  task_susp_.assign_zeros(nt);
  unfinished_ = static_cast<int64_t>(nj);
  res_.job_start.assign(nj, kNaN);
  res_.job_finish.assign(nj, kNaN);
  const size_t reserve = nt + nt / 16 + 16;
  res_.att_task.reserve(reserve);
  res_.att_node.reserve(reserve);
  res_.att_start.reserve(reserve);
  res_.att_finish.reserve(reserve);
  res_.att_status.reserve(reserve);
  res_.att_locality.reserve(reserve);
  res_.att_slot.reserve(reserve);
  res_.att_speculative.reserve(reserve);
  shared_.reserve(1 << 16);
}

Probe Sim::probe(int32_t p) const {
  if (p < 0 || (!own(p) && static_cast<size_t>(p - n_workers_ * kOwnProbes) >= shared_.size())) return Probe{-1, -1, 0};
  // its job and flags are its entry's, at the worker it is queued at
  const int32_t w = worker_of(p);
  const Rec& q = recs_[w];
  const int32_t pos = pos_in(w, p);
  if (pos < 0 || pos >= q.n || !q.data()[pos].live() || q.data()[pos].probe() != p) return Probe{-1, -1, 0};
  return Probe{q.data()[pos].job, pos, q.data()[pos].flags()};
}

int32_t Sim::alloc_probe(int32_t w) {
  int32_t p;
  Rec& r = recs_[w];
  if (r.own_free) {
    const int32_t i = __builtin_ctz(r.own_free);
    r.own_free &= ~(1u << i);
    p = w * kOwnProbes + i;
  } else if (!free_probes_.empty()) {
    p = free_probes_.back();
    free_probes_.pop_back();
  } else {
    p = static_cast<int32_t>(static_cast<size_t>(n_workers_) * kOwnProbes + shared_.size());
    shared_.push_back(SharedProbe{-1, -1});
  }
  if (p >= (1 << 28)) throw std::length_error("worker engine: more than 2^28 probes queued at once");
  return p;
}

void Sim::free_probe(int32_t p) {
  if (own(p))
    recs_[p / kOwnProbes].own_free |= 1u << (p % kOwnProbes);
  else
    free_probes_.push_back(p);
}

void Sim::append(int32_t w, int32_t p, int32_t job, uint8_t flags, double acc) {
  Rec& qa = recs_[w];
  if (qa.qlen() == 0) {
    if (qa.n) ++qa.layout;
    qa.clear();
  } else if ((qa.holes > 8 && 2 * qa.holes > qa.n) || (qa.n == qa.cap() && (qa.on_heap ? 2 * (qa.first + qa.holes) >= qa.n : qa.first + qa.holes > 0))) {
    // (a full array is compacted instead of grown when it holds removed probes: the record's
    // whenever it does, a heap block when they are at least half of it. A FIFO queue removes its
    // head, so its array would otherwise grow by every probe it took since it last emptied, and a
    // block's growth costs an allocation and a copy.)
    size_t k = 0;  // compaction: the probes move to the front, in order
    for (size_t i = qa.first; i < qa.size(); ++i)
      if (qa[i].live()) {
        if (!own(qa[i].probe())) shared(qa[i].probe()).pos = static_cast<int32_t>(k);
        qa[k++] = qa[i];
      }
    qa.shrink(k);
    qa.first = qa.holes = 0;
    ++qa.layout;
  }
  // where the probe is: an own probe in its worker's queue unless it was moved here, a shared
  // probe's worker and position in its record (its job and flags are its entry's)
  const int32_t pos = qa.n;
  if (own(p)) {
    if (p / kOwnProbes != w) {
      if (moved_to_.empty()) moved_to_.assign(static_cast<size_t>(n_workers_) * kOwnProbes, -1);
      moved_to_[p] = w;
    } else if (!moved_to_.empty()) {
      moved_to_[p] = -1;
    }
  } else {
    shared(p) = SharedProbe{w, pos};
  }
  qa.push_back(QueueEntry{p * 8 + flags, job, acc});
  heap_q_[w] = qa.on_heap;  // (clear() and grow() above are where it changes)
  hint_probe_ = p;
  hint_flags_ = flags;
  if (flags & kProbeLong) {
    qa.qlong++;
    long_work_[w] = 1;
  }
}

void Sim::unlink_at(int32_t w, int32_t pos, bool is_long) {
  Rec& qa = recs_[w];
  QueueEntry* const d = qa.data();
  d[pos].ref = -1;
  ++qa.holes;
  while (qa.first < qa.n && !d[qa.first].live()) {
    ++qa.first;
    --qa.holes;
  }
  if (is_long) {
    qa.qlong--;
    refresh_long_work(w);
  }
}

void Sim::drop_probe(int32_t w, int32_t p) {
  const int32_t pos = pos_in(w, p);
  if (pos < 0) throw std::logic_error("worker engine: drop_probe: probe " + std::to_string(p) + " is not queued at worker " + std::to_string(w));
  unlink_at(w, pos, recs_[w].data()[pos].is_long());
  free_probe(p);
}

void Sim::drop_entry(int32_t w, QueueEntry* e) {
  const int32_t p = e->probe();
  unlink_at(w, static_cast<int32_t>(e - recs_[w].data()), e->is_long());
  free_probe(p);
}

void Sim::move_probe(int32_t from, int32_t to, int32_t p) {
  const int32_t pos = pos_in(from, p);
  if (pos < 0) throw std::logic_error("worker engine: move_probe: probe " + std::to_string(p) + " is not queued at worker " + std::to_string(from));
  move_entry(from, to, recs_[from].data() + pos);
}

void Sim::move_entry(int32_t from, int32_t to, QueueEntry* e) {
  const QueueEntry x = *e;
  unlink_at(from, static_cast<int32_t>(e - recs_[from].data()), x.is_long());
  append(to, x.probe(), x.job, static_cast<uint8_t>(x.flags() | kProbeStolen), x.acc);
}

void Sim::send_probes(int32_t job, const int32_t* targets, size_t n, double delay) {
  if (n == 0) return;
  int32_t d;
  if (!free_deliveries_.empty()) {
    d = free_deliveries_.back();
    free_deliveries_.pop_back();
  } else {
    d = static_cast<int32_t>(deliveries_.size());
    deliveries_.emplace_back();
  }
  deliveries_[d].job = job;
  deliveries_[d].targets.assign(targets, targets + n);
  probes_ += double(n);
  q_.push_ordered(now_ + delay, kRankProbe, kProbeBatch, static_cast<uint32_t>(d));
}

void Sim::deliver(int32_t d) {
  const int32_t job = deliveries_[d].job;
  const uint8_t flags = job_long_[job] ? kProbeLong : 0;
  // targets are read by index: serving may trigger sends that grow deliveries_
  const size_t n = deliveries_[d].targets.size();
  // The targets are random workers: their records are fetched a few probes ahead, so that the
  // cache misses of consecutive probes overlap, and their queue arrays (located through the
  // records) two probes ahead: a record fetched only a probe before has seldom arrived yet.
  constexpr size_t kAhead = 4;
  for (size_t i = 0; i < n && i < kAhead; ++i) prefetch_worker(deliveries_[d].targets[i]);
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) prefetch_worker(deliveries_[d].targets[i + kAhead]);
    if (i + 2 < n) prefetch_queue(deliveries_[d].targets[i + 2]);
    const int32_t w = deliveries_[d].targets[i];
    const int32_t p = alloc_probe(w);
    append(w, p, job, flags);
    sched_.on_probe_arrival(*this, w, p);
    serve(w);
  }
  free_deliveries_.push_back(d);
}

int32_t Sim::next_task(int32_t job) const {
  int64_t& c = job_cursor_[job];
  const int64_t e = wl_.task_begin[job + 1];
  while (c < e && task_sc_[2 * size_t(c)] != kTaskUnlaunched) ++c;
  return c < e ? static_cast<int32_t>(c) : -1;
}

void Sim::set_busy(int32_t w, bool busy) {
  Rec& s = recs_[w];
  if (s.busy == busy) return;
  const double dt = now_ - busy_mark_;
  busy_int_short_ += dt * double(busy_short_);
  busy_int_general_ += dt * double(busy_general_);
  busy_mark_ = now_;
  const int64_t delta = busy ? 1 : -1;
  if (w < first_general_) busy_short_ += delta; else busy_general_ += delta;
  s.busy = busy ? 1 : 0;
}

int64_t Sim::new_attempt(int32_t task, int32_t w, double start, double finish, bool clone) {
  const int64_t a = static_cast<int64_t>(res_.att_task.size());
  // a task end event carries the attempt's id in 32 bits (and its task in the other 32)
  if (a >= int64_t(kNoAttempt)) throw std::length_error("worker engine: more than 2^32 - 1 attempts");
  res_.att_task.push_back(task);
  res_.att_node.push_back(worker_node_[w]);
  res_.att_start.push_back(start);
  res_.att_finish.push_back(finish);
  res_.att_status.push_back(kRunning);
  res_.att_locality.push_back(kNoLocality);
  res_.att_slot.push_back(worker_slot_[w]);
  res_.att_speculative.push_back(clone ? 1 : 0);
  return a;
}

void Sim::serve(int32_t w) {
  Rec& s = recs_[w];
  if (s.busy) return;
  const bool short_only = s.suspended_task >= 0;
  if (short_only && s.resume_due) { resume(w); return; }
  const QueueEntry* const e = s.qlen() ? sched_.pick_entry(*this, w, short_only) : nullptr;
  if (!e) {
    if (short_only) resume(w);  // no short probe left: the suspended task resumes at once
    return;
  }
  const int32_t p = e->probe(), job = e->job;
  hint_probe_ = p;
  hint_flags_ = e->flags();
  const int32_t pos = static_cast<int32_t>(e - recs_[w].data());  // (the drop below goes through it)
  set_busy(w, true);
  s.exec_long = job_long_[job];
  refresh_long_work(w);
  // (a free slot's exec_long is 0: nothing to clear otherwise)
  if (s.exec_long) long_run_[w] = LongRun{now_, job_srpt_[job].est};
  bool clone = false;
  const int32_t task = sched_.choose_task(*this, w, job, &clone);
  if (task < 0) {
    // no-op reply: the probe is discarded, the slot frees after the round trip
    drop_picked(w, pos, p);
    ++noops_;
    q_.push_ordered_later(now_ + 2.0 * opt_.network_delay, kRankNoop, kNoop, static_cast<uint32_t>(w));
    return;
  }
  launch(w, p, pos, job, task, clone);
}

QueueEntry* Sim::picked_entry(int32_t w, int32_t pos, int32_t p) {
  Rec& qa = recs_[w];
  return static_cast<size_t>(pos) < qa.size() && qa[pos].live() && qa[pos].probe() == p ? &qa[pos] : nullptr;
}

void Sim::drop_picked(int32_t w, int32_t pos, int32_t p) {
  if (QueueEntry* e = picked_entry(w, pos, p))
    drop_entry(w, e);
  else
    drop_probe(w, p);  // (the scheduler moved its queue meanwhile)
}

// `job`: the job of the probe served, whose task it is (choose_task's contract): not read from the
// task's column, a cache miss when the job's tasks are launched far apart.
void Sim::launch(int32_t w, int32_t p, int32_t pos, int32_t job, int32_t task, bool clone) {
  Rec& s = recs_[w];
  const double t0 = now_ + 2.0 * opt_.network_delay;
  const double d = sched_.task_duration(*this, w, task, clone);
  const int64_t a = new_attempt(task, w, t0, d + t0, clone);
  s.attempt = static_cast<uint32_t>(a);
  ++launches_;
  if (task_copies_at(task) < 255) task_copies_at(task)++;
  if (clone) {
    ++clones_;
  } else {
    // the job's next task (what its next launch reads, the default order): its lines of the
    // task columns, first read long after the trace was built, are fetched from now on
    prefetch_task(task + 1);
    if (task_state_at(task) != kTaskUnlaunched) throw std::logic_error("launch: task " + std::to_string(task) + " launched twice");
    task_state_at(task) = kTaskRunning;
    job_launched_[job]++;
    if (std::isnan(res_.job_start[job])) res_.job_start[job] = t0;
    if (!job_long_[job]) {
      win_wait_sum_ += t0 - submit_[job];
      ++win_wait_n_;
    }
  }
  if (!(p >= 0 && sched_.keep_probe(*this, w, p))) {
    if (p >= 0) drop_picked(w, pos, p);
  } else {
    // (a scheduler that moved the probe meanwhile: it is found where it is, if still queued)
    QueueEntry* e = picked_entry(w, pos, p);
    if (!e) e = queue_entry(worker_of(p), p);
    if (e) e->ref |= kProbeSticky;
    if (hint_probe_ == p) hint_flags_ |= kProbeSticky;
  }
  push_task_end(d + t0, w, a, task);
  if (!clone && sched_.tracks_remaining())
    q_.push_ordered_later(t0, kRankUpdate, kUpdate, static_cast<uint32_t>(job));
  sched_.on_launch(*this, w, a);
}

bool Sim::suspend(int32_t w, double suspend_delay, double timeout, double resume_delay) {
  Rec& s = recs_[w];
  if (s.attempt == kNoAttempt || !s.exec_long || s.suspended_task >= 0) return false;
  const int64_t a = s.attempt;
  if (res_.att_status[a] != kRunning || res_.att_start[a] > now_) return false;
  const int32_t task = res_.att_task[a];
  if (task_state_at(task) != kTaskRunning || res_.att_speculative[a]) return false;
  Suspension& u = susp_[w];
  u.remaining = res_.att_finish[a] - now_;
  res_.att_finish[a] = now_;
  res_.att_status[a] = kKilled;
  att_extra("suspended")[a] = 1.0;
  task_state_at(task) = kTaskSuspended;
  if (task_susp_[task] < 255) task_susp_[task]++;
  s.attempt = kNoAttempt;
  s.suspended_task = task;
  long_work_[w] = 1;
  s.resume_due = 0;
  u.resume_delay = resume_delay;
  ++u.gen;
  // the slot stays busy while the task's state is saved
  q_.push_ordered(now_ + suspend_delay, kRankTimer, kSuspendDone, static_cast<uint32_t>(w), u.gen);
  q_.push_ordered(now_ + suspend_delay + timeout, kRankTimer, kResumeDue, static_cast<uint32_t>(w), u.gen);
  counters_["suspensions"] += 1;
  return true;
}

void Sim::resume(int32_t w) {
  Rec& s = recs_[w];
  const int32_t task = s.suspended_task;
  const int32_t job = wl_.task_job[task];
  set_busy(w, true);
  s.exec_long = 1;
  long_work_[w] = 1;
  long_run_[w] = LongRun{now_, job_srpt_[job].est};
  Suspension& u = susp_[w];
  const double t0 = now_ + u.resume_delay;
  const int64_t a = new_attempt(task, w, t0, u.remaining + t0, false);
  att_extra("resumed")[a] = 1.0;
  s.attempt = static_cast<uint32_t>(a);
  s.suspended_task = -1;
  refresh_long_work(w);
  s.resume_due = 0;
  ++u.gen;
  task_state_at(task) = kTaskRunning;
  counters_["resumptions"] += 1;
  push_task_end(u.remaining + t0, w, a, task);
}

void Sim::free_slot(int32_t w) {
  Rec& s = recs_[w];
  set_busy(w, false);
  if (s.exec_long) long_run_[w].est = -1.0;
  s.exec_long = 0;
  refresh_long_work(w);
  serve(w);
  if (!s.busy && s.qlen() == 0 && s.suspended_task < 0) sched_.on_idle(*this, w);
}

void Sim::push_task_end(double at, int32_t w, int64_t a, int32_t task) {
  q_.push_ordered(at, kRankTaskEnd, kTaskEnd, static_cast<uint32_t>(w),
                  (static_cast<uint64_t>(task) << 32) | static_cast<uint64_t>(a));
}

void Sim::task_end(int32_t w, int64_t a, int32_t task) {
  // Suspended or stopped meanwhile: the attempt is no longer the one on its worker (a suspension
  // or a stop clears it, and attempt ids are never reused). The worker's record is read anyway;
  // the attempt's status and finish columns, written when it launched long ago, are not.
  if (recs_[w].attempt != static_cast<uint32_t>(a)) return;
  const int32_t job = wl_.task_job[task];
  const bool first = task_state_at(task) != kTaskDone;
  res_.att_status[a] = first ? kSucceeded : kKilled;
  if (first) {
    task_state_at(task) = kTaskDone;
    if (++job_done_[job] == n_tasks(job)) {
      res_.job_finish[job] = now_;
      --unfinished_;
    }
  } else {
    att_extra("redundant")[a] = 1.0;
  }
  recs_[w].attempt = kNoAttempt;
  sched_.on_task_end(*this, w, a, first);
  free_slot(w);
}

bool Sim::stop_attempt(int32_t w, int64_t a) {
  Rec& s = recs_[w];
  // an attempt still in its request round trip has not started executing: not stoppable
  if (s.attempt == kNoAttempt || static_cast<int64_t>(s.attempt) != a || res_.att_status[a] != kRunning ||
      res_.att_start[a] > now_)
    return false;
  res_.att_finish[a] = now_;  // its pending task end is now stale (the worker no longer runs the attempt)
  res_.att_status[a] = kKilled;
  s.attempt = kNoAttempt;
  free_slot(w);
  return true;
}

void Sim::set_timer(double at, uint32_t a, uint64_t tag) { q_.push_ordered(std::max(at, now_), kRankTimer, kTimer, a, tag); }

TimeSeries& Sim::series(const std::string& name, const std::vector<std::string>& columns) {
  auto it = series_.find(name);
  if (it == series_.end()) it = series_.emplace(name, TimeSeries::with_columns(columns)).first;
  return it->second;
}

std::vector<double>& Sim::att_extra(const std::string& name) {
  auto& v = res_.att_extra[name];
  if (v.size() < res_.att_task.size()) v.resize(res_.att_task.size(), kNaN);
  return v;
}

void Sim::close_window() {
  const double dt = now_ - busy_mark_;
  busy_int_short_ += dt * double(busy_short_);
  busy_int_general_ += dt * double(busy_general_);
  busy_mark_ = now_;
  WindowStats ws;
  ws.start = win_start_;
  ws.end = now_;
  ws.short_tasks = win_wait_n_;
  ws.short_wait_mean = win_wait_n_ ? win_wait_sum_ / double(win_wait_n_) : kNaN;
  const double span = now_ - win_start_;
  const double ns = first_general_, ng = n_workers() - first_general_;
  ws.util = span > 0 ? (busy_int_short_ + busy_int_general_) / (span * (ns + ng)) : kNaN;
  ws.util_short = span > 0 && ns > 0 ? busy_int_short_ / (span * ns) : kNaN;
  ws.util_general = span > 0 && ng > 0 ? busy_int_general_ / (span * ng) : kNaN;
  series("windows", {"time", "short_wait_mean", "short_tasks_started", "utilization", "utilization_short",
                     "utilization_general"})
      .add_row({ws.end, ws.short_wait_mean, double(ws.short_tasks), ws.util, ws.util_short, ws.util_general});
  sched_.on_window(*this, ws);
  win_start_ = now_;
  win_wait_sum_ = 0;
  win_wait_n_ = 0;
  busy_int_short_ = busy_int_general_ = 0;
}

double Sim::idle_windows(double next) {
  // The cluster is idle until the next arrival when the queue holds nothing but that arrival
  // (every busy slot, queued probe, probe in flight, suspension or timer has an event pending)
  // and no slot is busy. The windows that close before the arrival then see nothing happen:
  // they are closed here in a loop, each exactly as its event would have closed it (the same
  // row, the same scheduler call, at the same time computed the same way), without going
  // through the queue; a window at the arrival's time fires after it (rank), as before. The
  // loop stops as soon as a window's scheduler call queues something or pauses, and at the
  // time limit.
  if (next_job_ >= wl_.n_jobs() || q_.size() != 1) return next;
  const double arrival = submit_[next_job_];
  uint64_t closed = 0;
  while (next < arrival && next <= opt_.time_limit && q_.size() == 1 && busy_short_ + busy_general_ == 0 &&
         !(pause_ && stepping_)) {
    now_ = next;
    close_window();
    next = now_ + opt_.window;
    poll_interrupt(events_ + ++closed, now_);
  }
  idle_windows_ += double(closed);
  return next;
}

void Sim::start() {
  if (started_) throw std::logic_error("worker engine: simulation already started");
  started_ = true;
  sched_.init(*this);
  const size_t nj = wl_.n_jobs();
  if (nj > 0) {
    q_.push_ordered(submit_[0], kRankArrival, kArrival);
    if (opt_.window > 0) {
      win_start_ = std::floor(submit_[0] / opt_.window) * opt_.window;
      busy_mark_ = win_start_;
      q_.push_ordered(win_start_ + opt_.window, kRankTimer, kWindow);
    }
  }
}

SimResult Sim::run() {
  start();
  loop();
  return finish_result(std::move(res_), true);
}

bool Sim::resume() {
  if (!started_) throw std::logic_error("worker engine: resume() before start()");
  if (stepped_out_) return false;
  stepping_ = true;
  pause_ = false;
  if (loop()) return true;
  stepped_out_ = true;
  return false;
}

SimResult Sim::collect() { return finish_result(res_, false); }

bool Sim::loop() {
  const size_t nj = wl_.n_jobs();
  bool limited = false;
  int32_t ahead = -1;  // the worker of a task end fetched an event ahead
  while (!q_.empty() && unfinished_ > 0) {
    const Event e = q_.pop();
    if (e.time > opt_.time_limit) { now_ = opt_.time_limit; limited = true; break; }
    now_ = e.time;
    ++events_;
    poll_interrupt(events_, now_);
    // What the next events touch at random -- a task end's worker and attempt (launched long
    // ago), a probe batch's first workers, a no-op reply's worker -- is fetched while this event
    // is handled.
    // A task end's worker is fetched two events ahead, so that its queue array (which the pick
    // that follows reads, through the worker's queue record) can be fetched one event ahead.
    {
      uint32_t x;
      uint64_t y;
      if (q_.heap_front_is(kTaskEnd, x, y)) {
        prefetch_worker(static_cast<int32_t>(x));
        __builtin_prefetch(&long_run_[x]);  // read if the task is long
        // the queue record is read only if it was fetched an event ago (else the read would wait)
        if (static_cast<int32_t>(x) == ahead) prefetch_queue(static_cast<int32_t>(x));
        // the attempt's status (written) and its task's state and job (the event carries the task)
        const uint64_t a = y & 0xFFFFFFFFu, t = y >> 32;
        __builtin_prefetch(res_.att_status.data() + a, 1);
        __builtin_prefetch(&task_state_at(t));
        __builtin_prefetch(wl_.task_job.data() + t);
      } else if (q_.heap_front_is(kProbeBatch, x, y)) {
        const std::vector<int32_t>& t = deliveries_[x].targets;
        for (size_t i = 0; i < t.size() && i < 2; ++i) prefetch_worker(t[i]);
      }
      ahead = -1;
      if (q_.heap_second_is(kTaskEnd, x)) {
        prefetch_worker(static_cast<int32_t>(x));
        ahead = static_cast<int32_t>(x);
      }
      if (q_.lane_front_is(kNoop, x)) prefetch_worker(static_cast<int32_t>(x));
      else if (q_.lane_front_is(kUpdate, x)) {
        __builtin_prefetch(&job_srpt_[x]);
        __builtin_prefetch(&job_launched_[x]);
      }
    }
    switch (e.kind) {
      case kArrival: {
        const int32_t j = static_cast<int32_t>(next_job_++);
        if (next_job_ < nj) q_.push_ordered(submit_[next_job_], kRankArrival, kArrival);
        prefetch_task(static_cast<size_t>(wl_.task_begin[j]));  // launched once its probes arrive
        sched_.on_job_arrival(*this, j);
        break;
      }
      case kProbeBatch: deliver(static_cast<int32_t>(e.a)); break;
      case kTaskEnd:
        task_end(static_cast<int32_t>(e.a), static_cast<int64_t>(e.b & 0xFFFFFFFFu), static_cast<int32_t>(e.b >> 32));
        break;
      case kNoop: free_slot(static_cast<int32_t>(e.a)); break;
      case kUpdate: {
        const int32_t j = static_cast<int32_t>(e.a);
        if (unlaunched(j) == 0) job_srpt_[j].remaining = -1;
        else job_srpt_[j].remaining -= job_srpt_[j].est;
        break;
      }
      case kTimer: sched_.on_timer(*this, e.a, e.b); break;
      case kWindow:
        close_window();
        // nothing runs, waits in flight or is left to arrive: the windows would go on forever
        if (q_.empty() && busy_short_ + busy_general_ == 0) throw_never_finish();
        q_.push_ordered(idle_windows(now_ + opt_.window), kRankTimer, kWindow);
        break;
      case kSuspendDone: {
        const int32_t w = static_cast<int32_t>(e.a);
        if (susp_[w].gen != e.b) break;
        free_slot(w);
        break;
      }
      case kResumeDue: {
        const int32_t w = static_cast<int32_t>(e.a);
        Rec& s = recs_[w];
        if (susp_[w].gen != e.b || s.suspended_task < 0) break;
        s.resume_due = 1;
        if (!s.busy) resume(w);
        break;
      }
    }
    if (pause_ && stepping_) {
      pause_ = false;
      return true;
    }
  }
  // without windows (window = 0) the queue runs dry instead: the same jobs that can never finish
  if (!limited && q_.empty() && unfinished_ > 0) throw_never_finish();
  pause_ = false;
  return false;
}

void Sim::throw_never_finish() const {
  throw std::invalid_argument(
      "worker engine: " + std::to_string(unfinished_) + " jobs can never finish: at t=" + std::to_string(now_) +
      " s no task runs, no probe or timer is pending and no job is left to arrive, with tasks never launched "
      "(the scheduler sent fewer probes than the jobs have tasks, e.g. probe_ratio < 1, or left its probes queued)");
}

// The results of the run so far, from the attempt columns `r` (moved out of res_ by run(), a copy
// for collect(); `last`: the series move into the result too).
SimResult Sim::finish_result(SimResult r, bool last) {
  const size_t nj = wl_.n_jobs();
  auto& cls = r.job_extra["class"];
  auto& est = r.job_extra["est_task_duration"];
  cls.resize(nj);
  est.resize(nj);
  for (size_t j = 0; j < nj; ++j) {
    cls[j] = job_long_[j];
    est[j] = job_srpt_[j].est;
  }
  const size_t na = r.att_task.size();
  // Attempts still running: at a time limit they have no finish yet. When the run ends with its
  // last job, they are redundant copies (losing clones) of finished tasks: they end as scheduled.
  const bool all_done = unfinished_ == 0;
  for (size_t i = 0; i < na; ++i) {
    if (r.att_status[i] != kRunning) continue;
    if (!all_done) {
      r.att_finish[i] = kNaN;
      continue;
    }
    r.att_status[i] = kKilled;
    auto& redundant = r.att_extra["redundant"];
    if (redundant.size() < na) redundant.resize(na, kNaN);
    redundant[i] = 1.0;
  }
  for (auto& [k, v] : r.att_extra) v.resize(na, kNaN);
  r.counters = counters_;
  if (probes_ > 0) r.counters["probes"] += probes_;
  if (idle_windows_ > 0) r.counters["idle_windows"] = idle_windows_;
  r.counters["noop_replies"] = double(noops_);
  r.counters["launches"] = double(launches_);
  r.counters["clones"] = double(clones_);
  r.counters["workers"] = double(n_workers());
  r.counters["short_partition_workers"] = double(first_general_);
  r.events = events_;
  r.end_time = now_;
  sched_.finish(*this, r);
  if (last) r.series.merge(series_);
  else r.series.insert(series_.begin(), series_.end());
  return r;
}

}  // namespace schedlab::worker

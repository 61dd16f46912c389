// Eirene = Coordinated Cold Data Migration (CCDM) + Scheduler-Aware Task Cloning (SATC) on
// Eagle [Zhou 2019, §4.3.2], each selectable alone.
//
// CCDM (short jobs only). When a probe reaches a worker, the worker picks up to MPP random
// tasks of the probe's job that have not started and whose input is not being migrated, and
// queues one migration per task (MQ, FIFO). At most CM migrations run at once per worker; each
// takes DMT seconds. A queued or running migration whose task starts meanwhile (anywhere) is
// cancelled. A task request from a worker gets a random not-started task of the job whose input
// is migrated on that worker, else the next not-started task in trace order. When a worker gets a
// task, it migrates one of the job's not-started, not-migrated tasks at once through the fast
// lane (MFL, outside the CM limit), anticipating Sticky Batch Probing: a random one (the spec's
// default, Zhou 2019), or with mfl_task = "next" the next in trace order, the task a
// worker without migrated input would be given next. A task that starts on the
// worker holding its migrated input runs (1 - TPS) times its duration (a CCDM beneficiary).
// Simplifications [Zhou 2019, §4.3.2 I]: a task's input is migrated to at most one worker (workers
// skip tasks already migrating or migrated anywhere, read from global state); RAM-disk space is
// unlimited; migrations cost no other resource.
//
// SATC (short jobs only). A request that finds every primary task of its job started gets a clone
// of a running task that has no clone yet -- preferably one whose input is migrated on the
// requesting worker, else a random one (item 28; clone_task = "first" takes the earliest in trace
// order); at most one clone per task. The clone runs for the duration of a randomly chosen task
// of the same job (PRT, the default) or for its own task's duration, times (1 - TPS) when the
// task's input is migrated on the clone's worker (item 29; clone_speedup = false: never). The first copy to finish completes
// the task; the other keeps its slot until it ends (reported as 'killed' with 'redundant' = 1):
// the dissertation only says the second completion is ignored [Zhou 2019, §4.3.3].
// With kill_losing_clone, the scheduler instead stops the other copy once the first finishes:
// the notification reaches the losing copy's worker and is acknowledged after a round trip, so
// that copy ends at finish + 2 x network delay (unless it ends sooner by itself) and its slot
// serves its queue from then on. Counters clones_killed and clone_slot_time_saved (seconds of
// slot time the stopped copies would still have run); a copy still running when the run ends
// is reported as stopped at that same time.
// Defaults: CM 10, MPP 2, DMT 6.42 s, TPS 15 % (Table 4.5).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "hybrid_common.h"

namespace schedlab::worker {

namespace {

enum MigState : uint8_t { kNone = 0, kQueued = 1, kMigrating = 2, kMigrated = 3 };

class EireneScheduler : public HybridScheduler {
 public:
  EireneScheduler(const HybridConfig& cfg, const Params& p)
      : HybridScheduler(cfg),
        ccdm_(p.boolean("ccdm")),
        satc_(p.boolean("satc")),
        cm_(p.integer("concurrent_migrations")),
        mpp_(p.integer("migrations_per_probe")),
        dmt_(p.number("migration_time")),
        tps_(p.number("speedup")),
        prt_random_(p.choice("clone_runtime") == "random_primary"),
        clone_random_(p.choice("clone_task") == "random"),
        clone_speedup_(p.boolean("clone_speedup")),
        mfl_random_(p.choice("mfl_task") == "random"),
        kill_losing_clone_(satc_ && p.boolean("kill_losing_clone")) {}

  void init(Sim& sim) override {
    HybridScheduler::init(sim);
    const size_t nt = sim.workload().n_tasks(), nj = sim.workload().n_jobs();
    if (ccdm_) {
      mig_state_.assign(nt, kNone);
      mig_worker_.assign(nt, -1);
      mig_fast_.assign(nt, 0);
      mq_.resize(W_);
      mq_head_.assign(W_, 0);
      running_.assign(W_, 0);
      migrated_.resize(W_);
    }
    clone_cursor_.resize(nj);
    mfl_cursor_.resize(nj);
    for (size_t j = 0; j < nj; ++j) clone_cursor_[j] = mfl_cursor_[j] = sim.task_begin(static_cast<int32_t>(j));
    cloned_.assign(nt, 0);
    // the attempts of each task's copies, XOR-ed: with one copy known, the other follows
    if (kill_losing_clone_) copies_xor_.assign(nt, 0);
  }

  void on_probe_arrival(Sim& sim, int32_t w, int32_t p) override {
    HybridScheduler::on_probe_arrival(sim, w, p);
    if (!ccdm_) return;
    const int32_t job = sim.probe(p).job;
    if (sim.is_long(job) || sim.unlaunched(job) == 0) return;
    const int64_t b = sim.task_begin(job), n = sim.n_tasks(job);
    int64_t picked = 0;
    for (int64_t tries = 0; tries < 4 * mpp_ && picked < mpp_; ++tries) {
      const int32_t t = static_cast<int32_t>(b + static_cast<int64_t>(sim.rng().below(n)));
      if (sim.task_state(t) != kTaskUnlaunched || mig_state_[t] != kNone) continue;
      mig_state_[t] = kQueued;
      mig_worker_[t] = w;
      mq_[w].push_back(t);
      ++picked;
    }
    start_migrations(sim, w);
  }

  int32_t choose_task(Sim& sim, int32_t w, int32_t job, bool* clone) override {
    *clone = false;
    if (sim.is_long(job)) return sim.next_task(job);
    if (ccdm_ && !migrated_[w].empty()) {
      // a random not-started task of this job whose input is migrated here
      auto& m = migrated_[w];
      int32_t count = 0;
      size_t keep = 0;
      for (size_t i = 0; i < m.size(); ++i) {
        const int32_t t = m[i];
        if (sim.task_state(t) != kTaskUnlaunched && !(satc_ && cloned_[t] == 0 && sim.task_state(t) == kTaskRunning))
          continue;  // no longer useful here
        m[keep++] = t;
        if (sim.task_state(t) == kTaskUnlaunched && sim.workload().task_job[t] == job) ++count;
      }
      m.resize(keep);
      if (count > 0) {
        int64_t k = static_cast<int64_t>(sim.rng().below(count));
        for (int32_t t : m)
          if (sim.task_state(t) == kTaskUnlaunched && sim.workload().task_job[t] == job && k-- == 0) return t;
      }
    }
    const int32_t t = sim.next_task(job);
    if (t >= 0 || !satc_) return t;
    // SATC: every primary has started; clone a running task without a clone
    if (ccdm_)
      for (int32_t m : migrated_[w])
        if (sim.workload().task_job[m] == job && sim.task_state(m) == kTaskRunning && !cloned_[m]) {
          cloned_[m] = 1;
          *clone = true;
          return m;
        }
    auto cloneable = [&](int64_t t) { return sim.task_state(static_cast<int32_t>(t)) == kTaskRunning && !cloned_[t]; };
    const int64_t pick = pick_task(sim, job, clone_cursor_[job], clone_random_, cloneable);
    if (pick < 0) return -1;
    cloned_[pick] = 1;
    *clone = true;
    return static_cast<int32_t>(pick);
  }

  double task_duration(Sim& sim, int32_t w, int32_t task, bool clone) override {
    if (clone) {
      const int32_t job = sim.workload().task_job[task];
      const double d = prt_random_ ? sim.duration(static_cast<int32_t>(sim.task_begin(job) +
                                                                         static_cast<int64_t>(sim.rng().below(sim.n_tasks(job)))))
                                   : sim.duration(task);
      if (clone_speedup_ && ccdm_ && mig_state_[task] == kMigrated && mig_worker_[task] == w) {
        ++beneficiaries_;
        return d * (1.0 - tps_);
      }
      return d;
    }
    if (ccdm_ && mig_state_[task] == kMigrated && mig_worker_[task] == w) {
      ++beneficiaries_;
      return sim.duration(task) * (1.0 - tps_);
    }
    return sim.duration(task);
  }

  void on_launch(Sim& sim, int32_t w, int64_t a) override {
    if (kill_losing_clone_) copies_xor_[sim.att_task(a)] ^= a;
    if (!ccdm_) return;
    const int32_t task = sim.att_task(a);
    const int32_t job = sim.workload().task_job[task];
    if (sim.is_long(job)) return;
    // migration fast lane: the next task of the job this worker will probably run (SBP)
    auto candidate = [&](int64_t t) { return sim.task_state(static_cast<int32_t>(t)) == kTaskUnlaunched && mig_state_[t] == kNone; };
    const int64_t pick = pick_task(sim, job, mfl_cursor_[job], mfl_random_, candidate);
    if (pick < 0) return;
    const int32_t t = static_cast<int32_t>(pick);
    mig_state_[t] = kMigrating;
    mig_worker_[t] = w;
    mig_fast_[t] = 1;
    ++started_;
    ++mfl_;
    sim.set_timer(sim.now() + dmt_, static_cast<uint32_t>(w), static_cast<uint64_t>(t));
  }

  void on_timer(Sim& sim, uint32_t a, uint64_t tag) override {
    if (tag & kStopTag) {  // the stop notification reaches a losing copy
      const int64_t loser = static_cast<int64_t>(tag & ~kStopTag);
      const double scheduled_end = sim.att_finish(loser);
      if (sim.stop_attempt(static_cast<int32_t>(a), loser)) {
        sim.att_extra("redundant")[loser] = 1.0;
        ++clones_killed_;
        slot_time_saved_ += scheduled_end - sim.now();
      }
      return;
    }
    const int32_t w = static_cast<int32_t>(a), t = static_cast<int32_t>(tag);
    const bool fast = mig_fast_[t];
    mig_fast_[t] = 0;
    if (sim.task_state(t) == kTaskUnlaunched) {
      mig_state_[t] = kMigrated;
      migrated_[w].push_back(t);
      ++completed_;
    } else {
      mig_state_[t] = kNone;
      ++cancelled_;
    }
    if (!fast) {
      --running_[w];
      start_migrations(sim, w);
    }
  }

  void on_task_end(Sim& sim, int32_t w, int64_t a, bool first) override {
    HybridScheduler::on_task_end(sim, w, a, first);
    const int32_t task = sim.att_task(a);
    if (!first || sim.task_copies(task) < 2) return;
    if (is_clone_attempt(sim, a)) ++satc_wins_;
    if (kill_losing_clone_) {
      const int64_t loser = copies_xor_[task] ^ a;
      const double stop_at = sim.now() + 2.0 * sim.delay();
      if (sim.att_running(loser) && sim.att_finish(loser) > stop_at)
        sim.set_timer(stop_at, static_cast<uint32_t>(sim.att_worker(loser)), kStopTag | static_cast<uint64_t>(loser));
    }
  }

  void finish(Sim& sim, SimResult& r) override {
    HybridScheduler::finish(sim, r);
    if (ccdm_) {
      r.counters["ccdm_beneficiaries"] = beneficiaries_;
      r.counters["migrations_started"] = started_;
      r.counters["migrations_completed"] = completed_;
      r.counters["migrations_cancelled"] = cancelled_;
      r.counters["mfl_migrations"] = mfl_;
    }
    if (satc_) r.counters["satc_beneficiaries"] = satc_wins_;
    if (kill_losing_clone_) {
      // losing copies still running when the last job ended: stopped as they would have been
      auto it = r.att_extra.find("redundant");
      if (it != r.att_extra.end())
        for (size_t i = 0; i < r.att_task.size(); ++i) {
          if (it->second[i] != 1.0 || sim.task_copies(r.att_task[i]) < 2) continue;
          const int64_t winner = copies_xor_[r.att_task[i]] ^ static_cast<int64_t>(i);
          const double stop_at = r.att_finish[winner] + 2.0 * sim.delay();
          if (r.att_finish[i] > stop_at) {
            slot_time_saved_ += r.att_finish[i] - stop_at;
            r.att_finish[i] = stop_at;
            ++clones_killed_;
          }
        }
      r.counters["clones_killed"] = clones_killed_;
      r.counters["clone_slot_time_saved"] = slot_time_saved_;
    }
  }

 private:
  static bool is_clone_attempt(Sim& sim, int64_t a) { return sim.att_is_clone(a); }
  // A task of `job` for which ok(task) holds: the first in trace order, or a uniformly random one.
  // `cursor` skips the job's leading tasks for which ok() can no longer hold (it is monotone).
  template <class Ok>
  static int64_t pick_task(Sim& sim, int32_t job, int64_t& cursor, bool random, Ok ok) {
    const int64_t e = sim.task_begin(job) + sim.n_tasks(job);
    while (cursor < e && !ok(cursor)) ++cursor;
    if (cursor >= e || !random) return cursor < e ? cursor : -1;
    int64_t count = 0;
    for (int64_t t = cursor; t < e; ++t) count += ok(t);
    int64_t k = static_cast<int64_t>(sim.rng().below(static_cast<uint64_t>(count)));
    int64_t pick = cursor;
    while (!(ok(pick) && k-- == 0)) ++pick;
    return pick;
  }

  // timer tags: a migration's task id, or this bit plus the attempt id of a copy to stop
  static constexpr uint64_t kStopTag = 1ULL << 63;

  void start_migrations(Sim& sim, int32_t w) {
    auto& q = mq_[w];
    size_t& h = mq_head_[w];
    while (running_[w] < cm_ && h < q.size()) {
      const int32_t t = q[h++];
      if (sim.task_state(t) != kTaskUnlaunched) {  // started meanwhile: cancelled
        mig_state_[t] = kNone;
        ++cancelled_;
        continue;
      }
      mig_state_[t] = kMigrating;
      ++running_[w];
      ++started_;
      sim.set_timer(sim.now() + dmt_, static_cast<uint32_t>(w), static_cast<uint64_t>(t));
    }
    if (h == q.size()) {
      q.clear();
      h = 0;
    }
  }

  bool ccdm_, satc_;
  int64_t cm_, mpp_;
  double dmt_, tps_;
  bool prt_random_;
  bool clone_random_, clone_speedup_, mfl_random_;
  bool kill_losing_clone_;
  std::vector<uint8_t> mig_state_, mig_fast_, cloned_;
  std::vector<int32_t> mig_worker_;
  std::vector<std::vector<int32_t>> mq_, migrated_;
  std::vector<size_t> mq_head_;
  std::vector<int64_t> running_;
  std::vector<int64_t> clone_cursor_, mfl_cursor_;
  std::vector<int64_t> copies_xor_;  // kill_losing_clone only
  double beneficiaries_ = 0, started_ = 0, completed_ = 0, cancelled_ = 0, mfl_ = 0, satc_wins_ = 0;
  double clones_killed_ = 0, slot_time_saved_ = 0;
};

}  // namespace

void register_eirene_scheduler() {
  std::vector<ParamSpec> params = {
      ParamSpec::boolean("ccdm", true, "Coordinated Cold Data Migration"),
      ParamSpec::boolean("satc", true, "Scheduler-Aware Task Cloning"),
      ParamSpec::integer("concurrent_migrations", 10, 1, 1000000, "CM: migrations running at once per worker"),
      ParamSpec::integer("migrations_per_probe", 2, 0, 100, "MPP: migrations a probe arrival requests; at most 100 (25x the largest the dissertation sweeps, 4; each probe arrival draws them)"),
      ParamSpec::number("migration_time", 6.42, 0, 1e9, "DMT: seconds to migrate one task's input to memory"),
      ParamSpec::number("speedup", 0.15, 0, 1, "TPS: runtime reduction of a task reading migrated input"),
      ParamSpec::choice("clone_runtime", "random_primary", {"random_primary", "own"},
                        "PRT: a clone runs as long as a random task of its job (dissertation) or as its own task"),
      ParamSpec::choice("clone_task", "random", {"random", "first"},
                        "SATC: which running, uncloned task a surplus probe clones when none is migrated on its worker: "
                        "a random one (the spec's default) or the earliest in trace order"),
      ParamSpec::boolean("clone_speedup", true,
                         "a clone whose task's input is migrated on its worker runs (1 - TPS) times as long (the spec's default)"),
      ParamSpec::choice("mfl_task", "random", {"random", "next"},
                        "CCDM fast lane: migrate a random not-started, not-migrated task of the job (the spec's default) "
                        "or the next one in trace order"),
      ParamSpec::boolean("kill_losing_clone", false,
                         "stop a task's other copy once one finishes (after the notification's 2 x network_delay round "
                         "trip), freeing its slot; default: it runs to its end, as the dissertation's text reads; no effect "
                         "without satc"),
      ParamSpec::number("probe_ratio", 2, 1e-9, 1000, "probes per task of a short job; at most 1000 (500x the papers' d = 2)"),
      ParamSpec::integer("min_probes", 20, 1, 100000, "minimum probes per short job (Eagle: 20); at most 100000"),
      ParamSpec::number("starvation_cap", 5, 0, 1e9, "Eagle's SRPT starvation cap"),
  };
  register_scheduler(
      {"eirene", "", "Zhou diss. ch. 4 (Eirene) [Zhou 2019, ch. 4]",
       "Eagle plus Coordinated Cold Data Migration (probe-triggered input migration, fast lane, 15 % speedup) and "
       "Scheduler-Aware Task Cloning (surplus probes clone running short tasks)",
       params},
      [](const Params& p) {
        HybridConfig c;
        c.sss = c.sbp = c.srpt = true;
        c.probe_ratio = p.number("probe_ratio");
        c.min_probes = p.integer("min_probes");
        c.starvation_cap = p.number("starvation_cap");
        c.srpt_skips_blocks = true;
        return std::make_unique<EireneScheduler>(c, p);
      });
}

}  // namespace schedlab::worker

// OMO: optimising the map/reduce overlap with a good start (reduce) and a good finish (map)
// (Wang dissertation ch. 4; spec Wang 2017, ch. 4), on one untyped slot pool (dynamic slots):
//   omo               — Algorithm 4.3.3: on every free slot, Lazy Start of a job's reduces
//                       (Alg. 4.3.1) first, else Batch Finish of a job's maps (Alg. 4.3.2), else
//                       Fair on total slots; fed by the slot-release-rate monitor of §4.3.1.
//   omo_lazy_start    — the same with Batch Finish off ("Lazy Start only", Fig. 4.15).
//   omo_batch_finish  — the same with Lazy Start off ("Batch Finish only", Fig. 4.16; reduces
//                       start when the job's maps are done, i.e. slowstart 1).
//   fair_total        — the OMO chapter's modified Fair Scheduler: a free slot of the pool goes
//                       to the job holding the fewest slots in total (map + reduce) [§4.4.1],
//                       with the engine's slowstart gating reduces (the Fair-x baselines).
//
// Monitor [§3.2]: every T_w seconds (window, 10 s) R_t = task completions in the window, f_t =
// R_t / T_w, a_t = available slots at the window's end (slots running maps, plus slots running
// reduces of jobs whose map phase is over); F_o and A_o are exponential averages with weight
// beta (0.4; the paper gives none) initialised to the first window's values. Prediction
// F_e = F_o * A_e / A_o (Eq. 4.1). Series "release_rate": time, f_t, F_o, a_t, A_o.
//
// Readings of the spec's ambiguities (defaults first):
//   * Lazy Start (lazy_mode): the printed argmin rule is degenerate (alpha decreases in x, so it
//     only selects a job before any map launched). "intended" (default): job i is a candidate
//     when m'_i <= x*_i = F_e(i) (T_s(i) - T_m(i)) with F_e(i) = F_o (A_o - r_i) / (A_o K), i.e.
//     alpha_i(m'_i) >= 0, or when all its maps are launched (m'_i = 0); it needs a finished map
//     (for d and T_m) and F_o > 0, A_o > r_i, else only the m'_i = 0 trigger applies. "abs":
//     m'_i minimises |alpha_i(x)| over x in [0, m'_i]. "literal": as printed (x in [m'_i, m_i]).
//     T_s(i) = d m_i / (B r_i), d = mean output bytes of the job's finished maps, B = the
//     engine's network_bandwidth (or the parameter), T_m(i) = mean finished map duration.
//     Among candidates, the job holding the fewest slots. m'_i = maps not yet launched.
//   * Principle 4.3.1: once a job's reduce phase started, its remaining reduces take the next
//     free slots first (consecutive_reduces = true).
//   * Batch Finish (batch_mode): "printed" (default) chooses, among running jobs whose reduce
//     phase started and with m'_i > 0, the largest t_fair - t_batch with t_batch < t_fair
//     (Eqs. 4.4-4.5; always true as printed). "strict" adds the batch's own duration:
//     t_batch = m'_i/F_o + T_m(i) + max(0, s - F_o T_m(i)) / F_e (the spec's construction).
//     Needs F_o > 0 and a finished map of the job. Scope (batch_scope): "reduce_started" (omo's
//     default, as printed) considers jobs whose reduce phase started. With Lazy Start off
//     (omo_batch_finish, "Batch Finish only, all at slowstart 1", Fig. 4.16) no job has started
//     reduces while maps are pending, so that scope never fires; omo_batch_finish therefore
//     defaults to "last_wave": jobs whose pending maps fit in the slots the cluster releases
//     during one of the job's map durations (0 < m'_i <= F_o T_m(i)), i.e. the tail that §4.3.3's
//     motivation describes (a job whose last maps would otherwise spread over another round while
//     its reduces wait). This scope is our reading, not the dissertation's. "all_running"
//     considers every running job with pending maps.
//   * Fair fallback: the running job with the fewest slots that has an eligible task (a pending
//     map, or a pending reduce if its map phase is over or was started by Lazy Start); its map
//     first. K = jobs submitted and unfinished. No admission control.
//   * Faults (not in the dissertation): when lost map outputs must re-run while waiting reduces
//     hold every slot of the pool, the youngest such reduce is killed for a map (mr_common.h).
//   * Deadlock guard (not in the paper): reduces of jobs still in their map phase may hold at most
//     early_reduce_limit (0.5) of the pool, in omo and fair_total alike; a pool full of reduces
//     waiting for maps that cannot get a slot never finishes.
#include <algorithm>
#include <cmath>

#include "mr_common.h"

namespace schedlab {
namespace mr {
namespace {

constexpr uint64_t kWindowTag = 0x0E0E'0000'0000'0001ULL;

// Whether one more reduce of a job still mapping keeps such reduces within `limit` of the pool.
bool early_room(const Sim& sim, double limit) {
  const double pool = double(sim.total_map_slots() + sim.total_reduce_slots());
  return double(early_reduce_attempts(sim) + 1) <= std::max(1.0, std::floor(limit * pool + 1e-9));
}

ParamSpec early_reduce_param() {
  return ParamSpec::number("early_reduce_limit", 0.5, 0, 0.99,
                           "largest fraction of the pool that reduces of jobs still in their map phase may hold "
                           "(they wait for maps that need slots too; without a cap a pool full of them deadlocks); "
                           "0.5 mirrors YARN's default reduce ramp-up limit");
}

class OmoScheduler : public Scheduler {
 public:
  // with nothing pending it launches nothing; its window statistics run on their timer
  bool quiet_without_pending() const override { return true; }
  OmoScheduler(const Params& p, bool lazy, bool batch)
      : lazy_(lazy),
        batch_(batch),
        lazy_mode_(p.choice("lazy_mode") == "intended" ? kIntended : p.choice("lazy_mode") == "abs" ? kAbs : kLiteral),
        strict_batch_(p.choice("batch_mode") == "strict"),
        window_(p.number("window")),
        beta_(p.number("beta")),
        bandwidth_param_(p.number("bandwidth")),
        consecutive_(p.boolean("consecutive_reduces")),
        batch_all_(p.choice("batch_scope") == "all_running"),
        batch_last_wave_(p.choice("batch_scope") == "last_wave"),
        early_limit_(p.number("early_reduce_limit")) {}

  SlotModel slot_model() const override { return SlotModel::Pooled; }

  void init(Sim& sim) override {
    const size_t nj = sim.workload().n_jobs();
    started_.assign(nj, 0);
    out_sum_.assign(nj, 0);
    map_dur_sum_.assign(nj, 0);
    bandwidth_ = bandwidth_param_ > 0 ? bandwidth_param_ : sim.options().network_bandwidth;
    sim.set_timer(window_, kWindowTag);
  }

  void on_attempt_finished(Sim& sim, int64_t a) override {
    const Attempt& at = sim.attempt(a);
    const auto& wl = sim.workload();
    ++releases_;
    if (wl.task_stage[at.task] == kMap) {
      const int32_t j = wl.task_job[at.task];
      out_sum_[j] += wl.output_bytes[at.task];
      map_dur_sum_[j] += at.finish - at.start;
    }
  }

  void on_timer(Sim& sim, uint64_t tag) override {
    if (tag != kWindowTag) return;
    const double f = releases_ / window_;
    releases_ = 0;
    double a = 0;
    const auto& wl = sim.workload();
    for (int32_t j : sim.active_jobs()) {
      const JobState& js = sim.job(j);
      a += js.running_attempts[kMap];
      if (js.done[kMap] == wl.n_maps[j]) a += js.running_attempts[kReduce];
    }
    if (!have_monitor_) {
      fo_ = f;
      ao_ = a;
      have_monitor_ = true;
    } else {
      fo_ = beta_ * f + (1 - beta_) * fo_;
      ao_ = beta_ * a + (1 - beta_) * ao_;
    }
    sim.series("release_rate", {"time", "f", "F_o", "a", "A_o"}).add_row({sim.now(), f, fo_, a, ao_});
    sim.set_timer(sim.now() + window_, kWindowTag);
  }

  void on_heartbeat(Sim& sim, int32_t node) override {
    if (kill_reduce_blocking_lost_maps(sim, node, kMap, true)) ++reduces_killed_;  // faults only: see mr_common.h
    while (sim.free_slots(node, kMap) > 0 && assign_one(sim, node)) {}
  }

  void finish(Sim&, SimResult& r) override {
    r.counters["omo_lazy_starts"] = double(lazy_picks_);
    r.counters["omo_batch_finish_maps"] = double(batch_picks_);
    r.counters["omo_fair_picks"] = double(fair_picks_);
    r.counters["reduces_killed_for_lost_maps"] = double(reduces_killed_);
  }

 private:
  enum LazyMode { kIntended, kAbs, kLiteral };

  bool map_phase_over(const Sim& sim, int32_t j) const { return sim.job(j).done[kMap] == sim.workload().n_maps[j]; }
  int32_t occupied(const Sim& sim, int32_t j) const {
    return sim.job(j).running_attempts[kMap] + sim.job(j).running_attempts[kReduce];
  }
  bool launch_reduce(Sim& sim, int32_t node, int32_t j) {
    if (!map_phase_over(sim, j) && !early_room(sim, early_limit_)) return false;
    const int32_t t = sim.find_reduce(j);
    if (t < 0) return false;
    sim.launch(t, node, kReduce);
    started_[j] = 1;
    return true;
  }
  bool launch_map(Sim& sim, int32_t node, int32_t j) {
    const int32_t t = sim.find_map(j, node, kRemote);
    if (t < 0) return false;
    sim.launch(t, node, kMap);
    return true;
  }

  bool assign_one(Sim& sim, int32_t node) {
    // Principle 4.3.1: a started reduce phase is launched consecutively
    if (consecutive_) {
      for (int32_t j : sim.active_jobs())
        if (started_[j] && sim.job(j).pending[kReduce] > 0 && launch_reduce(sim, node, j)) return true;
    }
    if (lazy_) {
      const int32_t j = lazy_start_reduce(sim);
      if (j >= 0 && launch_reduce(sim, node, j)) { ++lazy_picks_; return true; }
    }
    if (batch_) {
      const int32_t j = batch_finish_map(sim);
      if (j >= 0 && launch_map(sim, node, j)) { ++batch_picks_; return true; }
    }
    // Fair on total slots
    int32_t best = -1, best_occ = 0;
    for (int32_t j : sim.active_jobs()) {
      const JobState& js = sim.job(j);
      const bool map_ok = js.pending[kMap] > 0;
      const bool red_ok = js.pending[kReduce] > 0 && (started_[j] || map_phase_over(sim, j));
      if (!map_ok && !red_ok) continue;
      const int32_t occ = occupied(sim, j);
      if (best < 0 || occ < best_occ) { best = j; best_occ = occ; }
    }
    if (best < 0) return false;
    ++fair_picks_;
    if (sim.job(best).pending[kMap] > 0) return launch_map(sim, node, best);
    return launch_reduce(sim, node, best);  // map phase over (or started by Lazy Start)
  }

  // Algorithm 4.3.1 (read as the spec's lazy_mode says).
  int32_t lazy_start_reduce(const Sim& sim) const {
    const auto& wl = sim.workload();
    const double K = double(sim.active_jobs().size());
    int32_t best = -1, best_occ = 0;
    for (int32_t j : sim.active_jobs()) {
      const JobState& js = sim.job(j);
      if (started_[j] || js.pending[kReduce] == 0 || map_phase_over(sim, j)) continue;
      const double mp = js.pending[kMap], m = wl.n_maps[j], r = double(wl.n_reduces(j));
      bool cand = mp == 0;
      const bool stats = js.done[kMap] > 0 && have_monitor_ && fo_ > 0 && ao_ > r;
      if (!cand && lazy_mode_ == kLiteral) {
        // selected iff no x in (m', m] has alpha(x) < alpha(m'); alpha decreases in x when
        // F_e > 0, so only m' = m qualifies; without statistics alpha is flat in x
        cand = mp == m || !stats;
      } else if (!cand && stats) {
        const double tm = map_dur_sum_[j] / js.done[kMap];
        const double d = out_sum_[j] / js.done[kMap];
        const double ts = d * m / (bandwidth_ * r);
        const double fe = fo_ * (ao_ - r) / (ao_ * K);
        auto alpha = [&](double x) { return ts - (x / fe + tm); };
        if (lazy_mode_ == kIntended) cand = alpha(mp) >= 0;
        else cand = std::fabs(alpha(mp)) <= std::fabs(alpha(mp - 1));  // |alpha| is convex in x
      }
      if (!cand) continue;
      const int32_t occ = occupied(sim, j);
      if (best < 0 || occ < best_occ) { best = j; best_occ = occ; }
    }
    return best;
  }

  // Algorithm 4.3.2 (printed test, or the strict variant).
  int32_t batch_finish_map(const Sim& sim) const {
    if (!have_monitor_ || !(fo_ > 0) || !(ao_ > 0)) return -1;
    const auto& wl = sim.workload();
    const double K = double(sim.active_jobs().size());
    int32_t c = -1;
    double best = 0;
    for (int32_t j : sim.active_jobs()) {
      const JobState& js = sim.job(j);
      if (js.pending[kMap] == 0 || js.done[kMap] == 0) continue;
      const double mp = js.pending[kMap], r = double(wl.n_reduces(j));
      const double tm = map_dur_sum_[j] / js.done[kMap];
      if (batch_last_wave_ ? mp > fo_ * tm : !started_[j] && !batch_all_) continue;
      const double t_fair = K * mp / fo_ + tm;
      const double s = (K - 1) * mp + fo_ * (K - 1) * tm / K;
      const double fe = fo_ * (ao_ + r) / ao_;
      const double t_batch = strict_batch_ ? mp / fo_ + tm + std::max(0.0, s - fo_ * tm) / fe : s / fe;
      if (t_batch < t_fair && t_fair - t_batch > best) {
        best = t_fair - t_batch;
        c = j;
      }
    }
    return c;
  }

  bool lazy_, batch_;
  LazyMode lazy_mode_;
  bool strict_batch_;
  double window_, beta_, bandwidth_param_, bandwidth_ = 1;
  bool consecutive_, batch_all_, batch_last_wave_;
  double early_limit_;
  std::vector<uint8_t> started_;
  std::vector<double> out_sum_, map_dur_sum_;
  int64_t releases_ = 0;
  bool have_monitor_ = false;
  double fo_ = 0, ao_ = 0;
  int64_t lazy_picks_ = 0, batch_picks_ = 0, fair_picks_ = 0, reduces_killed_ = 0;
};

// The OMO chapter's modified Fair Scheduler on a pool of untyped slots.
class FairTotal : public Scheduler {
 public:
  // with nothing pending it launches nothing
  bool quiet_without_pending() const override { return true; }
  explicit FairTotal(const Params& p)
      : admission_(p.integer("k")), prefer_reduce_(p.choice("prefer") == "reduce"), early_limit_(p.number("early_reduce_limit")) {}
  SlotModel slot_model() const override { return SlotModel::Pooled; }
  void init(Sim& sim) override { admission_.init(sim); }
  void on_job_submitted(Sim& sim, int32_t job) override { admission_.on_submitted(sim, job); }
  void on_stage_finished(Sim& sim, int32_t job, int stage) override { admission_.on_stage_finished(sim, job, stage); }

  void on_heartbeat(Sim& sim, int32_t node) override {
    kill_reduce_blocking_lost_maps(sim, node, kMap, true);  // faults only: see mr_common.h
    while (sim.free_slots(node, kMap) > 0) {
      int32_t best = -1, best_occ = 0;
      bool best_red = false;
      // early_room() over the active jobs, asked once per pick (nothing it reads changes before the launch)
      int8_t early = -1;
      auto early_ok = [&] {
        if (early < 0) early = early_room(sim, early_limit_) ? 1 : 0;
        return early == 1;
      };
      for (int32_t j : sim.active_jobs()) {
        const JobState& js = sim.job(j);
        const bool map_ok = js.pending[kMap] > 0 && admission_.may_run(j, kMap);
        const bool red_ok = js.pending[kReduce] > 0 && sim.reduces_allowed(j) && admission_.may_run(j, kReduce) &&
                            (js.done[kMap] == sim.workload().n_maps[j] || early_ok());
        if (!map_ok && !red_ok) continue;
        const int32_t occ = js.running_attempts[kMap] + js.running_attempts[kReduce];
        if (best < 0 || occ < best_occ) {
          best = j;
          best_occ = occ;
          best_red = red_ok && (prefer_reduce_ || !map_ok);
        }
      }
      if (best < 0) return;
      const int32_t t = best_red ? sim.find_reduce(best) : sim.find_map(best, node, kRemote);
      if (t < 0) return;
      sim.launch(t, node, best_red ? kReduce : kMap);
    }
  }

 private:
  AdmissionControl admission_;
  bool prefer_reduce_;
  double early_limit_;
};

std::vector<ParamSpec> omo_params(const char* batch_scope = "reduce_started") {
  return {
      ParamSpec::choice("lazy_mode", "intended", {"intended", "abs", "literal"},
                        "Lazy Start rule: alpha_i(m'_i) >= 0 (intended, default), argmin |alpha| (abs), or the printed "
                        "argmin over [m'_i, m_i] (literal; degenerate: starts reduces at once)"),
      ParamSpec::choice("batch_mode", "printed", {"printed", "strict"},
                        "Batch Finish test: Eqs. 4.4-4.5 as printed (default) or counting the batch's own duration (strict)"),
      ParamSpec::number("window", 10, 1e-3, 1e9, "monitoring window T_w in seconds; at least 1 ms (a window is an event and a row over the whole span, idle gaps included)"),
      ParamSpec::number("beta", 0.4, 0, 1, "weight of the newest window in the exponential averages F_o and A_o"),
      ParamSpec::number("bandwidth", -1, -1, 1e15,
                        "B of T_s = d m / (B r) in bytes/s; -1 = the engine's network_bandwidth (the shuffle model)"),
      ParamSpec::choice("batch_scope", batch_scope, {"reduce_started", "last_wave", "all_running"},
                        "jobs Batch Finish considers: those whose reduce phase started (as printed; omo's default), those whose "
                        "pending maps fit in the slots released during one map duration, m' <= F_o T_m (last_wave; "
                        "omo_batch_finish's default, since without Lazy Start no job starts reduces while maps are pending), "
                        "or every running job with pending maps"),
      ParamSpec::boolean("consecutive_reduces", true,
                         "Principle 4.3.1: a job whose reduce phase started gets the next free slots for its remaining reduces"),
      early_reduce_param(),
  };
}

}  // namespace

void register_omo_schedulers() {
  register_scheduler({"omo", "", "OMO, Algorithm 4.3.3 (Lazy Start + Batch Finish + total-slot Fair) [Wang 2017, §4.3]",
                      "untyped slot pool; reduces start lazily from the slot-release rate, tail maps finish in a batch",
                      omo_params()},
                     [](const Params& p) { return std::make_unique<OmoScheduler>(p, true, true); });
  register_scheduler({"omo_lazy_start", "", "OMO with Lazy Start only (Alg. 4.3.1) [Wang 2017, §4.3.2]",
                      "untyped slot pool; reduces start lazily, otherwise total-slot Fair", omo_params()},
                     [](const Params& p) { return std::make_unique<OmoScheduler>(p, true, false); });
  register_scheduler({"omo_batch_finish", "", "OMO with Batch Finish only (Alg. 4.3.2) [Wang 2017, §4.3.3]",
                      "untyped slot pool; reduces after the map phase (slowstart 1), tail maps in a batch", omo_params("last_wave")},
                     [](const Params& p) { return std::make_unique<OmoScheduler>(p, false, true); });
  register_scheduler(
      {"fair_total", "", "Fair on total (map + reduce) slots of a dynamic pool [Wang 2017, §4.3.4, Algorithm 4.3.3; §4.4.1]",
       "untyped slot pool to the job holding the fewest slots; reduces gated by the engine's slowstart",
       {ParamSpec::integer("k", 0, 0, 1000000, "admission control: at most k jobs in map phase and k in reduce phase (0 = no limit)"),
        ParamSpec::choice("prefer", "reduce", {"reduce", "map"},
                          "when the chosen job has both, launch its reduce (default: reduces start as soon as slowstart allows, "
                          "as Hadoop's Fair does) or its map"),
        early_reduce_param()}},
      [](const Params& p) { return std::make_unique<FairTotal>(p); });
}

}  // namespace mr
}  // namespace schedlab

// Dice = Elastic Sizing + Opportunistic Preemption on Hawk or Eagle [Zhou 2019, §3.3.2].
//
// Every window (the engine's `window` option, 60 s) the centralized scheduler reads the mean
// waiting time CurrTWT of the short-job tasks that started executing in the window just ended
// (a window in which no short task started counts as 0) and computes
// p = model(min(CurrTWT / MaxTWT, 1)) with model linear (x), square (x^2) or sqrt (sqrt(x)).
//   Elastic Sizing: round(p x (MaxSPS - MinSPS)) general workers are blacklisted for the next
//     window: no task of a newly arriving long job is placed on them (running and queued long
//     work stays). Which workers is not specified [Zhou 2019, §3.3.2 I]: 'adjacent' (default) takes
//     the general workers next to the short partition, so the short partition grows
//     contiguously; 'random' draws them anew each window.
//   Opportunistic Preemption: round(p x CurrSPS x multiplier) requests go to random
//     general-partition workers: by default drawn without replacement among those Elastic Sizing
//     has not converted (the spec's suggested readings, Zhou 2019 and 16; at most one
//     request per worker); op_targets = "with_replacement" draws among all general workers with
//     replacement. CurrSPS includes the converted workers when Elastic Sizing runs. On the Hawk
//     base, converted workers are not stealing victims either (item 14; sparrow_hawk_eagle.cpp). A worker preempts only if it is executing a long task, has no other
//     long task suspended, that task was suspended fewer than max_preemptions times, and a
//     short probe is queued (Fig. 3.7). The task is checkpointed (the slot stays busy for
//     suspend_delay), the worker serves short probes only (in its base order) for
//     suspension_timeout, then resumes the task with its remaining work after resume_delay once
//     the running short task ends -- or at once when no short probe is left (the suggested
//     readings of §5.3). Requests reach workers instantly; LWL's waiting-time estimate does not
//     see suspensions.
// Final Dice configuration (defaults): ES linear, OP square, multiplier 1, MaxTWT 1000 s,
// delays 3 s / 10 s, timeout 100 s, at most 2 preemptions per task; MaxSPS = MinSPS + 8 % of
// the workers unless max_short_partition is given (10 / 17 / 25 % for Yahoo / Cloudera /
// Google, see schedlab.hybrid.dice_params).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "hybrid_common.h"

namespace schedlab::worker {

namespace {

enum class Model { Linear, Square, Sqrt };

Model model_of(const std::string& s) { return s == "square" ? Model::Square : s == "sqrt" ? Model::Sqrt : Model::Linear; }

double apply(Model m, double x) {
  switch (m) {
    case Model::Square: return x * x;
    case Model::Sqrt: return std::sqrt(x);
    default: return x;
  }
}

class DiceScheduler : public HybridScheduler {
 public:
  DiceScheduler(const HybridConfig& cfg, const Params& p)
      : HybridScheduler(cfg),
        es_(p.boolean("elastic_sizing")),
        op_(p.boolean("opportunistic_preemption")),
        max_twt_(p.number("max_twt")),
        max_sps_(p.number("max_short_partition")),
        es_model_(model_of(p.choice("es_model"))),
        op_model_(model_of(p.choice("op_model"))),
        es_random_(p.choice("es_nodes") == "random"),
        op_with_replacement_(p.choice("op_targets") == "with_replacement"),
        multiplier_(p.number("op_multiplier")),
        suspend_delay_(p.number("suspend_delay")),
        resume_delay_(p.number("resume_delay")),
        timeout_(p.number("suspension_timeout")),
        max_preempt_(p.integer("max_preemptions")) {}

  void init(Sim& sim) override {
    HybridScheduler::init(sim);
    if (sim.options().window <= 0)
      throw std::invalid_argument("dice: the simulate option 'window' must be > 0 (Dice's control period, 60 s)");
    const double min_sps = double(first_general_) / W_;
    // the default, short_partition + 8 %, is at least the short partition as rounded to whole
    // workers (on 5 workers a 10 % partition is 1 worker, 20 %) and leaves one general worker
    const double max_sps = max_sps_ < 0 ? std::min(std::max(min_sps, sim.options().short_partition + 0.08), 1.0 - 1.0 / W_)
                                        : max_sps_;
    if (max_sps < min_sps - 1e-12 || max_sps >= 1.0)
      throw std::invalid_argument("dice: parameter 'max_short_partition' must lie between the short partition (" +
                                  std::to_string(min_sps) + ") and 1");
    range_ = std::max<int64_t>(0, static_cast<int64_t>(std::floor(max_sps * W_ + 1e-9)) - first_general_);
    range_ = std::min<int64_t>(range_, W_ - first_general_ - 1);
    perm_.resize(W_ - first_general_);
    std::iota(perm_.begin(), perm_.end(), first_general_);
  }

  void on_window(Sim& sim, const WindowStats& ws) override {
    const double twt = std::isnan(ws.short_wait_mean) ? 0.0 : ws.short_wait_mean;
    const double x = std::min(twt / max_twt_, 1.0);
    // Elastic Sizing: a fresh blacklist for the next window
    std::fill(blacklist_.begin(), blacklist_.end(), 0);
    int64_t converted = 0;
    if (es_ && range_ > 0) {
      converted = static_cast<int64_t>(std::floor(apply(es_model_, x) * double(range_) + 0.5));
      if (es_random_) {
        for (int64_t i = 0; i < converted; ++i) {  // partial Fisher-Yates over the general workers
          const size_t j = i + sim.rng().below(perm_.size() - i);
          std::swap(perm_[i], perm_[j]);
          blacklist_[perm_[i] >> 6] |= 1ULL << (perm_[i] & 63);
        }
      } else {
        for (int64_t i = 0; i < converted; ++i) {
          const int32_t w = first_general_ + static_cast<int32_t>(i);
          blacklist_[w >> 6] |= 1ULL << (w & 63);
        }
      }
    }
    // Opportunistic Preemption
    int64_t requests = 0, done = 0;
    if (op_) {
      const double curr_sps = double(first_general_ + converted);
      requests = static_cast<int64_t>(std::floor(apply(op_model_, x) * curr_sps * multiplier_ + 0.5));
      // targets: the general workers not converted, drawn without replacement (partial
      // Fisher-Yates over targets_), or any general worker with replacement
      targets_.clear();
      if (!op_with_replacement_)
        for (int32_t w = first_general_; w < W_; ++w)
          if (!((blacklist_[w >> 6] >> (w & 63)) & 1)) targets_.push_back(w);
      const int64_t n_requests = op_with_replacement_ ? requests : std::min<int64_t>(requests, int64_t(targets_.size()));
      for (int64_t i = 0; i < n_requests; ++i) {
        int32_t w;
        if (op_with_replacement_) {
          w = first_general_ + static_cast<int32_t>(sim.rng().below(W_ - first_general_));
        } else {
          const size_t j = size_t(i) + sim.rng().below(targets_.size() - size_t(i));
          std::swap(targets_[size_t(i)], targets_[j]);
          w = targets_[size_t(i)];
        }
        const WorkerState& s = sim.worker(w);
        if (!s.exec_long || s.attempt < 0 || sim.att_start(s.attempt) > sim.now()) { ++not_long_; continue; }
        if (s.suspended_task >= 0) { ++already_; continue; }
        if (sim.suspensions(sim.att_task(s.attempt)) >= max_preempt_) { ++limit_; continue; }
        if (s.qlen - s.qlong <= 0) { ++no_short_; continue; }
        if (sim.suspend(w, suspend_delay_, timeout_, resume_delay_)) ++done;
        else ++not_long_;
      }
      requests_ += double(requests);
      preempted_ += double(done);
    }
    sim.series("dice", {"time", "dice_wait_signal", "converted_nodes", "preemption_requests", "preemptions"})
        .add_row({ws.end, twt, double(converted), double(requests), double(done)});
  }

  void finish(Sim& sim, SimResult& r) override {
    HybridScheduler::finish(sim, r);
    if (op_) {
      r.counters["preemption_requests"] = requests_;
      r.counters["preempted"] = preempted_;
      r.counters["preemption_ignored_not_running_long"] = not_long_;
      r.counters["preemption_ignored_already_suspended"] = already_;
      r.counters["preemption_ignored_limit"] = limit_;
      r.counters["preemption_ignored_no_short_probe"] = no_short_;
    }
  }

 private:
  bool es_, op_;
  double max_twt_, max_sps_;
  Model es_model_, op_model_;
  bool es_random_, op_with_replacement_;
  double multiplier_, suspend_delay_, resume_delay_, timeout_;
  int64_t max_preempt_;
  int64_t range_ = 0;
  std::vector<int32_t> perm_, targets_;
  double requests_ = 0, preempted_ = 0, not_long_ = 0, already_ = 0, limit_ = 0, no_short_ = 0;
};

}  // namespace

void register_dice_scheduler() {
  std::vector<ParamSpec> params = {
      ParamSpec::choice("base", "eagle", {"hawk", "eagle"}, "the hybrid scheduler Dice runs on"),
      ParamSpec::boolean("elastic_sizing", true, "Elastic Sizing: blacklist general workers for new long tasks"),
      ParamSpec::boolean("opportunistic_preemption", true, "Opportunistic Preemption: suspend long tasks for short probes"),
      ParamSpec::number("max_twt", 1000, 1e-9, 1e12, "MaxTWT: waiting time (s) at which both mechanisms act fully"),
      ParamSpec::number("max_short_partition", -1, -1, 0.999,
                        "MaxSPS as a fraction of the workers; -1 = short_partition + 0.08 (the dissertation's 10/17/25 % "
                        "for Yahoo/Cloudera/Google)"),
      ParamSpec::choice("es_model", "linear", {"linear", "square", "sqrt"}, "Elastic Sizing's model (final Dice: linear)"),
      ParamSpec::choice("es_nodes", "adjacent", {"adjacent", "random"},
                        "which general workers Elastic Sizing converts: next to the short partition (default) or random "
                        "ones each window (unspecified in the dissertation)"),
      ParamSpec::choice("op_model", "square", {"linear", "square", "sqrt"}, "Opportunistic Preemption's model (final Dice: square)"),
      ParamSpec::number("op_multiplier", 1.0, 0, 1e6, "scales the number of preemption requests (final Dice: 1.0)"),
      ParamSpec::choice("op_targets", "unconverted", {"unconverted", "with_replacement"},
                        "preemption targets: general workers not converted by Elastic Sizing, without replacement "
                        "(default, the spec's reading) or any general worker with replacement"),
      ParamSpec::number("suspend_delay", 3, 0, 1e9, "seconds to checkpoint and suspend a long task"),
      ParamSpec::number("resume_delay", 10, 0, 1e9, "seconds to restore a suspended task"),
      ParamSpec::number("suspension_timeout", 100, 0, 1e12, "seconds a long task stays suspended"),
      ParamSpec::integer("max_preemptions", 2, 0, 1000, "suspensions allowed per task"),
      ParamSpec::number("probe_ratio", 2, 1e-9, 1000, "probes per task of a short job; at most 1000 (500x the papers' d = 2)"),
      ParamSpec::integer("min_probes", -1, -1, 100000, "minimum probes per short job; -1 = the base's default (Hawk 2, Eagle 20); at most 100000"),
      ParamSpec::boolean("stealing", true, "Hawk base: randomized work stealing"),
      ParamSpec::integer("steal_attempts", 10, 0, 10000, "Hawk base: victims tried per steal; at most 10000 (1000x the simulator's 10)"),
      ParamSpec::integer("steal_limit", 10000, 1, 1000000000, "Hawk base: most probes taken per steal"),
      ParamSpec::choice("steal_rule", "atc", {"atc", "random"}, "Hawk base: stealing's extraction rule (see hawk)"),
      ParamSpec::number("starvation_cap", 5, 0, 1e9, "Eagle base: SRPT starvation cap"),
  };
  register_scheduler(
      {"dice", "", "Zhou diss. ch. 3 (Dice, ICPP'19) [Zhou 2019, ch. 3]",
       "Elastic Sizing of the short partition and Opportunistic Preemption of long tasks, driven by the short tasks' "
       "waiting time per window, on Hawk or Eagle",
       params},
      [](const Params& p) {
        HybridConfig c;
        const bool eagle = p.choice("base") == "eagle";
        c.probe_ratio = p.number("probe_ratio");
        c.min_probes = p.integer("min_probes") >= 0 ? p.integer("min_probes") : (eagle ? 20 : 2);
        if (eagle) {
          c.sss = c.sbp = c.srpt = true;
          c.starvation_cap = p.number("starvation_cap");
        } else {
          c.steal = p.boolean("stealing");
          c.steal_attempts = p.integer("steal_attempts");
          c.steal_limit = p.integer("steal_limit");
          c.steal_random = p.choice("steal_rule") == "random";
        }
        return std::make_unique<DiceScheduler>(c, p);
      });
}

}  // namespace schedlab::worker

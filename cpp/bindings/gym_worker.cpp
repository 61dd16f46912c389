// The worker engine as a reinforcement-learning environment (schedlab.gym.WorkerEnv).
//
// The engine runs in its stepping mode (worker::Sim::start / resume / pause): the scheduler of this
// file (WorkerGymScheduler) pauses the engine at a decision, resume() returns once that event is
// processed, and step(action) acts on the decision before resuming. No thread waits. The decision
// is one of the two of the worker-engine scheduler interface (schedlab.schedulers.WorkerScheduler):
//
//  * "send_probes": a job arrives -> the agent chooses, probe by probe, the worker each of the
//    job's probes goes to (max(ceil(probe_ratio x tasks), min_probes) probes; one per task by
//    default: central placement). The probes leave together, as one send_probes(), once the last
//    one is placed, at the arrival time. Queues are FIFO and tasks late-bound (the engine's
//    defaults). Shown workers: all of them when the cluster has at most max_rows workers, else
//    max_rows distinct workers drawn uniformly for each probe (the environment's own stream).
//  * "pick_probe": a worker is free and its queue holds two or more probes -> the agent chooses
//    which queued probe it serves (the first max_rows in queue order are shown). The worker stays
//    free until the step (at the same simulated time; the picks of one event are asked one after
//    another, in the order the engine asked them). Probes are placed by Sparrow's batch sampling
//    (max(ceil(probe_ratio x tasks), min_probes) probes to uniformly drawn workers, from the
//    engine's scheduler stream exactly as the built-in sparrow draws them), so that always
//    choosing the queue's head gives sparrow's schedule.
//
// Rewards (gym_reward.h): a job's ideal duration is its longest task as the engine runs it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.h"
#include "gym_reward.h"
#include "schedlab/random.h"
#include "schedlab/worker.h"

namespace py = pybind11;

namespace schedlab::bindings {
namespace {

enum class Decision { SendProbes, PickProbe };

// send_probes: the arriving job (context) and one row per shown worker
constexpr int kJobFeatures = 10;     // tasks, est_task_duration, is_long, probes_left, probes, deadline_slack,
                                     // has_deadline, time, active_jobs, busy_workers
constexpr int kWorkerFeatures = 7;   // present, queue_length, queued_work, busy, running_left, long_work, placed
// pick_probe: the free worker (context) and one row per shown probe
constexpr int kFreeWorkerFeatures = 6;  // queue_length, queued_work, hidden_probes, time, active_jobs, busy_workers
constexpr int kProbeFeatures = 10;      // present, waiting_time, unlaunched, tasks, running, est_task_duration,
                                        // is_long, remaining_work, deadline_slack, has_deadline

class WorkerGymScheduler final : public worker::Scheduler {
 public:
  Decision decision = Decision::SendProbes;
  double probe_ratio = 1;
  int64_t min_probes = 1, min_probes_long = 1;

  void reset(const Workload& wl, const worker::Options& opt) {
    const size_t nj = wl.n_jobs();
    episode_.inv_ideal.assign(nj, 0.0);
    for (size_t j = 0; j < nj; ++j) {
      double ideal = 0;
      for (int64_t t = wl.task_begin[j]; t < wl.task_begin[j + 1]; ++t)
        ideal = std::max(ideal, opt.truncate ? std::trunc(wl.work[t]) : wl.work[t]);
      episode_.inv_ideal[j] = ideal > 0 ? 1.0 / ideal : 1.0;
    }
    done_.assign(nj, 0);
    arrivals_.clear();
    arrivals_head_ = 0;
    waiting_.clear();
    waiting_head_ = 0;
    forced_w_ = forced_p_ = -1;
    episode_.restart();
  }
  void init(worker::Sim& sim) override { pending_.assign(sim.n_workers(), 0); }
  void on_job_arrival(worker::Sim& sim, int32_t job) override {
    episode_.job_arrived(sim.now(), job);
    if (decision == Decision::SendProbes) {
      arrivals_.push_back(job);
      sim.pause();
      return;
    }
    // Sparrow's batch sampling, drawn as the built-in draws it
    const int64_t n = n_probes(sim, job);
    targets_.clear();
    for (int64_t i = 0; i < n; ++i) targets_.push_back(static_cast<int32_t>(sim.rng().below(sim.n_workers())));
    sim.send_probes(job, targets_.data(), targets_.size(), sim.delay());
  }
  int32_t pick_probe(worker::Sim& sim, int32_t w, bool short_only) override {
    if (w == forced_w_) return forced_p_;
    if (decision == Decision::PickProbe && !short_only && episode_.active > 0 && sim.worker(w).qlen >= 2) {
      if (!pending_[w]) {
        pending_[w] = 1;
        waiting_.push_back(w);
      }
      sim.pause();
      return -1;
    }
    return worker::Scheduler::pick_probe(sim, w, short_only);
  }
  void on_task_end(worker::Sim& sim, int32_t, int64_t a, bool first_copy) override {
    if (!first_copy) return;
    const int32_t job = sim.workload().task_job[sim.att_task(a)];
    if (++done_[job] < sim.n_tasks(job)) return;
    const double d = sim.workload().deadline[job];
    episode_.job_finished(sim.now(), job, !std::isnan(d) && sim.now() > d + 1e-9);
  }

  int64_t n_probes(worker::Sim& sim, int32_t job) const {
    const int64_t want = static_cast<int64_t>(std::ceil(probe_ratio * sim.n_tasks(job) - 1e-9));
    return std::max(want, sim.is_long(job) ? min_probes_long : min_probes);
  }

  // decisions waiting for the agent
  std::vector<int32_t> arrivals_;  // send_probes: jobs whose probes are to be placed
  size_t arrivals_head_ = 0;
  std::vector<int32_t> waiting_;   // pick_probe: free workers whose pick is to be made, in request order
  size_t waiting_head_ = 0;
  std::vector<uint8_t> pending_;   // per worker: in waiting_
  int32_t forced_w_ = -1, forced_p_ = -1;  // the pick being applied (kick)

  EpisodeReward episode_;
  std::vector<int32_t> done_, targets_;
};

Decision decision_from(const std::string& s) {
  if (s == "send_probes") return Decision::SendProbes;
  if (s == "pick_probe") return Decision::PickProbe;
  throw py::value_error("decision must be 'send_probes' or 'pick_probe', got '" + s + "'");
}

class WorkerGym {
 public:
  WorkerGym(std::shared_ptr<Cluster> cluster, std::shared_ptr<Workload> workload, py::dict options,
            const std::string& decision, int32_t max_rows, const std::string& reward, double probe_ratio,
            int64_t min_probes)
      : cl_(std::move(cluster)), wl_(std::move(workload)), K_(max_rows), reward_(reward_from(reward)) {
    if (max_rows < 1 || max_rows > 100000) throw py::value_error("max_rows must be between 1 and 100000");
    if (!(probe_ratio > 0 && probe_ratio <= 1e6)) throw py::value_error("probe_ratio must be in (0, 1e6]");
    if (min_probes < 1 || min_probes > 1000000) throw py::value_error("min_probes must be between 1 and 1000000");
    Params op("simulate options (worker engine)", worker::Options::specs(), to_values(options));
    cl_->validate();
    wl_->validate_for_run(cl_->size());
    opt_ = worker::Options::from(op);
    if (!options.contains("time_limit")) {
      int64_t slots = 0;
      for (int32_t x : cl_->slots) slots += x;
      opt_.time_limit = gym_default_time_limit(wl_->submit_time, wl_->work, slots);
    }
    sched_.decision = decision_from(decision);
    sched_.probe_ratio = probe_ratio;
    sched_.min_probes = sched_.min_probes_long = min_probes;
    C_ = sched_.decision == Decision::SendProbes ? kJobFeatures : kFreeWorkerFeatures;
    F_ = sched_.decision == Decision::SendProbes ? kWorkerFeatures : kProbeFeatures;
    if (sched_.decision == Decision::SendProbes) {
      key_ctx_ = py::str("job");
      key_rows_ = py::str("workers");
    } else {
      key_ctx_ = py::str("worker");
      key_rows_ = py::str("probes");
    }
    ctx_.assign(C_, 0.0f);
    rows_.assign(static_cast<size_t>(K_) * F_, 0.0f);
    mask_.assign(K_, 0);
    shown_.assign(K_, -1);
  }

  // Starts an episode; returns whether it is already over (no decision ever comes).
  bool reset(uint64_t seed) {
    sched_.reset(*wl_, opt_);
    sim_.reset();  // the old run refers to the scheduler's state
    sim_ = std::make_unique<worker::Sim>(*cl_, *wl_, sched_, opt_, seed);
    rng_ = Random(seed, 17);
    W_ = sim_->n_workers();
    placed_.assign(W_, 0);
    mark_.assign(W_, 0);
    job_ = -1;
    sim_->start();
    over_ = false;
    advance();  // the reward accrued before the first decision goes to the first step
    return over_;
  }

  // Acts on the pending decision; returns Gymnasium's (observation, reward x scale, terminated,
  // truncated, info), the observation a dict of fresh arrays, info {"time": now}.
  py::tuple step_observe(int64_t action, double scale) {
    const double r = act(action);
    const bool terminated = over_ && sched_.episode_.finished == static_cast<int64_t>(wl_->n_jobs());
    py::dict info;
    info[key_time_] = now();
    return py::make_tuple(observation(), r * scale, terminated, over_ && !terminated, std::move(info));
  }

  py::dict observation() const {
    py::array_t<float> c(C_);
    py::array_t<float> rows({static_cast<py::ssize_t>(K_), static_cast<py::ssize_t>(F_)});
    py::array_t<int8_t> m(K_);
    std::copy(ctx_.begin(), ctx_.end(), c.mutable_data());
    std::copy(rows_.begin(), rows_.end(), rows.mutable_data());
    std::copy(mask_.begin(), mask_.end(), m.mutable_data());
    py::dict d;
    d[key_ctx_] = std::move(c);
    d[key_rows_] = std::move(rows);
    d[key_mask_] = std::move(m);
    return d;
  }

  py::dict result() {
    if (!sim_) throw py::value_error("call reset() first");
    // collect() hands the engine's columns over to the result: the episode could not go on after it
    if (!over_) throw py::value_error("result(): the episode is still running; its result is ready once step() "
                                      "returns terminated or truncated");
    return result_dict(sim_->collect());
  }
  double now() const { return sim_ ? sim_->now() : 0.0; }
  double time_limit() const { return opt_.time_limit; }
  // send_probes: the job being placed; pick_probe: the free worker (-1 once the episode is over)
  int32_t subject() const {
    if (over_ || !sim_) return -1;
    return sched_.decision == Decision::SendProbes ? job_ : sched_.waiting_[sched_.waiting_head_];
  }
  py::list shown() const {
    py::list out;
    for (int32_t x : shown_) out.append(x);
    return out;
  }

 private:
  double act(int64_t action) {
    if (!sim_) throw py::value_error("call reset() before step()");
    if (over_) throw py::value_error("the episode is over: call reset()");
    if (action < 0 || action >= K_) throw py::value_error("action must be in 0.." + std::to_string(K_ - 1));
    worker::Sim& sim = *sim_;
    if (sched_.decision == Decision::SendProbes) {
      // a masked row: a uniformly drawn worker (batch sampling's choice)
      const int32_t w = mask_[action] ? shown_[action] : static_cast<int32_t>(rng_.below(W_));
      targets_.push_back(w);
      ++placed_[w];
      if (--probes_left_ == 0) {
        sim.send_probes(job_, targets_.data(), targets_.size(), sim.delay());
        for (int32_t t : targets_) placed_[t] = 0;
        targets_.clear();
        job_ = -1;
      }
    } else {
      const int32_t w = sched_.waiting_[sched_.waiting_head_++];
      sched_.pending_[w] = 0;
      // a masked row: the queue's head (FIFO)
      sched_.forced_p_ = mask_[action] ? shown_[action] : shown_[0];
      sched_.forced_w_ = w;
      sim.kick(w);
      sched_.forced_w_ = sched_.forced_p_ = -1;
    }
    advance();
    return sched_.episode_.take(reward_);
  }

  // Whether a decision is waiting (starting the next job's placement if one arrived).
  bool decision_pending() {
    if (sched_.decision == Decision::SendProbes) {
      if (job_ >= 0) return true;
      if (sched_.arrivals_head_ < sched_.arrivals_.size()) {
        job_ = sched_.arrivals_[sched_.arrivals_head_++];
        probes_total_ = probes_left_ = sched_.n_probes(*sim_, job_);
        if (sched_.arrivals_head_ == sched_.arrivals_.size()) {
          sched_.arrivals_.clear();
          sched_.arrivals_head_ = 0;
        }
        return true;
      }
      return false;
    }
    if (sched_.waiting_head_ < sched_.waiting_.size()) return true;
    sched_.waiting_.clear();
    sched_.waiting_head_ = 0;
    return false;
  }

  // Runs the engine to the next decision (observed) or to the end, without the GIL.
  void advance() {
    py::gil_scoped_release release;
    for (;;) {
      if (decision_pending()) {
        sched_.episode_.account(sim_->now());
        observe();
        return;
      }
      if (!sim_->resume()) break;
    }
    over_ = true;
    sched_.episode_.account(sim_->now());
    job_ = -1;
    std::fill(ctx_.begin(), ctx_.end(), 0.0f);
    std::fill(rows_.begin(), rows_.end(), 0.0f);
    std::fill(mask_.begin(), mask_.end(), int8_t(0));
    std::fill(shown_.begin(), shown_.end(), -1);
  }

  // Estimated work queued on worker w (est of each queued probe whose job has tasks to launch) and
  // its live probes.
  double queued_work(worker::Sim& sim, int32_t w) const {
    double q = 0;
    for (const worker::QueueEntry* e = sim.queue_begin(w); e != sim.queue_end(w); ++e)
      if (e->live() && sim.unlaunched(e->job) > 0) q += sim.est(e->job);
    return q;
  }

  void observe() {
    worker::Sim& sim = *sim_;
    const double now = sim.now();
    std::fill(rows_.begin(), rows_.end(), 0.0f);
    std::fill(mask_.begin(), mask_.end(), int8_t(0));
    std::fill(shown_.begin(), shown_.end(), -1);
    if (sched_.decision == Decision::SendProbes) {
      const int32_t j = job_;
      const double d = wl_->deadline[j];
      ctx_[0] = static_cast<float>(sim.n_tasks(j));
      ctx_[1] = static_cast<float>(sim.est(j));
      ctx_[2] = sim.is_long(j) ? 1.0f : 0.0f;
      ctx_[3] = static_cast<float>(probes_left_);
      ctx_[4] = static_cast<float>(probes_total_);
      ctx_[5] = std::isnan(d) ? 0.0f : static_cast<float>(d - now);
      ctx_[6] = std::isnan(d) ? 0.0f : 1.0f;
      ctx_[7] = static_cast<float>(now);
      ctx_[8] = static_cast<float>(sched_.episode_.active);
      ctx_[9] = static_cast<float>(sim.busy_workers());
      // the shown workers: all, or K distinct ones drawn uniformly (Floyd's method), in id order
      int32_t n = 0;
      if (W_ <= K_) {
        for (int32_t w = 0; w < W_; ++w) shown_[n++] = w;
      } else {
        for (int64_t i = W_ - K_; i < W_; ++i) {
          int32_t w = static_cast<int32_t>(rng_.below(static_cast<uint64_t>(i) + 1));
          if (mark_[w]) w = static_cast<int32_t>(i);
          mark_[w] = 1;
          shown_[n++] = w;
        }
        std::sort(shown_.begin(), shown_.begin() + n);
        for (int32_t k = 0; k < n; ++k) mark_[shown_[k]] = 0;
      }
      for (int32_t k = 0; k < n; ++k) {
        const int32_t w = shown_[k];
        const worker::WorkerState& s = sim.worker(w);
        float* row = rows_.data() + static_cast<size_t>(k) * F_;
        double left = 0;
        if (s.attempt >= 0 && sim.att_running(s.attempt)) {
          const int32_t rj = wl_->task_job[sim.att_task(s.attempt)];
          left = std::max(0.0, sim.att_start(s.attempt) + sim.est(rj) - now);
        }
        row[0] = 1.0f;
        row[1] = static_cast<float>(s.qlen);
        row[2] = static_cast<float>(queued_work(sim, w));
        row[3] = s.busy ? 1.0f : 0.0f;
        row[4] = static_cast<float>(left);
        row[5] = sim.has_long_work(w) ? 1.0f : 0.0f;
        row[6] = static_cast<float>(placed_[w]);
        mask_[k] = 1;
      }
      return;
    }
    const int32_t w = sched_.waiting_[sched_.waiting_head_];
    int32_t k = 0, hidden = 0;
    double qwork = 0;
    for (const worker::QueueEntry* e = sim.queue_begin(w); e != sim.queue_end(w); ++e) {
      if (!e->live()) continue;
      const int32_t j = e->job;
      const int32_t unl = sim.unlaunched(j);
      if (unl > 0) qwork += sim.est(j);
      if (k == K_) { ++hidden; continue; }
      const double d = wl_->deadline[j];
      float* row = rows_.data() + static_cast<size_t>(k) * F_;
      row[0] = 1.0f;
      row[1] = static_cast<float>(now - sim.submit(j));
      row[2] = static_cast<float>(unl);
      row[3] = static_cast<float>(sim.n_tasks(j));
      row[4] = static_cast<float>(sim.n_tasks(j) - unl - sched_.done_[j]);
      row[5] = static_cast<float>(sim.est(j));
      row[6] = sim.is_long(j) ? 1.0f : 0.0f;
      row[7] = static_cast<float>(unl * sim.est(j));
      row[8] = std::isnan(d) ? 0.0f : static_cast<float>(d - now);
      row[9] = std::isnan(d) ? 0.0f : 1.0f;
      shown_[k] = e->probe();
      mask_[k] = 1;
      ++k;
    }
    ctx_[0] = static_cast<float>(sim.worker(w).qlen);
    ctx_[1] = static_cast<float>(qwork);
    ctx_[2] = static_cast<float>(hidden);
    ctx_[3] = static_cast<float>(now);
    ctx_[4] = static_cast<float>(sched_.episode_.active);
    ctx_[5] = static_cast<float>(sim.busy_workers());
  }

  std::shared_ptr<Cluster> cl_;
  std::shared_ptr<Workload> wl_;
  worker::Options opt_;
  int32_t K_;
  Reward reward_;
  WorkerGymScheduler sched_;
  std::unique_ptr<worker::Sim> sim_;
  Random rng_;
  int32_t W_ = 0, C_ = 0, F_ = 0;
  bool over_ = true;
  // send_probes: the job being placed, its probes' targets so far
  int32_t job_ = -1;
  int64_t probes_total_ = 0, probes_left_ = 0;
  std::vector<int32_t> targets_, placed_;
  std::vector<uint8_t> mark_;
  // the observation, written without the GIL; copied into fresh arrays by observation()
  std::vector<float> ctx_, rows_;
  std::vector<int8_t> mask_;
  std::vector<int32_t> shown_;  // worker (send_probes) or probe (pick_probe) id of each row, -1 if empty
  py::str key_ctx_, key_rows_, key_mask_{"action_mask"}, key_time_{"time"};
};

}  // namespace

void bind_gym_worker(py::module_& m) {
  py::class_<WorkerGym>(m, "WorkerGym",
                        "The worker engine paused at each placement or queue decision (see schedlab.gym.WorkerEnv)")
      .def(py::init<std::shared_ptr<Cluster>, std::shared_ptr<Workload>, py::dict, const std::string&, int32_t,
                    const std::string&, double, int64_t>(),
           py::arg("cluster"), py::arg("workload"), py::arg("options"), py::arg("decision"), py::arg("max_rows"),
           py::arg("reward"), py::arg("probe_ratio"), py::arg("min_probes"))
      .def("reset", &WorkerGym::reset, py::arg("seed"))
      .def("step_observe", &WorkerGym::step_observe, py::arg("action"), py::arg("scale") = 1.0,
           "acts; returns (observation dict of copies, reward x scale, terminated, truncated, {'time': now})")
      .def("observation", &WorkerGym::observation, "the observation: a dict of copies of the buffers")
      .def("result", &WorkerGym::result)
      .def_property_readonly("now", &WorkerGym::now)
      .def_property_readonly("time_limit", &WorkerGym::time_limit)
      .def_property_readonly("subject", &WorkerGym::subject,
                             "send_probes: the job being placed; pick_probe: the free worker; -1 once over")
      .def("shown", &WorkerGym::shown, "the worker (send_probes) or probe (pick_probe) id of each row, -1 if empty");
}

}  // namespace schedlab::bindings

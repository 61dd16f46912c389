// The MapReduce engine as a reinforcement-learning environment (schedlab.gym.MapReduceEnv).
//
// The engine runs in its stepping mode (mr::Sim::start / resume / pause): a scheduler of this
// file (GymScheduler) pauses the engine when a heartbeat leaves a free map slot on its node and
// some job has a pending map. resume() then returns to the caller with the clock at that
// heartbeat, and step(action) launches a map of the chosen job on that node (or leaves the slot
// idle until the node's next heartbeat) before resuming. No thread waits: the engine's loop simply
// returns at a decision point and picks up where it stopped.
//
// Reduces are not the agent's: each heartbeat first fills the node's free reduce slots in job
// submission order with the reduces of jobs past slowstart (as Hadoop's FIFO scheduler does, one
// job after another).
//
// Observation (float32, filled in place in buffers Python copies): for the first max_jobs active
// jobs with a pending map, in submission order, one row of JOB_FEATURES; the decision node's
// NODE_FEATURES; an action mask (int8, max_jobs + 1 entries: a shown job, then "leave idle").
// Rewards (gym_reward.h): a job's ideal duration is its longest map plus its longest reduce at
// speed 1.
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
#include "schedlab/mapreduce.h"

namespace py = pybind11;

namespace schedlab::bindings {
namespace {

constexpr int kJobFeatures = 10;
constexpr int kNodeFeatures = 7;

class GymScheduler final : public mr::Scheduler {
 public:
  void reset(const Workload& wl) {
    const size_t nj = wl.n_jobs();
    episode_.inv_ideal.assign(nj, 0.0);
    mean_map_.assign(nj, 0.0);
    for (size_t j = 0; j < nj; ++j) {
      double mmax = 0, rmax = 0, msum = 0;
      for (int64_t t = wl.task_begin[j]; t < wl.task_begin[j + 1]; ++t) {
        const double e = wl.estimate[t];
        if (wl.task_stage[t] == kMap) { mmax = std::max(mmax, e); msum += e; }
        else rmax = std::max(rmax, e);
      }
      const double ideal = mmax + rmax;
      episode_.inv_ideal[j] = ideal > 0 ? 1.0 / ideal : 1.0;
      mean_map_[j] = wl.n_maps[j] > 0 ? msum / wl.n_maps[j] : 0.0;
    }
    node_ = -1;
    episode_.restart();
  }
  void on_job_submitted(mr::Sim& sim, int32_t job) override { episode_.job_arrived(sim.now(), job); }
  void on_job_finished(mr::Sim& sim, int32_t job) override {
    const double d = sim.workload().deadline[job];
    episode_.job_finished(sim.now(), job, !std::isnan(d) && sim.job(job).finish > d + 1e-9);
  }
  void on_heartbeat(mr::Sim& sim, int32_t node) override {
    // reduces: job order, slowstart met
    for (int32_t j : sim.active_jobs()) {
      if (sim.free_slots(node, kReduce) <= 0) break;
      if (!sim.reduces_allowed(j)) continue;
      for (int32_t t; sim.free_slots(node, kReduce) > 0 && (t = sim.find_reduce(j)) >= 0;) sim.launch(t, node, kReduce);
    }
    if (needs_decision(sim, node)) {
      node_ = node;
      sim.pause();
    }
  }
  bool needs_decision(mr::Sim& sim, int32_t node) const {
    if (sim.free_slots(node, kMap) <= 0) return false;
    for (int32_t j : sim.active_jobs())
      if (sim.job(j).pending[kMap] > 0) return true;
    return false;
  }

  EpisodeReward episode_;
  std::vector<double> mean_map_;
  int32_t node_ = -1;
};

int64_t total(const std::vector<int32_t>& v) {
  int64_t n = 0;
  for (int32_t x : v) n += x;
  return n;
}

class MapReduceGym {
 public:
  MapReduceGym(std::shared_ptr<Cluster> cluster, std::shared_ptr<Workload> workload, py::dict options, int32_t max_jobs,
               const std::string& reward)
      : cl_(std::move(cluster)), wl_(std::move(workload)), K_(max_jobs), reward_(reward_from(reward)) {
    if (max_jobs < 1 || max_jobs > 100000) throw py::value_error("max_jobs must be between 1 and 100000");
    Params op("simulate options (mapreduce engine)", mr::Options::specs(), to_values(options));
    cl_->validate();
    wl_->validate_for_run(cl_->size());
    opt_ = mr::Options::from(op);
    if (!options.contains("time_limit"))
      opt_.time_limit = gym_default_time_limit(wl_->submit_time, wl_->work, total(cl_->map_slots));
    if (opt_.driven) throw py::value_error("the environment runs the engine in its stepping mode, not driven");
    jobs_ = py::array_t<float>({static_cast<py::ssize_t>(K_), static_cast<py::ssize_t>(kJobFeatures)});
    node_ = py::array_t<float>(kNodeFeatures);
    mask_ = py::array_t<int8_t>(K_ + 1);
    visible_.assign(K_, -1);
    jf_ = jobs_.mutable_data();
    nf_ = node_.mutable_data();
    mf_ = mask_.mutable_data();
  }

  // Starts an episode; returns whether it is already over (no decision ever comes).
  bool reset(uint64_t seed) {
    sched_.reset(*wl_);
    sim_ = std::make_unique<mr::Sim>(*cl_, *wl_, sched_, opt_, seed);
    sim_->start();
    over_ = false;
    advance();  // the reward accrued before the first decision goes to the first step
    return over_;
  }

  // Acts on the pending decision; returns Gymnasium's (observation, reward x scale, terminated,
  // truncated, info), the observation a dict of fresh arrays, info {"time": now}.
  py::tuple step_observe(int64_t action, double scale) {
    const double r = act(action);
    const bool t = terminated();
    py::dict info;
    info[key_time_] = now();
    return py::make_tuple(observation(), r * scale, t, over_ && !t, std::move(info));
  }
  // A dict of copies of the observation buffers.
  py::dict observation() const {
    py::array_t<float> j({static_cast<py::ssize_t>(K_), static_cast<py::ssize_t>(kJobFeatures)});
    py::array_t<float> n(kNodeFeatures);
    py::array_t<int8_t> m(K_ + 1);
    std::copy(jf_, jf_ + K_ * kJobFeatures, j.mutable_data());
    std::copy(nf_, nf_ + kNodeFeatures, n.mutable_data());
    std::copy(mf_, mf_ + K_ + 1, m.mutable_data());
    py::dict d;
    d[key_jobs_] = std::move(j);
    d[key_node_] = std::move(n);
    d[key_mask_] = std::move(m);
    return d;
  }

  // Acts on the pending decision; returns (reward, terminated, truncated).
  py::tuple step(int64_t action) {
    const double r = act(action);
    const bool t = terminated();
    return py::make_tuple(r, t, over_ && !t);
  }

  // Acts on the pending decision and runs to the next; returns the reward.
  double act(int64_t action) {
    if (!sim_) throw py::value_error("call reset() before step()");
    if (over_) throw py::value_error("the episode is over: call reset()");
    if (action < 0 || action > K_) throw py::value_error("action must be in 0.." + std::to_string(K_));
    mr::Sim& sim = *sim_;
    const int32_t node = sched_.node_;
    bool again = false;
    if (action < K_ && visible_[action] >= 0) {
      const int32_t j = visible_[action];
      int32_t t = sim.find_map(j, node, kNodeLocal);
      if (t < 0) t = sim.find_map(j, node, kRackLocal);
      if (t < 0) t = sim.find_map(j, node, kRemote);
      if (t >= 0) sim.launch(t, node, kMap);
      again = sched_.needs_decision(sim, node);
    }
    if (again) observe();
    else advance();
    return sched_.episode_.take(reward_);
  }
  bool terminated() const { return over_ && sched_.episode_.finished == static_cast<int64_t>(wl_->n_jobs()); }

  py::dict result() {
    if (!sim_) throw py::value_error("call reset() first");
    // collect() hands the engine's columns over to the result: the episode could not go on after it
    if (!over_) throw py::value_error("result(): the episode is still running; its result is ready once step() "
                                      "returns terminated or truncated");
    return result_dict(sim_->collect());
  }
  double now() const { return sim_ ? sim_->now() : 0.0; }
  double time_limit() const { return opt_.time_limit; }
  int32_t node() const { return sched_.node_; }
  py::array_t<float> jobs() const { return jobs_; }
  py::array_t<float> node_features() const { return node_; }
  py::array_t<int8_t> mask() const { return mask_; }
  py::list visible() const {
    py::list out;
    for (int32_t j : visible_) out.append(j);
    return out;
  }

 private:
  // Runs the engine to the next decision (observed) or to the end.
  void advance() {
    py::gil_scoped_release release;
    if (sim_->resume()) {
      observe();
    } else {
      over_ = true;
      sched_.episode_.account(sim_->now());
      sched_.node_ = -1;
      clear();
    }
  }
  void clear() {
    std::fill(jf_, jf_ + K_ * kJobFeatures, 0.0f);
    std::fill(nf_, nf_ + kNodeFeatures, 0.0f);
    std::fill(mf_, mf_ + K_ + 1, int8_t(0));
    mf_[K_] = 1;
    std::fill(visible_.begin(), visible_.end(), -1);
  }
  void observe() {
    mr::Sim& sim = *sim_;
    const int32_t node = sched_.node_;
    const double now = sim.now();
    float* jf = jf_;
    int8_t* m = mf_;
    std::fill(jf, jf + K_ * kJobFeatures, 0.0f);
    int32_t k = 0, hidden = 0;
    for (int32_t j : sim.active_jobs()) {
      const mr::JobState& js = sim.job(j);
      if (js.pending[kMap] <= 0) continue;
      if (k == K_) { ++hidden; continue; }
      float* row = jf + k * kJobFeatures;
      const double d = wl_->deadline[j];
      row[0] = 1.0f;
      row[1] = static_cast<float>(now - wl_->submit_time[j]);
      row[2] = static_cast<float>(js.pending[kMap]);
      row[3] = static_cast<float>(js.running[kMap]);
      row[4] = static_cast<float>(js.done[kMap]);
      row[5] = static_cast<float>(wl_->n_maps[j]);
      row[6] = static_cast<float>(sched_.mean_map_[j]);
      row[7] = sim.find_map(j, node, kNodeLocal) >= 0 ? 1.0f : 0.0f;
      row[8] = std::isnan(d) ? 0.0f : static_cast<float>(d - now);
      row[9] = std::isnan(d) ? 0.0f : 1.0f;
      visible_[k] = j;
      m[k] = 1;
      ++k;
    }
    for (int32_t i = k; i < K_; ++i) {
      visible_[i] = -1;
      m[i] = 0;
    }
    m[K_] = 1;
    float* nf = nf_;
    nf[0] = static_cast<float>(sim.free_slots(node, kMap));
    nf[1] = static_cast<float>(sim.map_capacity(node));
    nf[2] = static_cast<float>(sim.free_slots(node, kReduce));
    nf[3] = static_cast<float>(sim.effective_speed(node));
    nf[4] = static_cast<float>(now);
    nf[5] = static_cast<float>(sim.active_jobs().size());
    nf[6] = static_cast<float>(hidden);
  }

  std::shared_ptr<Cluster> cl_;
  std::shared_ptr<Workload> wl_;
  mr::Options opt_;
  int32_t K_;
  Reward reward_;
  GymScheduler sched_;
  std::unique_ptr<mr::Sim> sim_;
  bool over_ = true;
  py::array_t<float> jobs_, node_;
  py::array_t<int8_t> mask_;
  float* jf_ = nullptr;  // the buffers' data, written without the GIL
  float* nf_ = nullptr;
  int8_t* mf_ = nullptr;
  py::str key_jobs_{"jobs"}, key_node_{"node"}, key_mask_{"action_mask"}, key_time_{"time"};
  std::vector<int32_t> visible_;
};

}  // namespace

double gym_default_time_limit(const std::vector<double>& submit, const TaskColumn& work, int64_t slots) {
  double last = 0, sum = 0;
  for (double t : submit) last = std::max(last, t);
  for (size_t t = 0; t < work.size(); ++t) sum += work[t];
  return last + 100.0 * sum / double(std::max<int64_t>(slots, 1)) + 1000.0;
}

void bind_gym(py::module_& m) {
  py::class_<MapReduceGym>(m, "MapReduceGym",
                           "The MapReduce engine paused at each map-slot decision (see schedlab.gym.MapReduceEnv)")
      .def(py::init<std::shared_ptr<Cluster>, std::shared_ptr<Workload>, py::dict, int32_t, const std::string&>(),
           py::arg("cluster"), py::arg("workload"), py::arg("options"), py::arg("max_jobs"), py::arg("reward"))
      .def("reset", &MapReduceGym::reset, py::arg("seed"))
      .def("step", &MapReduceGym::step, py::arg("action"), "acts; returns (reward, terminated, truncated)")
      .def("step_observe", &MapReduceGym::step_observe, py::arg("action"), py::arg("scale") = 1.0,
           "acts; returns (observation dict of copies, reward x scale, terminated, truncated, {'time': now})")
      .def("observation", &MapReduceGym::observation, "the observation: a dict of copies of the buffers")
      .def("result", &MapReduceGym::result)
      .def_property_readonly("now", &MapReduceGym::now)
      .def_property_readonly("time_limit", &MapReduceGym::time_limit)
      .def_property_readonly("node", &MapReduceGym::node)
      .def_property_readonly("jobs", &MapReduceGym::jobs)
      .def_property_readonly("node_features", &MapReduceGym::node_features)
      .def_property_readonly("mask", &MapReduceGym::mask)
      .def("visible", &MapReduceGym::visible, "the job id of each job row (-1 for an empty row)")
      .def_property_readonly_static("job_features", [](py::object) { return kJobFeatures; })
      .def_property_readonly_static("node_feature_count", [](py::object) { return kNodeFeatures; });
}

}  // namespace schedlab::bindings

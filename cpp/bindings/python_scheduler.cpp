// Schedulers written in Python for the MapReduce engine.
//
//   * PythonScheduler — a trampoline: an mr::Scheduler whose callbacks (init, on_job_submitted,
//     on_heartbeat, on_attempt_finished, on_stage_finished, on_job_finished, on_timer, on_node_lost,
//     on_node_restarted, finish)
//     forward to the methods of a Python object (schedlab.Scheduler). Callbacks the Python
//     class does not override are never called, so they cost nothing.
//   * MRSim — what Python sees of the running mr::Sim: the same narrow operations the C++
//     schedulers use (now, job/task/attempt state, slot counts, find_map/find_reduce, launch,
//     kill, set_slots, set_timer, counters and series). Every id is range-checked, and a bad
//     action raises ValueError instead of corrupting the run.
//   * run_python — runs one simulation. The engine runs without the GIL; a callback takes it
//     only while its Python code runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "common.h"
#include "schedlab/mapreduce.h"
#include "schedlab/registry.h"
#include "schedlab/speculation.h"

namespace py = pybind11;

namespace schedlab::bindings {
namespace {

// The MapReduce simulation as a Python scheduler sees it (RunningSim: the handle and id checks).
struct SimView : RunningSim<mr::Sim> {
  int64_t attempt(int64_t a) const {
    const int64_t n = get().n_attempts();
    if (a < 0 || a >= n) throw py::value_error("no attempt " + std::to_string(a) + " (" + std::to_string(n) + " launched so far)");
    return a;
  }
  static int stage(int s) {
    if (s != kMap && s != kReduce) throw py::value_error("stage / slot type must be 0 (map) or 1 (reduce), got " + std::to_string(s));
    return s;
  }
  static Locality level(int l) {
    if (l < kNodeLocal || l > kRemote) throw py::value_error("locality level must be 0 (node), 1 (rack) or 2 (any), got " + std::to_string(l));
    return static_cast<Locality>(l);
  }
};

// A copy of an attempt's state for Python (the engine keeps a reduce's copy end apart).
struct AttemptInfo {
  int32_t task, node;
  double start, finish, copy_end;
  int status, locality, slot_type, slot;
  bool speculative;
  static AttemptInfo of(const mr::Sim& sim, int64_t a) {
    const mr::Attempt& at = sim.attempt(a);
    return {at.task, at.node, at.start, at.finish, sim.copy_end(a), int(at.status), int(at.locality), int(at.slot_type),
            int(at.slot_pos), at.speculative != 0};
  }
};

mr::SlotModel slot_model_from(const std::string& s) {
  if (s == "typed") return mr::SlotModel::Typed;
  if (s == "pooled") return mr::SlotModel::Pooled;
  if (s == "containers") return mr::SlotModel::Containers;
  throw py::value_error("slot_model must be 'typed', 'pooled' or 'containers', got '" + s + "'");
}

// The trampoline. `callbacks` maps a callback name to the bound Python method, or None when the
// Python class keeps the base class's no-op (then the callback is skipped without the GIL).
class PythonScheduler final : public mr::Scheduler {
 public:
  PythonScheduler(py::object sim_obj, SimView* view, const py::dict& callbacks, mr::SlotModel model)
      : sim_obj_(std::move(sim_obj)), view_(view), model_(model) {
    auto get = [&](const char* name) -> py::object {
      if (!callbacks.contains(name) || callbacks[name].is_none()) return py::object();
      py::object f = callbacks[name];
      if (!PyCallable_Check(f.ptr())) throw py::value_error(std::string("scheduler callback '") + name + "' is not callable");
      return f;
    };
    init_ = get("init");
    submitted_ = get("on_job_submitted");
    heartbeat_ = get("on_heartbeat");
    attempt_finished_ = get("on_attempt_finished");
    stage_finished_ = get("on_stage_finished");
    job_finished_ = get("on_job_finished");
    timer_ = get("on_timer");
    node_lost_ = get("on_node_lost");
    node_restarted_ = get("on_node_restarted");
    finish_ = get("finish");
    if (!heartbeat_) throw py::value_error("a Python scheduler must define on_heartbeat(sim, node)");
  }

  // (a sim handle the Python code kept fails cleanly once its scheduler is gone)
  ~PythonScheduler() override { view_->sim = nullptr; }

  mr::SlotModel slot_model() const override { return model_; }
  void init(mr::Sim& sim) override {
    view_->sim = &sim;
    call(init_);
  }
  void on_job_submitted(mr::Sim&, int32_t job) override { call(submitted_, job); }
  void on_heartbeat(mr::Sim&, int32_t node) override { call(heartbeat_, node); }
  void on_attempt_finished(mr::Sim&, int64_t attempt) override { call(attempt_finished_, attempt); }
  void on_stage_finished(mr::Sim&, int32_t job, int stage) override { call(stage_finished_, job, stage); }
  void on_job_finished(mr::Sim&, int32_t job) override { call(job_finished_, job); }
  void on_timer(mr::Sim&, uint64_t tag) override { call(timer_, tag); }
  void on_node_lost(mr::Sim&, int32_t node) override { call(node_lost_, node); }
  void on_node_restarted(mr::Sim&, int32_t node) override { call(node_restarted_, node); }
  // finish(sim) may return a dict of extra counters {name: number}.
  void finish(mr::Sim&, SimResult& r) override {
    if (!finish_) return;
    py::gil_scoped_acquire gil;
    py::object out = finish_(sim_obj_);
    if (out.is_none()) return;
    if (!py::isinstance<py::dict>(out)) throw py::value_error("Scheduler.finish must return None or a dict of counters");
    for (auto item : out.cast<py::dict>()) r.counters[py::str(item.first)] = item.second.cast<double>();
  }

 private:
  template <class... A>
  void call(const py::object& f, A... args) {
    if (!f) return;
    py::gil_scoped_acquire gil;
    poll_in_callback();
    f(sim_obj_, args...);
  }

  py::object sim_obj_;
  SimView* view_;
  mr::SlotModel model_;
  py::object init_, submitted_, heartbeat_, attempt_finished_, stage_finished_, job_finished_, timer_, node_lost_,
      node_restarted_, finish_;
};

py::tuple job_tuple(const mr::JobState& js, int32_t field) {
  switch (field) {
    case 0: return py::make_tuple(js.pending[0], js.pending[1]);
    case 1: return py::make_tuple(js.running[0], js.running[1]);
    case 2: return py::make_tuple(js.done[0], js.done[1]);
    default: return py::make_tuple(js.running_attempts[0], js.running_attempts[1]);
  }
}

}  // namespace

void bind_python_scheduler(py::module_& m) {
  py::class_<mr::JobState>(m, "MRJobState", "A job's task counts per stage (map, reduce) and its times")
      .def_property_readonly("pending", [](const mr::JobState& s) { return job_tuple(s, 0); })
      .def_property_readonly("running", [](const mr::JobState& s) { return job_tuple(s, 1); })
      .def_property_readonly("done", [](const mr::JobState& s) { return job_tuple(s, 2); })
      .def_property_readonly("running_attempts", [](const mr::JobState& s) { return job_tuple(s, 3); })
      .def_readonly("start", &mr::JobState::start)
      .def_readonly("finish", &mr::JobState::finish)
      .def_readonly("map_finish", &mr::JobState::map_finish)
      .def_readonly("submitted", &mr::JobState::submitted)
      .def_readonly("ready", &mr::JobState::ready);  // when it was submitted to the scheduler (DAG jobs: after its parents)

  py::class_<AttemptInfo>(m, "MRAttempt", "One attempt of a task: where, when and how it ran")
      .def_readonly("task", &AttemptInfo::task)
      .def_readonly("node", &AttemptInfo::node)
      .def_readonly("start", &AttemptInfo::start)
      .def_readonly("finish", &AttemptInfo::finish)
      .def_readonly("copy_end", &AttemptInfo::copy_end)
      .def_readonly("status", &AttemptInfo::status)
      .def_readonly("locality", &AttemptInfo::locality)
      .def_readonly("slot_type", &AttemptInfo::slot_type)
      .def_readonly("speculative", &AttemptInfo::speculative)
      .def_readonly("slot", &AttemptInfo::slot);

  using V = SimView;
  py::class_<SimView>(m, "MRSim", "The running MapReduce simulation, as a Python scheduler sees it")
      // time and sizes
      .def("now", [](const V& v) { return v.get().now(); })
      .def_property_readonly("n_nodes", [](const V& v) { return v.get().n_nodes(); })
      .def_property_readonly("n_jobs", [](const V& v) { return v.get().workload().n_jobs(); })
      .def_property_readonly("n_tasks", [](const V& v) { return v.get().workload().n_tasks(); })
      .def_property_readonly("heartbeat_interval", [](const V& v) { return v.get().heartbeat_interval(); })
      .def_property_readonly("total_map_slots", [](const V& v) { return v.get().total_map_slots(); })
      .def_property_readonly("total_reduce_slots", [](const V& v) { return v.get().total_reduce_slots(); })
      .def("options", [](const V& v) {
        const mr::Options& o = v.get().options();
        py::dict d;
        d["heartbeat_interval"] = o.heartbeat_interval;
        d["out_of_band_heartbeat"] = o.out_of_band_heartbeat;
        d["slowstart"] = o.slowstart;
        d["rack_local_factor"] = o.rack_local_factor;
        d["remote_factor"] = o.remote_factor;
        d["network_bandwidth"] = o.network_bandwidth;
        d["replication"] = o.replication;
        d["time_limit"] = o.time_limit;
        d["sample_interval"] = o.sample_interval;
        d["measure_overhead"] = o.measure_overhead;
        return d;
      }, "the engine options of this run")
      // jobs
      .def("active_jobs", [](const V& v) { return v.get().active_jobs(); },
           "submitted, unfinished jobs in submission order (a new list)")
      .def("job", [](const V& v, int64_t j) { return v.get().job(v.job(j)); }, py::arg("job"),
           "a copy of the job's state (pending/running/done per stage, start, finish, map_finish)")
      .def("pending", [](const V& v, int64_t j, int s) { return v.get().job(v.job(j)).pending[V::stage(s)]; },
           py::arg("job"), py::arg("stage"))
      .def("running", [](const V& v, int64_t j, int s) { return v.get().job(v.job(j)).running[V::stage(s)]; },
           py::arg("job"), py::arg("stage"))
      .def("done", [](const V& v, int64_t j, int s) { return v.get().job(v.job(j)).done[V::stage(s)]; },
           py::arg("job"), py::arg("stage"))
      .def("reduces_allowed", [](const V& v, int64_t j) { return v.get().reduces_allowed(v.job(j)); }, py::arg("job"),
           "whether the job's slowstart fraction of maps is complete")
      // tasks and attempts
      .def("task_state", [](const V& v, int64_t t) { return int(v.get().task_state(v.task(t))); }, py::arg("task"),
           "0 pending, 1 running, 2 done")
      .def("last_attempt", [](const V& v, int64_t t) { return v.get().last_attempt(v.task(t)); }, py::arg("task"))
      .def("running_attempts", [](const V& v, int64_t t) { return v.get().running_attempts(v.task(t)); }, py::arg("task"))
      .def_property_readonly("n_attempts", [](const V& v) { return v.get().n_attempts(); })
      .def("attempt", [](const V& v, int64_t a) { return AttemptInfo::of(v.get(), v.attempt(a)); }, py::arg("attempt"))
      .def("locality", [](const V& v, int64_t t, int64_t n) { return int(v.get().locality(v.task(t), v.node(n))); },
           py::arg("task"), py::arg("node"), "0 node-local, 1 rack-local, 2 remote, 3 no locality (reduces)")
      .def("expected_duration", [](const V& v, int64_t t, int64_t n) { return v.get().expected_duration(v.task(t), v.node(n)); },
           py::arg("task"), py::arg("node"), "estimate / node speed x locality factor (reduces: without the shuffle)")
      // nodes and slots
      .def("map_capacity", [](const V& v, int64_t n) { return v.get().map_capacity(v.node(n)); }, py::arg("node"))
      .def("reduce_capacity", [](const V& v, int64_t n) { return v.get().reduce_capacity(v.node(n)); }, py::arg("node"))
      .def("running_on", [](const V& v, int64_t n, int s) { return v.get().running_on(v.node(n), V::stage(s)); },
           py::arg("node"), py::arg("slot_type"))
      .def("free_slots", [](const V& v, int64_t n, int s) { return v.get().free_slots(v.node(n), V::stage(s)); },
           py::arg("node"), py::arg("slot_type"))
      .def("fits", [](const V& v, int64_t t, int64_t n, int s) { return v.get().fits(v.task(t), v.node(n), V::stage(s)); },
           py::arg("task"), py::arg("node"), py::arg("slot_type"))
      .def("node_up", [](const V& v, int64_t n) { return v.get().node_up(v.node(n)); }, py::arg("node"),
           "False while the node is down (crashed, not yet restarted)")
      .def("effective_speed", [](const V& v, int64_t n) { return v.get().effective_speed(v.node(n)); }, py::arg("node"),
           "the node's speed divided by its current slowdown (0 while down)")
      .def("progress", [](const V& v, int64_t a) { return v.get().progress(v.attempt(a)); }, py::arg("attempt"),
           "Hadoop's progress score now: maps the fraction done; reduces 1/3 copy + 1/3 sort + 1/3 reduce")
      .def("total_pending", [](const V& v, int s) { return v.get().total_pending(V::stage(s)); }, py::arg("stage"))
      .def("total_running", [](const V& v, int s) { return v.get().total_running(V::stage(s)); }, py::arg("stage"))
      // finding pending tasks (Hadoop's per-job task caches)
      .def("find_map", [](const V& v, int64_t j, int64_t n, int level) { return v.get().find_map(v.job(j), v.node(n), V::level(level)); },
           py::arg("job"), py::arg("node"), py::arg("max_level") = int(kRemote),
           "a pending map of the job at locality max_level or better on node (0 node, 1 rack, 2 any), or -1")
      .def("find_reduce", [](const V& v, int64_t j) { return v.get().find_reduce(v.job(j)); }, py::arg("job"),
           "a pending reduce of the job, or -1")
      .def("find_pending", [](const V& v, int64_t j, int s) { return v.get().find_pending(v.job(j), V::stage(s)); },
           py::arg("job"), py::arg("stage"))
      // acting
      .def("launch", [](const V& v, int64_t t, int64_t n, int slot_type, bool speculative) {
             mr::Sim& sim = v.get();
             const int32_t task = v.task(t), node = v.node(n);
             if (slot_type != -1) V::stage(slot_type);
             try {
               return sim.launch(task, node, slot_type, speculative);
             } catch (const std::logic_error& e) {
               throw py::value_error(e.what());
             }
           },
           py::arg("task"), py::arg("node"), py::arg("slot_type") = -1, py::arg("speculative") = false,
           "starts an attempt of task on node now and returns its id; ValueError if it cannot run there")
      .def("kill", [](const V& v, int64_t a) { v.get().kill(v.attempt(a)); }, py::arg("attempt"))
      .def("set_slots", [](const V& v, int64_t n, int32_t maps, int32_t reduces) {
             if (maps < 0 || reduces < 0) throw py::value_error("set_slots: slot counts must not be negative");
             v.get().set_slots(v.node(n), maps, reduces);
           },
           py::arg("node"), py::arg("map_slots"), py::arg("reduce_slots"))
      .def("set_timer", [](const V& v, double at, uint64_t tag) {
             if (std::isnan(at)) throw py::value_error("set_timer: time is NaN");
             v.get().set_timer(at, tag);
           },
           py::arg("at"), py::arg("tag"), "calls on_timer(sim, tag) at time max(at, now)")
      .def("add_counter", [](const V& v, const std::string& name, double x) { v.get().add_counter(name, x); },
           py::arg("name"), py::arg("value"), "adds value to the result counter name")
      .def("record", [](const V& v, const std::string& name, const std::vector<std::string>& columns, const std::vector<double>& row) {
             TimeSeries& ts = v.get().series(name, columns);
             if (ts.names != columns) throw py::value_error("series '" + name + "' was created with other columns");
             if (row.size() != columns.size()) throw py::value_error("series '" + name + "': row length differs from its columns");
             for (size_t i = 0; i < row.size(); ++i) ts.columns[i].push_back(row[i]);
           },
           py::arg("name"), py::arg("columns"), py::arg("row"), "appends a row to the result series name")
      .def("uniform", [](const V& v) { return v.get().rng().uniform(); },
           "a uniform [0, 1) draw from the run's scheduler random stream (seeded by the run's seed)");

  m.def(
      "run_python",
      [](std::shared_ptr<Cluster> cluster, std::shared_ptr<Workload> workload, py::dict callbacks,
         const std::string& slot_model, py::dict options, uint64_t seed) {
        Params op("simulate options (mapreduce engine)", mr::Options::specs(), to_values(options));
        cluster->validate();
        workload->validate_for_run(cluster->size());
        py::object sim_obj = py::cast(SimView{});
        SimView* view = sim_obj.cast<SimView*>();
        PythonScheduler sched(sim_obj, view, callbacks, slot_model_from(slot_model));
        ClearWhenDone<SimView> clear{view};
        const mr::Options opt = mr::Options::from(op);
        auto spec = mr::make_speculator(opt.speculation, opt.speculation_params);  // speculation composes here too
        mr::Sim sim(*cluster, *workload, sched, opt, seed);
        sim.set_speculator(spec.get());
        return result_dict(run_without_gil([&] { return sim.run(); }));
      },
      py::arg("cluster"), py::arg("workload"), py::arg("callbacks"), py::arg("slot_model"), py::arg("options"),
      py::arg("seed"),
      "runs the MapReduce engine with a scheduler written in Python (see schedlab.Scheduler)");
}

// For the scheduler harness (bindings/harness.cpp): a Python scheduler built for one engine of the
// harness; `prepare(workload)` (the Python scheduler's _harness_callbacks) reads the workload's
// columns and returns the callbacks.
std::unique_ptr<mr::Scheduler> python_scheduler_for(const py::object& prepare, const std::string& slot_model,
                                                    const Workload& workload) {
  py::gil_scoped_acquire gil;
  py::object sim_obj = py::cast(SimView{});
  SimView* view = sim_obj.cast<SimView*>();
  py::object callbacks = prepare(std::make_shared<Workload>(workload));
  if (!py::isinstance<py::dict>(callbacks)) throw py::value_error("a Python scheduler's harness callbacks must be a dict");
  return std::make_unique<PythonScheduler>(sim_obj, view, callbacks.cast<py::dict>(), slot_model_from(slot_model));
}

}  // namespace schedlab::bindings

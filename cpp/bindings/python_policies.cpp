// Schedulers written in Python for the worker engine and the share engine, on the pattern of
// python_scheduler.cpp (the MapReduce engine's):
//
//   * PyWorkerScheduler — a worker::Scheduler whose decisions (on_job_arrival: probe count,
//     targets and delay, or central placement; on_probe_arrival; pick_probe: the queue
//     discipline; choose_task: late binding; keep_probe: sticky probes; on_launch, on_task_end;
//     on_idle: stealing; on_timer; finish) forward to a Python object
//     (schedlab.schedulers.WorkerScheduler). WorkerSim is what the Python code sees of the
//     running worker::Sim: workers and their probe queues, job and task state, and the engine's
//     own operations (send_probes, drop_probe, move_probe, kick, set_timer, counters, the run's
//     seeded random stream).
//   * PySharePolicy — a share::Policy whose share function forwards to Python
//     (schedlab.schedulers.SharePolicy); the placement rule and tie-breaking are the engine's.
//     ShareSim is what the Python code sees of the running share::Sim.
//
// The engines are unchanged: these are their own policy interfaces with Python behind them.
// The engines run without the GIL; a callback takes it only while its Python code runs, and a
// callback the Python class does not override is never called (the engine's default runs).
// With measure_overhead, the wall time and count of the Python callbacks become the counters
// scheduler_seconds and scheduler_calls, as on the MapReduce engine.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.h"
#include "schedlab/share.h"
#include "schedlab/worker.h"

namespace py = pybind11;

namespace schedlab::bindings {
namespace {

py::object callback(const py::dict& callbacks, const char* name) {
  if (!callbacks.contains(name) || callbacks[name].is_none()) return py::object();
  py::object f = callbacks[name];
  if (!PyCallable_Check(f.ptr())) throw py::value_error(std::string("scheduler callback '") + name + "' is not callable");
  return f;
}

// Times Python callbacks when the run measures its scheduler's overhead.
struct Overhead {
  bool on = false;
  double seconds = 0;
  double calls = 0;
  template <class F>
  auto operator()(F&& f) {
    if (!on) return f();
    const auto t0 = std::chrono::steady_clock::now();
    struct Add {
      Overhead* o;
      std::chrono::steady_clock::time_point t0;
      ~Add() {
        o->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        o->calls += 1;
      }
    } add{this, t0};
    return f();
  }
  void report(SimResult& r) const {
    if (!on) return;
    r.counters["scheduler_seconds"] = seconds;
    r.counters["scheduler_calls"] = calls;
  }
};

void add_counters(const py::object& out, SimResult& r) {
  if (out.is_none()) return;
  if (!py::isinstance<py::dict>(out)) throw py::value_error("finish must return None or a dict of counters");
  for (auto item : out.cast<py::dict>()) r.counters[py::str(item.first)] = item.second.cast<double>();
}

// ------------------------------------------------------------------------------- worker engine

struct WorkerView : RunningSim<worker::Sim> {
  int32_t worker(int64_t w) const { return checked_id(w, get().n_workers(), "worker"); }
  // A probe queued at worker w (walks w's queue: a probe id is valid only while it is queued).
  int32_t queued(int32_t w, int64_t p) const {
    worker::Sim& s = get();
    for (const worker::QueueEntry* e = s.queue_begin(w); e != s.queue_end(w); ++e)
      if (e->live() && e->probe() == p) return e->probe();
    throw py::value_error("probe " + std::to_string(p) + " is not queued at worker " + std::to_string(w));
  }
  py::list queue(int32_t w) const {
    worker::Sim& s = get();
    py::list out;
    for (const worker::QueueEntry* e = s.queue_begin(w); e != s.queue_end(w); ++e)
      if (e->live()) out.append(e->probe());
    return out;
  }
};

class PyWorkerScheduler final : public worker::Scheduler {
 public:
  PyWorkerScheduler(py::object sim_obj, WorkerView* view, const py::dict& cb, bool tracks_remaining, bool measure)
      : sim_obj_(std::move(sim_obj)), view_(view), tracks_(tracks_remaining) {
    init_ = callback(cb, "init");
    arrival_ = callback(cb, "on_job_arrival");
    probe_arrival_ = callback(cb, "on_probe_arrival");
    pick_ = callback(cb, "pick_probe");
    choose_ = callback(cb, "choose_task");
    keep_ = callback(cb, "keep_probe");
    launch_ = callback(cb, "on_launch");
    end_ = callback(cb, "on_task_end");
    idle_ = callback(cb, "on_idle");
    timer_ = callback(cb, "on_timer");
    finish_ = callback(cb, "finish");
    if (!arrival_) throw py::value_error("a worker-engine scheduler must define on_job_arrival(sim, job)");
    overhead_.on = measure;
  }

  void init(worker::Sim& sim) override {
    view_->sim = &sim;
    call(init_);
  }
  void on_job_arrival(worker::Sim&, int32_t job) override { call(arrival_, job); }
  void on_probe_arrival(worker::Sim&, int32_t w, int32_t p) override { call(probe_arrival_, w, p); }
  int32_t pick_probe(worker::Sim& sim, int32_t w, bool short_only) override {
    if (!pick_) return worker::Scheduler::pick_probe(sim, w, short_only);
    const int64_t p = ask<int64_t>(pick_, w, short_only);
    if (p < 0) return -1;
    const int32_t q = view_->queued(w, p);
    if (short_only && (sim.probe(q).flags & worker::kProbeLong))
      throw py::value_error("pick_probe: worker " + std::to_string(w) + " holds a suspended long task and may serve short probes only");
    return q;
  }
  int32_t choose_task(worker::Sim& sim, int32_t w, int32_t job, bool* clone) override {
    if (!choose_) return worker::Scheduler::choose_task(sim, w, job, clone);
    const int64_t t = ask<int64_t>(choose_, w, job);
    *clone = false;
    if (t < 0) return -1;
    const int32_t task = view_->task(t);
    if (sim.workload().task_job[task] != job)
      throw py::value_error("choose_task: task " + std::to_string(t) + " is not a task of job " + std::to_string(job));
    const worker::TaskState st = sim.task_state(task);
    if (st == worker::kTaskDone) throw py::value_error("choose_task: task " + std::to_string(t) + " is done");
    *clone = st != worker::kTaskUnlaunched;  // a second copy of a running task
    return task;
  }
  bool keep_probe(worker::Sim&, int32_t w, int32_t p) override { return keep_ ? ask<bool>(keep_, w, p) : false; }
  void on_launch(worker::Sim&, int32_t w, int64_t a) override { call(launch_, w, a); }
  void on_task_end(worker::Sim&, int32_t w, int64_t a, bool first) override { call(end_, w, a, first); }
  void on_idle(worker::Sim&, int32_t w) override { call(idle_, w); }
  void on_timer(worker::Sim&, uint32_t a, uint64_t tag) override {
    (void)a;
    call(timer_, tag);
  }
  void finish(worker::Sim&, SimResult& r) override {
    overhead_.report(r);
    if (!finish_) return;
    py::gil_scoped_acquire gil;
    add_counters(finish_(sim_obj_), r);
  }
  bool tracks_remaining() const override { return tracks_; }

 private:
  template <class... A>
  void call(const py::object& f, A... args) {
    if (!f) return;
    py::gil_scoped_acquire gil;
    poll_in_callback();
    overhead_([&] { f(sim_obj_, args...); });
  }
  template <class R, class... A>
  R ask(const py::object& f, A... args) {
    py::gil_scoped_acquire gil;
    poll_in_callback();
    return overhead_([&] { return f(sim_obj_, args...).template cast<R>(); });
  }

  py::object sim_obj_;
  WorkerView* view_;
  bool tracks_;
  Overhead overhead_;
  py::object init_, arrival_, probe_arrival_, pick_, choose_, keep_, launch_, end_, idle_, timer_, finish_;
};

// ------------------------------------------------------------------------------- share engine

struct ShareView : RunningSim<share::Sim> {
  int32_t user(int64_t u) const { return checked_id(u, get().n_users(), "user"); }
};

share::Placement placement_from(const std::string& s) {
  if (s == "first_fit") return share::Placement::FirstFit;
  if (s == "best_fit") return share::Placement::BestFit;
  if (s == "fastest") return share::Placement::Fastest;
  throw py::value_error("placement must be 'first_fit', 'best_fit' or 'fastest', got '" + s + "'");
}

class PySharePolicy final : public share::Policy {
 public:
  PySharePolicy(py::object sim_obj, ShareView* view, const py::dict& cb, share::Placement placement, bool random_ties,
                bool measure)
      : sim_obj_(std::move(sim_obj)), view_(view), placement_(placement), random_(random_ties) {
    init_ = callback(cb, "init");
    share_ = callback(cb, "share");
    if (!share_) throw py::value_error("a share-engine policy must define share(sim, user)");
    overhead_.on = measure;
  }
  void init(share::Sim& sim) override {
    view_->sim = &sim;
    if (!init_) return;
    py::gil_scoped_acquire gil;
    overhead_([&] { init_(sim_obj_); });
  }
  double share(const share::Sim&, int32_t user) const override {
    py::gil_scoped_acquire gil;
    poll_in_callback();
    return overhead_([&] { return share_(sim_obj_, user).cast<double>(); });
  }
  share::Placement placement() const override { return placement_; }
  bool random_ties() const override { return random_; }
  void report(SimResult& r) const { overhead_.report(r); }

 private:
  py::object sim_obj_;
  ShareView* view_;
  share::Placement placement_;
  bool random_;
  mutable Overhead overhead_;
  py::object init_, share_;
};

}  // namespace

void bind_python_policies(py::module_& m) {
  // ---- worker engine
  using W = WorkerView;
  py::class_<WorkerView>(m, "WorkerSim", "The running worker-engine simulation, as a Python scheduler sees it")
      // time and sizes
      .def("now", [](const W& v) { return v.get().now(); })
      .def_property_readonly("n_workers", [](const W& v) { return v.get().n_workers(); })
      .def_property_readonly("n_jobs", [](const W& v) { return v.get().workload().n_jobs(); })
      .def_property_readonly("n_tasks", [](const W& v) { return v.get().workload().n_tasks(); })
      .def_property_readonly("first_general", [](const W& v) { return v.get().first_general(); },
                             "workers [0, first_general) form the short-only partition")
      .def_property_readonly("delay", [](const W& v) { return v.get().delay(); }, "the one-way network delay (seconds)")
      .def("options", [](const W& v) {
        const worker::Options& o = v.get().options();
        py::dict d;
        d["network_delay"] = o.network_delay;
        d["cutoff"] = o.cutoff;
        d["short_partition"] = o.short_partition;
        d["truncate"] = o.truncate;
        d["window"] = o.window;
        d["time_limit"] = o.time_limit;
        return d;
      }, "the engine options of this run")
      // workers and their queues
      .def("worker_node", [](const W& v, int64_t w) { return v.get().worker_node(v.worker(w)); }, py::arg("worker"))
      .def("busy", [](const W& v, int64_t w) { return v.get().worker(v.worker(w)).busy != 0; }, py::arg("worker"),
           "whether the worker's slot is taken (request in flight, task running, suspending or resuming)")
      .def("queue_length", [](const W& v, int64_t w) { return v.get().worker(v.worker(w)).qlen; }, py::arg("worker"))
      .def("long_queued", [](const W& v, int64_t w) { return v.get().worker(v.worker(w)).qlong; }, py::arg("worker"),
           "long probes queued at the worker")
      .def("executing_long", [](const W& v, int64_t w) { return v.get().worker(v.worker(w)).exec_long != 0; }, py::arg("worker"),
           "whether the slot was taken for a long probe")
      .def("has_long_work", [](const W& v, int64_t w) { return v.get().has_long_work(v.worker(w)); }, py::arg("worker"),
           "whether the worker runs, queues or holds suspended long work")
      .def("running_attempt", [](const W& v, int64_t w) { return v.get().worker(v.worker(w)).attempt; }, py::arg("worker"),
           "the attempt running (or being set up) on the worker, -1 if none")
      .def("queue", [](const W& v, int64_t w) { return v.queue(v.worker(w)); }, py::arg("worker"),
           "the probes queued at the worker, head first (a new list of probe ids)")
      .def("probe_job", [](const W& v, int64_t p) {
             if (p < 0) throw py::value_error("no probe " + std::to_string(p));
             return v.get().probe(static_cast<int32_t>(p)).job;
           }, py::arg("probe"), "the job of a queued probe")
      .def("probe_is_long", [](const W& v, int64_t p) {
             if (p < 0) throw py::value_error("no probe " + std::to_string(p));
             return (v.get().probe(static_cast<int32_t>(p)).flags & worker::kProbeLong) != 0;
           }, py::arg("probe"))
      // jobs and tasks
      .def("is_long", [](const W& v, int64_t j) { return v.get().is_long(v.job(j)); }, py::arg("job"),
           "whether the job's estimated mean task duration exceeds the cutoff")
      .def("estimate", [](const W& v, int64_t j) { return v.get().est(v.job(j)); }, py::arg("job"),
           "the estimated duration of each task of the job")
      .def("n_tasks_of", [](const W& v, int64_t j) { return v.get().n_tasks(v.job(j)); }, py::arg("job"))
      .def("task_begin", [](const W& v, int64_t j) { return v.get().task_begin(v.job(j)); }, py::arg("job"))
      .def("pending", [](const W& v, int64_t j) { return v.get().unlaunched(v.job(j)); }, py::arg("job"),
           "tasks of the job not launched yet")
      .def("remaining", [](const W& v, int64_t j) { return v.get().remaining(v.job(j)); }, py::arg("job"),
           "estimated work left of the job (kept only when tracks_remaining; -1 once nothing is left)")
      .def("submit_time", [](const W& v, int64_t j) { return v.get().submit(v.job(j)); }, py::arg("job"))
      .def("task_state", [](const W& v, int64_t t) { return int(v.get().task_state(v.task(t))); }, py::arg("task"),
           "0 unlaunched, 1 running, 2 suspended, 3 done")
      .def("duration", [](const W& v, int64_t t) { return v.get().duration(v.task(t)); }, py::arg("task"))
      .def("next_task", [](const W& v, int64_t j) { return v.get().next_task(v.job(j)); }, py::arg("job"),
           "the next unlaunched task of the job in trace order, or -1")
      .def("attempt_task", [](const W& v, int64_t a) { return v.get().att_task(a); }, py::arg("attempt"))
      // acting
      .def("send_probes", [](const W& v, int64_t j, const std::vector<int64_t>& targets, double delay) {
             worker::Sim& s = v.get();
             const int32_t job = v.job(j);
             std::vector<int32_t> t;
             t.reserve(targets.size());
             for (int64_t w : targets) t.push_back(v.worker(w));
             if (std::isnan(delay)) delay = s.delay();
             if (!(delay >= 0)) throw py::value_error("send_probes: delay must be >= 0");
             s.send_probes(job, t.data(), t.size(), delay);
           },
           py::arg("job"), py::arg("targets"), py::arg("delay") = std::nan(""),
           "sends one probe of the job to each target worker (repeats allowed), arriving after delay "
           "(default: the one-way network delay)")
      .def("drop_probe", [](const W& v, int64_t w, int64_t p) {
             const int32_t wk = v.worker(w);
             v.get().drop_probe(wk, v.queued(wk, p));
           }, py::arg("worker"), py::arg("probe"))
      .def("move_probe", [](const W& v, int64_t from, int64_t to, int64_t p) {
             const int32_t f = v.worker(from), t = v.worker(to);
             v.get().move_probe(f, t, v.queued(f, p));
           }, py::arg("from_worker"), py::arg("to_worker"), py::arg("probe"),
           "moves a queued probe to the tail of another worker's queue (e.g. work stealing)")
      .def("kick", [](const W& v, int64_t w) { v.get().kick(v.worker(w)); }, py::arg("worker"),
           "serves the worker's queue if its slot is free (after probes were added to it)")
      .def("set_timer", [](const W& v, double at, uint64_t tag) {
             if (std::isnan(at)) throw py::value_error("set_timer: time is NaN");
             v.get().set_timer(at, 0, tag);
           }, py::arg("at"), py::arg("tag"), "calls on_timer(sim, tag) at time max(at, now)")
      .def("add_counter", [](const W& v, const std::string& name, double x) { v.get().add_counter(name, x); },
           py::arg("name"), py::arg("value"))
      .def("uniform", [](const W& v) { return v.get().rng().uniform(); },
           "a uniform [0, 1) draw from the run's scheduler random stream (seeded by the run's seed)")
      .def("below", [](const W& v, int64_t n) {
             if (n < 1) throw py::value_error("below: n must be >= 1");
             return static_cast<int64_t>(v.get().rng().below(static_cast<uint64_t>(n)));
           }, py::arg("n"), "a uniform integer in [0, n) from the run's scheduler random stream")
      .def("sample_workers", [](const W& v, int64_t k, int64_t lo, int64_t hi) {
             worker::Sim& s = v.get();
             if (hi < 0) hi = s.n_workers();
             if (k < 0 || lo < 0 || hi > s.n_workers() || lo >= hi)
               throw py::value_error("sample_workers: need k >= 0 and 0 <= lo < hi <= n_workers");
             std::vector<int64_t> out(static_cast<size_t>(k));
             for (auto& w : out) w = lo + static_cast<int64_t>(s.rng().below(static_cast<uint64_t>(hi - lo)));
             return out;
           }, py::arg("k"), py::arg("lo") = 0, py::arg("hi") = -1,
           "k workers drawn uniformly with replacement from [lo, hi) (default: all), as k calls of below(hi - lo)");

  m.def(
      "run_python_worker",
      [](std::shared_ptr<Cluster> cluster, std::shared_ptr<Workload> workload, py::dict callbacks, bool tracks_remaining,
         py::dict options, uint64_t seed, bool measure_overhead) {
        Params op("simulate options (worker engine)", worker::Options::specs(), to_values(options));
        cluster->validate();
        workload->validate_for_run(cluster->size());
        py::object sim_obj = py::cast(WorkerView{});
        WorkerView* view = sim_obj.cast<WorkerView*>();
        PyWorkerScheduler sched(sim_obj, view, callbacks, tracks_remaining, measure_overhead);
        ClearWhenDone<WorkerView> clear{view};
        worker::Sim sim(*cluster, *workload, sched, worker::Options::from(op), seed);
        return result_dict(run_without_gil([&] { return sim.run(); }));
      },
      py::arg("cluster"), py::arg("workload"), py::arg("callbacks"), py::arg("tracks_remaining"), py::arg("options"),
      py::arg("seed"), py::arg("measure_overhead") = false,
      "runs the worker engine with a scheduler written in Python (see schedlab.schedulers.WorkerScheduler)");

  // ---- share engine
  using S = ShareView;
  py::class_<ShareView>(m, "ShareSim", "The running share-engine simulation, as a Python policy sees it")
      .def("now", [](const S& v) { return v.get().now(); })
      .def_property_readonly("n_nodes", [](const S& v) { return v.get().n_nodes(); })
      .def_property_readonly("n_users", [](const S& v) { return v.get().n_users(); })
      .def_property_readonly("n_jobs", [](const S& v) { return v.get().workload().n_jobs(); })
      .def_property_readonly("total_vcores", [](const S& v) { return v.get().total_vcores(); })
      .def_property_readonly("total_memory", [](const S& v) { return v.get().total_memory(); })
      // users
      .def("weight", [](const S& v, int64_t u) { return v.get().user(v.user(u)).weight; }, py::arg("user"))
      .def("running", [](const S& v, int64_t u) { return v.get().user(v.user(u)).running; }, py::arg("user"),
           "the user's running tasks")
      .def("pending", [](const S& v, int64_t u) { return v.get().user(v.user(u)).pending; }, py::arg("user"),
           "tasks of the user's submitted jobs not launched yet")
      .def("allocated", [](const S& v, int64_t u) {
             const share::UserState& s = v.get().user(v.user(u));
             return py::make_tuple(s.vcores, s.memory);
           }, py::arg("user"), "the user's allocated (vcores, memory)")
      .def("task_share", [](const S& v, int64_t u) { return v.get().user(v.user(u)).task_share; }, py::arg("user"))
      .def("progress_share", [](const S& v, int64_t u) { return v.get().user(v.user(u)).progress_share; }, py::arg("user"))
      .def("dominant_share", [](const S& v, int64_t u) { return v.get().dominant_share(v.user(u)); }, py::arg("user"))
      .def("user_jobs", [](const S& v, int64_t u) { return v.get().user(v.user(u)).jobs; }, py::arg("user"),
           "the user's submitted jobs with pending tasks, in submission order (a new list)")
      // nodes
      .def("free_vcores", [](const S& v, int64_t m) { return v.get().free_vcores(v.node(m)); }, py::arg("node"))
      .def("free_memory", [](const S& v, int64_t m) { return v.get().free_memory(v.node(m)); }, py::arg("node"))
      .def("performance", [](const S& v, int64_t u, int64_t m) { return v.get().performance(v.user(u), v.node(m)); },
           py::arg("user"), py::arg("node"))
      .def("eligible", [](const S& v, int64_t j, int64_t m) { return v.get().eligible(v.job(j), v.node(m)); },
           py::arg("job"), py::arg("node"))
      .def("h_tasks", [](const S& v, int64_t j) { return v.get().h_tasks(v.job(j)); }, py::arg("job"),
           "sum over nodes of the tasks of the job each node holds alone")
      .def("h_progress", [](const S& v, int64_t j) { return v.get().h_progress(v.job(j)); }, py::arg("job"));

  m.def(
      "run_python_share",
      [](std::shared_ptr<Cluster> cluster, std::shared_ptr<Workload> workload, py::dict callbacks,
         const std::string& placement, bool random_ties, std::vector<double> user_weights, py::dict options, uint64_t seed,
         bool measure_overhead) {
        Params op("simulate options (share engine)", share::Options::specs(), to_values(options));
        cluster->validate();
        workload->validate_for_run(cluster->size());
        for (double w : user_weights)
          if (!std::isnan(w) && !(w > 0)) throw py::value_error("weights: a user's weight must be a positive number");
        if (!user_weights.empty()) {
          int32_t n_users = 0;
          for (int32_t u : workload->user) n_users = std::max(n_users, u + 1);
          user_weights.resize(static_cast<size_t>(n_users), std::nan(""));
        }
        py::object sim_obj = py::cast(ShareView{});
        ShareView* view = sim_obj.cast<ShareView*>();
        PySharePolicy policy(sim_obj, view, callbacks, placement_from(placement), random_ties, measure_overhead);
        ClearWhenDone<ShareView> clear{view};
        const share::Options opt = share::Options::from(op);
        share::Sim sim(*cluster, *workload, policy, opt, seed, user_weights);
        SimResult r = run_without_gil([&] { return sim.run(); });
        policy.report(r);
        return result_dict(std::move(r));
      },
      py::arg("cluster"), py::arg("workload"), py::arg("callbacks"), py::arg("placement"), py::arg("random_ties"),
      py::arg("user_weights"), py::arg("options"), py::arg("seed"), py::arg("measure_overhead") = false,
      "runs the share engine with a policy written in Python (see schedlab.schedulers.SharePolicy)");
}

}  // namespace schedlab::bindings

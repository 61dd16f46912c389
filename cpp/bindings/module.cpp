// The pybind11 module schedlab._core: thin conversion between NumPy arrays and the core's
// columnar structs. No scheduling logic lives here.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <optional>
#include <stdexcept>

#include "common.h"
#include "schedlab/cluster.h"
#include "schedlab/fresh.h"
#include "schedlab/registry.h"
#include "schedlab/speculation.h"
#include "schedlab/results.h"
#include "schedlab/workload.h"

namespace py = pybind11;
using namespace schedlab;

namespace {

// Moves a vector into a NumPy array without copying its elements.
template <class T>
py::array_t<T> to_numpy(std::vector<T>&& v) {
  auto* heap = new std::vector<T>(std::move(v));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({heap->size()}, {sizeof(T)}, heap->data(), owner);
}

// A read-only view of a vector owned by `self` (kept alive by the array).
template <class T>
py::array_t<T> view(const std::vector<T>& v, py::handle self) {
  py::array_t<T> a({v.size()}, {sizeof(T)}, v.data(), self);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

// A column of `d` as a one-dimensional array of T (nothing when it is absent and not required).
template <class T>
std::optional<py::array_t<T, py::array::c_style | py::array::forcecast>> column_array(const py::dict& d,
                                                                                      const char* name, bool required) {
  if (!d.contains(name)) {
    if (required) throw std::invalid_argument(std::string("missing column '") + name + "'");
    return std::nullopt;
  }
  auto a = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(d[name]);
  if (!a) throw std::invalid_argument(std::string("column '") + name + "' cannot be read as numbers");
  if (a.ndim() != 1) throw std::invalid_argument(std::string("column '") + name + "' must be one-dimensional");
  return a;
}

template <class T>
std::vector<T> column(const py::dict& d, const char* name, bool required = false) {
  const auto a = column_array<T>(d, name, required);
  if (!a) return {};
  return std::vector<T>(a->data(), a->data() + a->size());
}

// A per-task column from a NumPy array: one value per (job, stage) when the values allow, without
// a copy per task (w's task_job and task_stage read first); else a copy of the array.
// A two-dimensional array of shape (jobs, 2) is one value per (job, stage): row j holds job j's
// maps' value and its reduces' value.
void read_task_column(const py::dict& d, const char* name, Workload& w, TaskColumn& c, bool required = false) {
  if (d.contains(name)) {
    const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(d[name]);
    if (a && a.ndim() == 2) {
      const size_t nj = w.submit_time.size();
      if (size_t(a.shape(0)) != nj || a.shape(1) != 2)
        throw std::invalid_argument(std::string("column '") + name + "' given per job and stage must have shape (" +
                                    std::to_string(nj) + ", 2)");
      c.set_blocks(std::vector<double>(a.data(), a.data() + 2 * nj), w.task_job.size());
      return;
    }
  }
  const auto col = column_array<double>(d, name, required);
  if (!col) return;
  const auto& a = *col;
  const size_t n = size_t(a.size());
  if (n == w.task_job.size() && n == w.task_stage.size() &&
      c.compact(w.task_job.data(), w.task_stage.data(), n, w.submit_time.size(), a.data()))
    return;
  c = std::vector<double>(a.data(), a.data() + n);
}

// A workload's task columns as a read-only mapping of names to NumPy arrays: views of the columns
// held one value per task; a column held per (job, stage) is expanded into an array of its own
// when first read (and kept by the mapping).
struct TaskColumns {
  py::object owner;  // the Workload
  py::dict arrays;   // read so far
  static const std::vector<std::string>& names() {
    static const std::vector<std::string> n = {"job", "stage", "work", "estimate", "input_bytes", "output_bytes",
                                               "vcores", "memory", "replica_begin", "replica_node"};
    return n;
  }
  const TaskColumn& column(const std::string& k) const {
    const Workload& w = owner.cast<const Workload&>();
    if (k == "work") return w.work;
    if (k == "estimate") return w.estimate;
    if (k == "input_bytes") return w.input_bytes;
    if (k == "output_bytes") return w.output_bytes;
    if (k == "vcores") return w.vcores;
    if (k == "memory") return w.memory;
    throw py::key_error(k);
  }
  py::object get(const std::string& name) {
    if (arrays.contains(name)) return arrays[py::str(name)];
    const Workload& w = owner.cast<const Workload&>();
    py::object a;
    if (name == "job") a = view(w.task_job, owner);
    else if (name == "stage") a = view(w.task_stage, owner);
    else if (name == "replica_begin") a = view(w.replica_begin, owner);
    else if (name == "replica_node") a = view(w.replica_node, owner);
    else if (const TaskColumn& c = column(name); !c.per_block()) a = view(c.values(), owner);  // key_error if unknown
    else {
      py::array_t<double> out = to_numpy(c.to_vector());
      py::detail::array_proxy(out.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
      a = out;
    }
    arrays[py::str(name)] = a;
    return a;
  }
};

}  // namespace

namespace schedlab::bindings {

ParamValues to_values(const py::dict& d) {
  ParamValues v;
  for (auto item : d) {
    const std::string key = py::str(item.first);
    py::handle val = item.second;
    if (py::isinstance<py::str>(val)) v.strings[key] = val.cast<std::string>();
    else if (py::isinstance<py::bool_>(val)) v.numbers[key] = val.cast<bool>() ? 1.0 : 0.0;
    else {
      try {
        v.numbers[key] = val.cast<double>();
      } catch (const py::cast_error&) {
        throw std::invalid_argument("parameter '" + key + "' must be a number, a boolean or a string");
      }
    }
  }
  return v;
}

}  // namespace schedlab::bindings

namespace {
using schedlab::bindings::result_dict;
using schedlab::bindings::to_values;

// What a random load costs on the machine at hand: nanoseconds per load of a chain of dependent
// loads (each address the previous load's value, so that nothing overlaps) through one random
// cycle over `megabytes` of memory, the best of `repeats` chains. The engines wait mostly on
// loads of this kind (a random worker's record, a task launched long ago), so their figures
// follow it from machine to machine and, on a shared virtual machine, from hour to hour.
double memory_latency_ns(double megabytes, int64_t loads, int64_t repeats) {
  if (!(megabytes >= 0.01 && megabytes <= 65536)) throw std::invalid_argument("memory_latency_ns: megabytes must be in [0.01, 65536]");
  if (loads < 1 || repeats < 1) throw std::invalid_argument("memory_latency_ns: loads and repeats must be at least 1");
  const size_t n = std::max<size_t>(2, static_cast<size_t>(megabytes * 1048576.0 / sizeof(size_t)));
  std::vector<size_t> next(n);
  std::iota(next.begin(), next.end(), size_t{0});
  std::mt19937_64 rng(12345);
  for (size_t i = n - 1; i > 0; --i) std::swap(next[i], next[rng() % i]);  // Sattolo: one cycle
  double best = INFINITY;
  size_t x = 0;
  for (int64_t r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < loads; ++i) x = next[x];
    best = std::min(best, std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / double(loads));
  }
  if (x == n) throw std::logic_error("memory_latency_ns: unreachable");  // (keeps the chain)
  return best;
}

py::dict spec_dict(const ParamSpec& s) {
  static const char* types[] = {"number", "integer", "boolean", "choice", "text"};
  py::dict d;
  d["name"] = s.name;
  d["type"] = types[s.type];
  if (s.type == ParamSpec::Choice || s.type == ParamSpec::Text) d["default"] = s.default_choice;
  else if (s.type == ParamSpec::Boolean) d["default"] = s.default_number != 0;
  else if (s.type == ParamSpec::Integer) d["default"] = static_cast<int64_t>(s.default_number);
  else d["default"] = s.default_number;
  d["min"] = s.min;
  d["max"] = s.max;
  d["choices"] = s.choices;
  d["doc"] = s.doc;
  return d;
}

}  // namespace

namespace schedlab::bindings {

py::dict result_dict(SimResult&& r) {
  py::dict out;
  py::dict jobs, attempts, extra_j, extra_a, series, counters;
  jobs["start_time"] = to_numpy(std::move(r.job_start));
  jobs["finish_time"] = to_numpy(std::move(r.job_finish));
  for (auto& [k, v] : r.job_extra) jobs[py::str(k)] = to_numpy(std::move(v));
  attempts["task"] = to_numpy(std::move(r.att_task));
  attempts["node"] = to_numpy(std::move(r.att_node));
  attempts["start"] = to_numpy(std::move(r.att_start));
  attempts["finish"] = to_numpy(std::move(r.att_finish));
  attempts["status"] = to_numpy(std::move(r.att_status));
  attempts["locality"] = to_numpy(std::move(r.att_locality));
  attempts["slot"] = to_numpy(std::move(r.att_slot));
  attempts["speculative"] = to_numpy(std::move(r.att_speculative));
  if (!r.att_slot_type.empty()) attempts["slot_type"] = to_numpy(std::move(r.att_slot_type));
  for (auto& [k, v] : r.att_extra) attempts[py::str(k)] = to_numpy(std::move(v));
  for (auto& [k, v] : r.counters) counters[py::str(k)] = v;
  for (auto& [name, ts] : r.series) {
    py::dict cols;
    for (size_t i = 0; i < ts.names.size(); ++i) cols[py::str(ts.names[i])] = to_numpy(std::move(ts.columns[i]));
    series[py::str(name)] = cols;
  }
  out["jobs"] = jobs;
  out["attempts"] = attempts;
  out["counters"] = counters;
  out["series"] = series;
  out["events"] = r.events;
  out["end_time"] = r.end_time;
  return out;
}

}  // namespace schedlab::bindings

PYBIND11_MODULE(_core, m) {
  m.doc() = "schedlab's C++ simulation core";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const std::logic_error& e) {
      PyErr_SetString(PyExc_RuntimeError, (std::string("internal error: ") + e.what()).c_str());
    }
  });

  py::class_<Workload, std::shared_ptr<Workload>>(m, "Workload")
      .def(py::init([](py::dict jobs, py::dict tasks) {
             auto w = std::make_shared<Workload>();
             w->submit_time = column<double>(jobs, "submit_time", true);
             w->user = column<int32_t>(jobs, "user");
             w->queue = column<int32_t>(jobs, "queue");
             w->weight = column<double>(jobs, "weight");
             w->priority = column<int32_t>(jobs, "priority");
             w->deadline = column<double>(jobs, "deadline");
             w->task_job = column<int32_t>(tasks, "job", true);
             w->task_stage = column<uint8_t>(tasks, "stage");
             read_task_column(tasks, "work", *w, w->work, true);
             read_task_column(tasks, "estimate", *w, w->estimate);
             read_task_column(tasks, "input_bytes", *w, w->input_bytes);
             read_task_column(tasks, "output_bytes", *w, w->output_bytes);
             read_task_column(tasks, "vcores", *w, w->vcores);
             read_task_column(tasks, "memory", *w, w->memory);
             w->replica_begin = column<int64_t>(tasks, "replica_begin");
             w->replica_node = column<int32_t>(tasks, "replica_node");
             w->eligible_begin = column<int64_t>(jobs, "eligible_begin");
             w->eligible_node = column<int32_t>(jobs, "eligible_node");
             w->parent_begin = column<int64_t>(jobs, "parent_begin");
             w->parent_job = column<int32_t>(jobs, "parent_job");
             w->dag = column<int32_t>(jobs, "dag");
             w->finalize();
             w->sealed = true;  // (its columns reach Python as read-only views)
             return w;
           }),
           py::arg("jobs"), py::arg("tasks"))
      .def_property_readonly("n_jobs", &Workload::n_jobs)
      .def_property_readonly("n_tasks", &Workload::n_tasks)
      .def_property_readonly("nbytes", &Workload::nbytes, "bytes held by the workload's columns")
      .def("columns", [](py::object self) {
        const Workload& w = self.cast<const Workload&>();
        py::dict jobs;
        jobs["submit_time"] = view(w.submit_time, self);
        jobs["user"] = view(w.user, self);
        jobs["queue"] = view(w.queue, self);
        jobs["weight"] = view(w.weight, self);
        jobs["deadline"] = view(w.deadline, self);
        jobs["n_maps"] = view(w.n_maps, self);
        jobs["task_begin"] = view(w.task_begin, self);
        jobs["eligible_begin"] = view(w.eligible_begin, self);
        jobs["eligible_node"] = view(w.eligible_node, self);
        jobs["parent_begin"] = view(w.parent_begin, self);
        jobs["parent_job"] = view(w.parent_job, self);
        jobs["dag"] = view(w.dag, self);
        return py::make_tuple(jobs, TaskColumns{self, py::dict()});
      });

  py::class_<TaskColumns>(m, "TaskColumns",
                          "A workload's task columns: a read-only mapping of names to NumPy arrays (views; a "
                          "column held one value per job and stage is expanded when first read)")
      .def("__getitem__", &TaskColumns::get)
      .def("__contains__", [](const TaskColumns&, const std::string& k) {
        const auto& n = TaskColumns::names();
        return std::find(n.begin(), n.end(), k) != n.end();
      })
      .def("__len__", [](const TaskColumns&) { return TaskColumns::names().size(); })
      .def("__iter__", [](const TaskColumns&) { return py::iter(py::cast(TaskColumns::names())); })
      .def("keys", [](const TaskColumns&) { return TaskColumns::names(); })
      .def("values", [](TaskColumns& t) {
        py::list out;
        for (const auto& k : TaskColumns::names()) out.append(t.get(k));
        return out;
      })
      .def("items", [](TaskColumns& t) {
        py::list out;
        for (const auto& k : TaskColumns::names()) out.append(py::make_tuple(k, t.get(k)));
        return out;
      })
      .def("blocks", [](TaskColumns& t, const std::string& k) -> py::object {
        const TaskColumn& c = t.column(k);
        if (!c.per_block()) return py::none();
        return to_numpy(std::vector<double>(c.blocks()));
      }, py::arg("key"),
         "A numeric task column held one value per (job, stage): those values (job j's stage s at 2j + s, "
         "a stage without tasks 0); None for a column held per task")
      .def("get", [](TaskColumns& t, const std::string& k, py::object dflt) {
        const auto& n = TaskColumns::names();
        return std::find(n.begin(), n.end(), k) != n.end() ? t.get(k) : dflt;
      }, py::arg("key"), py::arg("default") = py::none());

  py::class_<Cluster, std::shared_ptr<Cluster>>(m, "Cluster")
      .def(py::init([](py::dict c, int32_t n_racks) {
             auto cl = std::make_shared<Cluster>();
             cl->rack = column<int32_t>(c, "rack", true);
             cl->speed = column<double>(c, "speed", true);
             cl->map_slots = column<int32_t>(c, "map_slots", true);
             cl->reduce_slots = column<int32_t>(c, "reduce_slots", true);
             cl->slots = column<int32_t>(c, "slots", true);
             cl->vcores = column<double>(c, "vcores", true);
             cl->memory = column<double>(c, "memory", true);
             cl->node_type = column<int32_t>(c, "node_type", true);
             cl->n_racks = n_racks;
             cl->validate();
             return cl;
           }),
           py::arg("columns"), py::arg("n_racks"))
      .def_property_readonly("n_nodes", &Cluster::size);

  m.def(
      "cancel_runs",
      [](uint64_t scope) {
        if (scope == 0) ++bindings::cancel_generation();
        else bindings::CancelledScopes::get().add(scope);
      },
      py::arg("scope") = 0,
      "Stops the simulations running now, on any thread, at their next interrupt poll (KeyboardInterrupt): "
      "every one (scope 0), or those started under set_cancel_scope(scope) (and any later under that scope).");
  m.def(
      "set_cancel_scope",
      [](uint64_t scope) {
        const uint64_t before = bindings::cancel_scope;
        bindings::cancel_scope = scope;
        return before;
      },
      py::arg("scope"), "Runs started on this thread from now on are cancelled by cancel_runs(scope); returns the scope before.");
  m.def(
      "memory_latency_ns",
      [](double megabytes, int64_t loads, int64_t repeats) {
        py::gil_scoped_release release;
        return memory_latency_ns(megabytes, loads, repeats);
      },
      py::arg("megabytes"), py::arg("loads") = 10000000, py::arg("repeats") = 3,
      "Nanoseconds per load of a chain of dependent random loads through `megabytes` of memory, best "
      "of `repeats` (bench/memory_latency.py): what the machine's memory costs the simulators.");
  m.def("engines", [] {
    py::list out;
    for (auto& e : engines()) {
      py::dict d;
      d["name"] = e.name;
      d["summary"] = e.summary;
      py::list opts;
      for (auto& s : e.options) opts.append(spec_dict(s));
      d["options"] = opts;
      out.append(d);
    }
    return out;
  });
  m.def("speculators", [] {
    py::list out;
    for (auto& name : mr::speculator_names()) {
      py::dict d;
      d["name"] = name;
      py::list params;
      for (auto& p : mr::speculator_params(name)) params.append(spec_dict(p));
      d["params"] = params;
      out.append(d);
    }
    return out;
  });
  m.def("schedulers", [] {
    py::list out;
    for (auto& s : schedulers()) {
      py::dict d;
      d["name"] = s.name;
      d["engine"] = s.engine;
      d["citation"] = s.citation;
      d["summary"] = s.summary;
      py::list params;
      for (auto& p : s.params) params.append(spec_dict(p));
      d["params"] = params;
      out.append(d);
    }
    return out;
  });
  m.def(
      "fresh_static_split",
      [](std::shared_ptr<Cluster> cluster, std::shared_ptr<Workload> workload, int64_t k, const std::string& share,
         const std::string& deduction, double network_bandwidth) {
        if (share != "set_size" && share != "k") throw std::invalid_argument("fresh_static_split: share must be 'set_size' or 'k'");
        if (deduction != "remaining" && deduction != "literal")
          throw std::invalid_argument("fresh_static_split: deduction must be 'remaining' or 'literal'");
        mr::FreshSplitOptions o;
        o.k = k;
        o.share_by_set_size = share == "set_size";
        o.literal_deduction = deduction == "literal";
        o.network_bandwidth = network_bandwidth;
        mr::FreshSplit s = mr::fresh_static_split(*cluster, *workload, o);
        py::dict d;
        d["map_slots"] = s.map_slots;
        d["reduce_slots"] = s.reduce_slots;
        d["makespan"] = s.makespan;
        d["makespan_by_split"] = to_numpy(std::move(s.makespan_by_split));
        d["node_map_slots"] = to_numpy(std::move(s.node_map_slots));
        d["node_reduce_slots"] = to_numpy(std::move(s.node_reduce_slots));
        return d;
      },
      py::arg("cluster"), py::arg("workload"), py::arg("k"), py::arg("share"), py::arg("deduction"),
      py::arg("network_bandwidth"));
  m.def(
      "run",
      [](std::shared_ptr<Cluster> cluster, std::shared_ptr<Workload> workload, const std::string& scheduler,
         py::dict scheduler_params, py::dict options, uint64_t seed, py::object progress) {
        RunRequest req;
        req.cluster = cluster.get();
        req.workload = workload.get();
        req.scheduler = scheduler;
        req.scheduler_params = to_values(scheduler_params);
        req.options = to_values(options);
        req.seed = seed;
        return result_dict(bindings::run_without_gil([&] { return schedlab::run(req); }, progress));
      },
      py::arg("cluster"), py::arg("workload"), py::arg("scheduler"), py::arg("scheduler_params"),
      py::arg("options"), py::arg("seed"), py::arg("progress") = py::none());

  schedlab::bindings::bind_python_scheduler(m);
  schedlab::bindings::bind_python_policies(m);
  schedlab::bindings::bind_gym(m);
  schedlab::bindings::bind_gym_worker(m);
  schedlab::bindings::bind_harness(m);
  schedlab::bindings::bind_text(m);
}

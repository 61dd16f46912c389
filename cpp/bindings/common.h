// Conversions shared by the binding files of schedlab._core (defined in module.cpp).
#pragma once
#include <pybind11/pybind11.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "schedlab/interrupt.h"
#include "schedlab/params.h"
#include "schedlab/workload.h"
#include "schedlab/results.h"

namespace schedlab::bindings {

// An id that a scheduler written in Python handed back, checked against the count of its kind:
// out of range is a ValueError such as "no job 7 (jobs are 0..4)".
inline int32_t checked_id(int64_t id, int64_t count, const char* kind) {
  if (id < 0 || id >= count)
    throw pybind11::value_error("no " + std::string(kind) + " " + std::to_string(id) + " (" + kind + "s are 0.." +
                                std::to_string(count - 1) + ")");
  return static_cast<int32_t>(id);
}

// A handle on an engine's running simulation, as a scheduler written in Python sees it. The
// pointer is cleared when the run ends (ClearWhenDone), so a handle a scheduler kept fails
// cleanly instead of reading freed memory; ids the scheduler hands back are checked.
template <class SimT>
struct RunningSim {
  SimT* sim = nullptr;
  SimT& get() const {
    if (sim == nullptr) throw std::runtime_error("the simulation has ended: a sim handle is valid only inside scheduler callbacks");
    return *sim;
  }
  int32_t job(int64_t j) const { return checked_id(j, static_cast<int64_t>(get().workload().n_jobs()), "job"); }
  int32_t task(int64_t t) const { return checked_id(t, static_cast<int64_t>(get().workload().n_tasks()), "task"); }
  int32_t node(int64_t i) const { return checked_id(i, static_cast<int64_t>(get().n_nodes()), "node"); }
};
template <class View>
struct ClearWhenDone {
  View* view;
  ~ClearWhenDone() { view->sim = nullptr; }
};

// A result as the dict of NumPy columns that schedlab.Result reads (moves the vectors).
pybind11::dict result_dict(SimResult&& r);
// Python keyword values (numbers, booleans, strings) as the core's parameter values.
ParamValues to_values(const pybind11::dict& d);
// Runs `simulate` (a callable returning a SimResult) without the GIL, so that other Python threads
// go on, while Ctrl-C still works: the engines poll Python's pending signals (taking the GIL for
// a moment every 2^20 events), and a KeyboardInterrupt (or whatever the signal handler raised)
// stops the run and is raised here. `progress`, unless None, is called as progress(events,
// simulated_time) at the same polling point (with the GIL); an exception it raises stops the run.
// A run on another thread than the main one sees no signal. schedlab._core.cancel_runs() stops
// every run that started before it, on any thread, at its next poll, with a KeyboardInterrupt;
// cancel_runs(scope) only the runs started under that scope: a sweep runs its runs under a
// scope of its own (set_cancel_scope on the threads that run them, here and on Dask workers), so
// that a sweep interrupted by Ctrl-C, or ended by an error, stops its runs and nobody else's.
inline std::atomic<uint64_t>& cancel_generation() {
  static std::atomic<uint64_t> generation{0};
  return generation;
}
inline thread_local uint64_t cancel_scope = 0;  // this thread's runs' scope (0: none)
struct CancelledScopes {
  std::mutex mutex;
  std::set<uint64_t> ids;
  static CancelledScopes& get() {
    static CancelledScopes scopes;
    return scopes;
  }
  void add(uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex);
    ids.insert(id);
  }
  bool has(uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex);
    return ids.count(id) != 0;
  }
};
template <class Simulate>
SimResult run_without_gil(Simulate&& simulate, const pybind11::object& progress = pybind11::none()) {
  SimResult r;
  const uint64_t generation = cancel_generation().load();
  const uint64_t scope = cancel_scope;
  try {
    pybind11::gil_scoped_release release;
    bool failed = false;
    InterruptCheck check([&failed, generation, scope] {
      pybind11::gil_scoped_acquire gil;
      if (failed || PyErr_CheckSignals() != 0) return true;  // (the handler's exception stays set for below)
      if (cancel_generation().load() != generation || (scope != 0 && CancelledScopes::get().has(scope))) {
        PyErr_SetString(PyExc_KeyboardInterrupt, "the run was cancelled (schedlab._core.cancel_runs)");
        return true;
      }
      return false;
    });
    std::function<void(uint64_t, double)> report;
    if (!progress.is_none())
      report = [&progress, &failed](uint64_t events, double now) {
        pybind11::gil_scoped_acquire gil;
        if (failed) return;
        if (PyObject* res = PyObject_CallFunction(progress.ptr(), "Kd", (unsigned long long)events, now))
          Py_DECREF(res);
        else
          failed = true;  // the exception stays set; the interrupt check stops the run
      };
    std::optional<ProgressReport> progress_report;
    if (report) progress_report.emplace(std::move(report));
    r = std::forward<Simulate>(simulate)();
  } catch (const Interrupted&) {
    throw pybind11::error_already_set();
  }
  return r;
}
// Schedulers written in Python: a callback costs microseconds, so the engines' polls (every 2^20
// events) can be tens of seconds apart (a sweep's fifo_in_python run took 19 s to stop after
// Ctrl-C). Their trampolines call this at each callback, with the GIL held: every 256th runs the
// interrupt check of the run (none outside a run: the harness, the gym environments).
inline void poll_in_callback() {
  thread_local uint32_t calls = 0;
  if ((++calls & 255) == 0 && detail::interrupt_check && (*detail::interrupt_check)()) throw Interrupted();
}
// Defined in python_scheduler.cpp: the Python scheduler interface of the MapReduce engine.
void bind_python_scheduler(pybind11::module_& m);
// Defined in python_policies.cpp: the Python scheduler interfaces of the worker and share engines.
void bind_python_policies(pybind11::module_& m);
// Defined in gym.cpp: the episode time limit of a schedlab.gym environment given none: the last
// arrival + 100 x the total work / the slots + 1000 s (far beyond a schedule that keeps slots busy;
// it bounds an agent that leaves them idle).
double gym_default_time_limit(const std::vector<double>& submit, const TaskColumn& work, int64_t slots);
// Defined in gym.cpp: the MapReduce engine paused at decisions (schedlab.gym).
void bind_gym(pybind11::module_& m);
// Defined in gym_worker.cpp: the worker engine paused at decisions (schedlab.gym).
void bind_gym_worker(pybind11::module_& m);
// Defined in harness.cpp: the scheduler harness.
void bind_harness(pybind11::module_& m);
// schedlab._core.split_numbers (text.cpp)
void bind_text(pybind11::module_& m);

}  // namespace schedlab::bindings

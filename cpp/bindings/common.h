// Conversions shared by the binding files of schedlab._core (defined in module.cpp).
#pragma once
#include <pybind11/pybind11.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
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

// A result as the dict of NumPy columns that schedlab.Result reads (moves the vectors).
pybind11::dict result_dict(SimResult&& r);
// Python keyword values (numbers, booleans, strings) as the core's parameter values.
ParamValues to_values(const pybind11::dict& d);
// Runs `simulate` (a callable returning a SimResult) without the GIL, so that other Python threads
// go on, while Ctrl-C still works: the engines poll Python's pending signals (taking the GIL for
// a moment every 2^20 events), and a KeyboardInterrupt (or whatever the signal handler raised)
// stops the run and is raised here. `progress`, unless None, is called as progress(events,
// simulated_time) at the same polling point (with the GIL); an exception it raises stops the run.
// A run on another thread than the main one sees no signal; cancel_runs() (schedlab._core.
// cancel_runs, called by a sweep interrupted with Ctrl-C) stops every run that started before it,
// on any thread, at its next poll, with a KeyboardInterrupt.
inline std::atomic<uint64_t>& cancel_generation() {
  static std::atomic<uint64_t> generation{0};
  return generation;
}
template <class Simulate>
SimResult run_without_gil(Simulate&& simulate, const pybind11::object& progress = pybind11::none()) {
  SimResult r;
  const uint64_t generation = cancel_generation().load();
  try {
    pybind11::gil_scoped_release release;
    bool failed = false;
    InterruptCheck check([&failed, generation] {
      pybind11::gil_scoped_acquire gil;
      if (failed || PyErr_CheckSignals() != 0) return true;  // (the handler's exception stays set for below)
      if (cancel_generation().load() != generation) {
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

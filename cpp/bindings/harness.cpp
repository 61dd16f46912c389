// schedlab._core.Harness: the scheduler harness (schedlab/harness.h) for Python; the Python
// face is schedlab.testing.Harness.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "common.h"
#include "schedlab/harness.h"

namespace py = pybind11;

namespace schedlab::bindings {

// A scheduler written in Python (python_scheduler.cpp): `prepare(workload)` returns its callbacks.
std::unique_ptr<mr::Scheduler> python_scheduler_for(const py::object& prepare, const std::string& slot_model,
                                                    const Workload& workload);

void bind_harness(py::module_& m) {
  using H = mr::Harness;
  py::class_<H>(m, "Harness", "a MapReduce-engine scheduler driven step by step (see schedlab.testing)")
      .def(py::init([](const std::string& scheduler, py::dict params, py::dict options, const std::string& task_ids) {
             if (task_ids != "index" && task_ids != "counter" && task_ids != "per_job")
               throw std::invalid_argument("task_ids must be 'index', 'counter' or 'per_job'");
             return std::make_unique<H>(scheduler, to_values(params), to_values(options),
                                        task_ids == "index" ? mr::TaskIds::Index : task_ids == "counter" ? mr::TaskIds::Counter : mr::TaskIds::PerJob);
           }),
           py::arg("scheduler"), py::arg("params"), py::arg("options"), py::arg("task_ids"))
      .def_static(
          "for_python",
          [](py::object prepare, const std::string& slot_model, const std::string& label, py::dict options,
             const std::string& task_ids) {
            if (task_ids != "index" && task_ids != "counter" && task_ids != "per_job")
              throw std::invalid_argument("task_ids must be 'index', 'counter' or 'per_job'");
            auto factory = [prepare, slot_model](const Workload& wl) { return python_scheduler_for(prepare, slot_model, wl); };
            return std::make_unique<H>(factory, label, to_values(options),
                                       task_ids == "index" ? mr::TaskIds::Index : task_ids == "counter" ? mr::TaskIds::Counter : mr::TaskIds::PerJob);
          },
          py::arg("prepare"), py::arg("slot_model"), py::arg("label"), py::arg("options"), py::arg("task_ids"),
          "a harness over a scheduler written in Python: prepare(workload) returns its callbacks")
      .def("add_tracker", &H::add_tracker, py::arg("name"), py::arg("rack"), py::arg("map_slots"), py::arg("reduce_slots"),
           py::arg("host") = "")
      .def("submit",
           [](H& h, int32_t maps, int32_t reduces, std::vector<std::vector<std::string>> map_hosts, const std::string& pool,
              const std::string& user, const std::string& priority, double weight, double map_memory, double reduce_memory,
              double deadline, double work, const std::string& state, int32_t slowstart_maps) {
             mr::HarnessJob j;
             j.maps = maps;
             j.reduces = reduces;
             j.map_hosts = std::move(map_hosts);
             j.pool = pool;
             j.user = user;
             j.priority = priority;
             j.weight = weight;
             j.map_memory = map_memory;
             j.reduce_memory = reduce_memory;
             j.deadline = deadline;
             j.work = work;
             j.state = state;
             j.slowstart_maps = slowstart_maps;
             return h.submit(j);
           },
           py::arg("maps"), py::arg("reduces"), py::arg("map_hosts"), py::arg("pool"), py::arg("user"), py::arg("priority"),
           py::arg("weight"), py::arg("map_memory"), py::arg("reduce_memory"), py::arg("deadline"), py::arg("work"), py::arg("state"),
           py::arg("slowstart_maps") = -1)
      .def("set_priority", &H::set_priority)
      .def_property_readonly("now", &H::now)
      .def("set_time", &H::set_time)
      .def("heartbeat",
           [](H& h, const std::string& tracker) {
             py::list out;
             for (const mr::Assignment& a : h.heartbeat(tracker))
               out.append(py::make_tuple(a.attempt, a.tracker, a.id, a.map, a.speculative));
             return out;
           })
      .def("finish", &H::finish)
      .def("fail", &H::fail)
      .def("kill", &H::kill)
      .def("set_progress", &H::set_progress)
      .def("act", &H::act)
      .def("set_pool", &H::set_pool)
      .def("end_job", &H::end_job, py::arg("job"), py::arg("state"), py::arg("keep_attempts") = false)
      .def("finalize_job", &H::finalize_job)
      .def("hold_jobs", &H::hold_jobs)
      .def("report",
           [](H& h) {
             mr::SchedulerReport r = h.report();
             py::dict d;
             d["pool"] = r.pool;
             d["job"] = r.job;
             d["user"] = r.user;
             d["node"] = r.node;
             d["scalar"] = r.scalar;
             return d;
           })
      .def("job_state",
           [](H& h, const std::string& job) {
             const mr::JobState& s = h.job_state(job);
             py::dict d;
             d["pending"] = py::make_tuple(s.pending[0], s.pending[1]);
             d["running"] = py::make_tuple(s.running[0], s.running[1]);
             d["done"] = py::make_tuple(s.done[0], s.done[1]);
             d["running_attempts"] = py::make_tuple(s.running_attempts[0], s.running_attempts[1]);
             d["submitted"] = s.submitted;
             d["finish"] = s.finish;
             d["ended"] = s.ended == kKilled ? "KILLED" : s.ended == kFailed ? "FAILED" : "";
             return d;
           })
      .def("job_id", &H::job_id)
      .def("pool_id", &H::pool_id)
      .def("user_id", &H::user_id)
      .def("tracker_id", &H::tracker_id)
      .def("pools", &H::pools)
      .def("attempt_status", &H::attempt_status)
      .def("running_attempts", &H::running_attempts)
      .def("assignments", &H::assignments)
      .def("result", [](H& h) { return result_dict(h.result()); });
}

}  // namespace schedlab::bindings

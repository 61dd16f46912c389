#include "schedlab/registry.h"

#include <mutex>
#include <sstream>
#include <stdexcept>

namespace schedlab {

// Each engine file defines its registration function; they are called once, in this order.
namespace mr {
void register_engine();
void register_hadoop_schedulers();
void register_fresh_schedulers();
void register_eas_schedulers();
void register_dynamicmr_schedulers();
void register_omo_schedulers();
void register_yarn_schedulers();
}  // namespace mr
namespace share {
void register_engine();
void register_fairness_schedulers();
}  // namespace share
namespace worker {
void register_engine();
void register_hybrid_schedulers();
}  // namespace worker
namespace spark {
void register_engine();
}  // namespace spark

namespace {
std::vector<EngineInfo>& engine_list() { static std::vector<EngineInfo> v; return v; }
std::vector<SchedulerInfo>& scheduler_list() { static std::vector<SchedulerInfo> v; return v; }

void ensure_registered() {
  static std::once_flag once;
  std::call_once(once, [] {
    mr::register_engine();
    mr::register_hadoop_schedulers();
    mr::register_fresh_schedulers();
    mr::register_eas_schedulers();
    share::register_engine();
    share::register_fairness_schedulers();
    worker::register_engine();
    worker::register_hybrid_schedulers();
    mr::register_dynamicmr_schedulers();
    mr::register_omo_schedulers();
    mr::register_yarn_schedulers();
    spark::register_engine();
  });
}
}  // namespace

void register_engine(EngineInfo engine) { engine_list().push_back(std::move(engine)); }
void register_scheduler(SchedulerInfo info) {
  for (auto& s : scheduler_list())
    if (s.name == info.name) throw std::logic_error("scheduler '" + info.name + "' registered twice");
  scheduler_list().push_back(std::move(info));
}

const std::vector<EngineInfo>& engines() { ensure_registered(); return engine_list(); }
const std::vector<SchedulerInfo>& schedulers() { ensure_registered(); return scheduler_list(); }

const SchedulerInfo& find_scheduler(const std::string& name) {
  for (auto& s : schedulers()) if (s.name == name) return s;
  std::ostringstream o;
  o << "unknown scheduler '" << name << "'; available:";
  for (auto& s : schedulers()) o << " " << s.name;
  throw std::invalid_argument(o.str());
}

const EngineInfo& find_engine(const std::string& name) {
  for (auto& e : engines()) if (e.name == name) return e;
  throw std::invalid_argument("unknown engine '" + name + "'");
}

SimResult run(const RunRequest& request) {
  const SchedulerInfo& info = find_scheduler(request.scheduler);
  const EngineInfo& engine = find_engine(info.engine);
  // validate before any work is done
  Params(info.name, info.params, request.scheduler_params);
  Params("simulate options (" + engine.name + " engine)", engine.options, request.options);
  request.cluster->validate();
  request.workload->validate_for_run(request.cluster->size());
  return engine.run(request);
}

}  // namespace schedlab

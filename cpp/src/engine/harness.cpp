// The scheduler harness (see schedlab/harness.h).
#include "schedlab/harness.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "schedlab/speculation.h"

namespace schedlab::mr {

namespace {

// Hadoop's JobPriority as the workload's priority column (0 VERY_HIGH .. 4 VERY_LOW).
int32_t priority_level(const std::string& p) {
  static const char* names[] = {"VERY_HIGH", "HIGH", "NORMAL", "LOW", "VERY_LOW"};
  for (int32_t i = 0; i < 5; ++i)
    if (p == names[i]) return i;
  throw std::invalid_argument("unknown job priority '" + p + "' (VERY_HIGH, HIGH, NORMAL, LOW or VERY_LOW)");
}

// Parameters whose "key:value" keys are pool (queue) names, and those keyed by user name.
const std::set<std::string>& pool_keyed() {
  static const std::set<std::string> s = {"pool_weights",      "min_shares",        "min_map_shares",
                                          "min_reduce_shares", "pool_max_jobs",     "pool_modes",
                                          "capacities",        "min_share_timeouts", "pool_max_maps",
                                          "pool_max_reduces",  "max_capacities",    "min_user_limit_percents",
                                          "user_limit_factors", "supports_priorities", "queue_order",
                                          "init_accept_jobs_factors"};
  return s;
}
const std::set<std::string>& user_keyed() {
  static const std::set<std::string> s = {"user_max_jobs"};
  return s;
}

bool is_number(const std::string& k) {
  if (k.empty()) return false;
  for (char c : k)
    if (c < '0' || c > '9') return false;
  return true;
}

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t") + 1);
  return s;
}

// The keys of a "key:value,..." text, in order.
std::vector<std::string> keys_of(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    const size_t colon = item.find(':');
    if (colon != std::string::npos) out.push_back(trim(item.substr(0, colon)));
  }
  return out;
}

// The text with its keys mapped through `ids` (numeric keys kept).
std::string translate(const std::string& owner, const std::string& text, const std::map<std::string, int32_t>& ids) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    const size_t colon = item.find(':');
    if (colon != std::string::npos) {
      const std::string key = trim(item.substr(0, colon));
      if (!is_number(key)) {
        auto it = ids.find(key);
        if (it == ids.end()) throw std::invalid_argument(owner + ": unknown name '" + key + "'");
        item = std::to_string(it->second) + item.substr(colon);
      }
    }
    if (!out.empty()) out += ",";
    out += item;
  }
  return out;
}

std::string pad(int64_t v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*lld", width, static_cast<long long>(v));
  return buf;
}

}  // namespace

Harness::Harness(std::string scheduler, ParamValues scheduler_params, ParamValues options, TaskIds task_ids)
    : scheduler_(std::move(scheduler)), params_(std::move(scheduler_params)), options_(std::move(options)), task_ids_(task_ids) {
  const SchedulerInfo& info = find_scheduler(scheduler_);  // throws for an unknown name
  if (info.engine != "mapreduce")
    throw std::invalid_argument("harness: scheduler '" + scheduler_ + "' does not run on the mapreduce engine");
  for (const auto& [k, v] : params_.strings) {
    if (pool_keyed().count(k))
      for (const std::string& key : keys_of(v))
        if (!is_number(key)) pool_ids_.emplace(key, 0);
    if (user_keyed().count(k))
      for (const std::string& key : keys_of(v))
        if (!is_number(key)) user_ids_.emplace(key, 0);
  }
  pool_ids_.emplace("default", 0);
}

Harness::Harness(SchedulerFactory factory, std::string label, ParamValues options, TaskIds task_ids)
    : scheduler_(std::move(label)), factory_(std::move(factory)), options_(std::move(options)), task_ids_(task_ids) {
  if (!factory_) throw std::invalid_argument("harness: no scheduler factory");
  pool_ids_.emplace("default", 0);
}

Harness::~Harness() = default;

void Harness::add_tracker(const std::string& name, const std::string& rack, int32_t map_slots, int32_t reduce_slots,
                          const std::string& host) {
  if (name.empty()) throw std::invalid_argument("add_tracker: a tracker needs a name");
  for (const Tracker& t : trackers_)
    if (t.name == name) throw std::invalid_argument("add_tracker: tracker '" + name + "' exists already");
  if (map_slots < 0 || reduce_slots < 0) throw std::invalid_argument("add_tracker: slot counts must be >= 0");
  trackers_.push_back({name, host.empty() ? name : host, rack.empty() ? "default-rack" : rack, map_slots, reduce_slots});
  log_.push_back({Action::Join, now_, int64_t(trackers_.size()) - 1});  // its slots count from now on
  dirty_ = true;
}

std::string Harness::submit(const HarnessJob& job) {
  if (job.maps < 0 || job.reduces < 0) throw std::invalid_argument("submit: map and reduce counts must be >= 0");
  if (job.maps + job.reduces == 0) throw std::invalid_argument("submit: a job needs at least one task");
  if (!job.map_hosts.empty() && int32_t(job.map_hosts.size()) != job.maps)
    throw std::invalid_argument("submit: map_hosts has " + std::to_string(job.map_hosts.size()) + " entries for " +
                                std::to_string(job.maps) + " maps");
  priority_level(job.priority);  // (checks it)
  if (!(job.weight > 0)) throw std::invalid_argument("submit: weight must be positive");
  if (!(job.work > 0)) throw std::invalid_argument("submit: work must be positive");
  if (job.slowstart_maps > job.maps) throw std::invalid_argument("submit: slowstart_maps is more than the job's maps");
  for (const auto& hosts : job.map_hosts)
    for (const std::string& h : hosts) {
      bool known = false;
      for (const Tracker& t : trackers_) known |= t.host == h;
      if (!known) throw std::invalid_argument("submit: map input host '" + h + "' is no tracker's host");
    }
  Job j{job};
  if (j.spec.pool.empty()) j.spec.pool = "default";
  pool_ids_.emplace(j.spec.pool, 0);
  user_ids_.emplace(j.spec.user, 0);
  if (job.state != "RUNNING" && job.state != "PREP" && job.state != "SUCCEEDED" && job.state != "FAILED" && job.state != "KILLED")
    throw std::invalid_argument("submit: state must be RUNNING, PREP, SUCCEEDED, FAILED or KILLED, not '" + job.state + "'");
  jobs_.push_back(j);
  if (job.state == "RUNNING") log_.push_back({Action::Submit, now_, int64_t(jobs_.size()) - 1});
  dirty_ = true;
  const std::string name = "job_test_" + pad(int64_t(jobs_.size()), 4);
  if (job.state == "RUNNING") {  // the scheduler may refuse it (its name is taken all the same, as in Hadoop)
    ensure();
    if (sim_->job(int32_t(jobs_.size()) - 1).ended)
      throw std::invalid_argument("submit: the scheduler refused " + name + " (its submission limits)");
  }
  return name;
}

void Harness::set_priority(const std::string& job, const std::string& priority) {
  const int32_t j = job_id(job);
  const int32_t level = priority_level(priority);
  // before any heartbeat since the job's submission: as if given at submission
  bool submitted = false, seen = false;
  for (const Action& a : log_) {
    submitted |= a.kind == Action::Submit && a.target == j;
    seen |= submitted && a.kind == Action::Heartbeat;
  }
  if (!seen) {
    jobs_[size_t(j)].spec.priority = priority;
    dirty_ = true;
    return;
  }
  // later: a change now (JobInProgress.setPriority), which the scheduler hears of
  ensure();
  const Action act{Action::Priority, now_, j, double(level)};
  apply(act, true);
  log_.push_back(act);
}

void Harness::set_time(double t) {
  if (!(t >= now_)) throw std::invalid_argument("the clock cannot move backwards (now " + std::to_string(now_) + " s, asked " + std::to_string(t) + " s)");
  now_ = t;
  if (sim_ && !dirty_) sim_->advance_to(t);
}

int32_t Harness::node_of(const std::string& tracker) const {
  for (size_t i = 0; i < trackers_.size(); ++i)
    if (trackers_[i].name == tracker) return int32_t(i);
  throw std::invalid_argument("unknown tracker '" + tracker + "'");
}

int32_t Harness::job_id(const std::string& job) const {
  const std::string prefix = "job_test_";
  if (job.rfind(prefix, 0) == 0 && is_number(job.substr(prefix.size()))) {
    const int64_t n = std::stoll(job.substr(prefix.size()));
    if (n >= 1 && n <= int64_t(jobs_.size())) return int32_t(n - 1);
  }
  throw std::invalid_argument("unknown job '" + job + "'");
}

int32_t Harness::pool_id(const std::string& pool) const {
  auto it = pool_ids_.find(pool);
  if (it == pool_ids_.end()) throw std::invalid_argument("unknown pool '" + pool + "'");
  return int32_t(std::distance(pool_ids_.begin(), it));  // ids in name order
}

int32_t Harness::user_id(const std::string& user) const {
  auto it = user_ids_.find(user);
  if (it == user_ids_.end()) throw std::invalid_argument("unknown user '" + user + "'");
  return int32_t(std::distance(user_ids_.begin(), it));  // ids in name order
}

std::vector<std::string> Harness::pools() const {
  std::vector<std::string> out;
  for (const auto& [name, id] : pool_ids_) out.push_back(name);
  return out;
}

int64_t Harness::attempt_of(const std::string& attempt) const {
  auto it = attempt_ids_.find(attempt);
  if (it == attempt_ids_.end()) throw std::invalid_argument("unknown attempt '" + attempt + "'");
  return it->second;
}

ParamValues Harness::translated_params() const {
  std::map<std::string, int32_t> pools, users;
  int32_t i = 0;
  for (const auto& [name, id] : pool_ids_) pools[name] = i++;
  i = 0;
  for (const auto& [name, id] : user_ids_) users[name] = i++;
  ParamValues p = params_;
  for (auto& [k, v] : p.strings) {
    if (pool_keyed().count(k)) v = translate(scheduler_ + ": " + k, v, pools);
    if (user_keyed().count(k)) v = translate(scheduler_ + ": " + k, v, users);
  }
  return p;
}

void Harness::ensure() {
  if (!dirty_ && sim_) return;
  if (trackers_.empty()) throw std::invalid_argument("harness: add a tracker first");
  // the cluster: racks in order of first appearance
  auto cluster = std::make_unique<Cluster>();
  std::map<std::string, int32_t> racks;
  for (const Tracker& t : trackers_) {
    const int32_t r = racks.emplace(t.rack, int32_t(racks.size())).first->second;
    cluster->rack.push_back(r);
    cluster->speed.push_back(1.0);
    cluster->map_slots.push_back(t.map_slots);
    cluster->reduce_slots.push_back(t.reduce_slots);
    cluster->slots.push_back(t.map_slots + t.reduce_slots);
    cluster->vcores.push_back(double(t.map_slots + t.reduce_slots));
    cluster->memory.push_back(1e12);
    cluster->node_type.push_back(0);
  }
  cluster->n_racks = int32_t(racks.size());
  cluster->validate();
  // the workload: every job so far (each handed to the scheduler by its Submit action)
  std::map<std::string, int32_t> pools, users;
  for (const auto& [name, id] : pool_ids_) pools.emplace(name, int32_t(pools.size()));
  for (const auto& [name, id] : user_ids_) users.emplace(name, int32_t(users.size()));
  auto wl = std::make_unique<Workload>();
  wl->task_begin.push_back(0);
  wl->replica_begin.push_back(0);
  for (size_t j = 0; j < jobs_.size(); ++j) {
    const HarnessJob& s = jobs_[j].spec;
    double submitted = 0;
    for (const Action& a : log_)
      if (a.kind == Action::Submit && a.target == int64_t(j)) submitted = a.time;
    wl->submit_time.push_back(submitted);
    wl->user.push_back(users.at(s.user));
    wl->queue.push_back(pools.at(s.pool));
    wl->weight.push_back(s.weight);
    wl->priority.push_back(priority_level(s.priority));
    wl->deadline.push_back(s.deadline);
    wl->n_maps.push_back(s.maps);
    for (int32_t k = 0; k < s.maps + s.reduces; ++k) {
      const bool map = k < s.maps;
      wl->task_job.push_back(int32_t(j));
      wl->task_stage.push_back(map ? kMap : kReduce);
      wl->work.push_back(s.work);
      wl->estimate.push_back(s.work);
      wl->input_bytes.push_back(0);
      wl->output_bytes.push_back(0);
      wl->vcores.push_back(1);
      wl->memory.push_back(map ? s.map_memory : s.reduce_memory);
      if (map && !s.map_hosts.empty())
        for (const std::string& h : s.map_hosts[size_t(k)])
          for (size_t n = 0; n < trackers_.size(); ++n)
            if (trackers_[n].host == h) wl->replica_node.push_back(int32_t(n));
      wl->replica_begin.push_back(int64_t(wl->replica_node.size()));
    }
    wl->task_begin.push_back(int64_t(wl->task_job.size()));
  }
  wl->finalize();
  // the engine, in driven mode, with the scheduler and speculator `simulate` would build
  Params op("harness options (mapreduce engine)", Options::specs(), options_);
  Options opt = Options::from(op);
  opt.driven = true;
  auto sched = factory_ ? factory_(*wl) : make_scheduler(find_scheduler(scheduler_).name, translated_params());
  if (!sched) throw std::invalid_argument("harness: the scheduler factory of '" + scheduler_ + "' built nothing");
  auto spec = make_speculator(opt.speculation, opt.speculation_params);
  auto sim = std::make_unique<Sim>(*cluster, *wl, *sched, opt, 0);
  sim->set_speculator(spec.get());
  sim->hold_jobs(hold_);
  sim->start();
  // a tracker's slots count (in the cluster's totals too) from the time it was added: every node
  // starts empty and joins by its Join action
  for (size_t n = 0; n < trackers_.size(); ++n) sim->set_slots(int32_t(n), 0, 0);
  // swap in, then replay
  sim_.reset();
  cluster_ = std::move(cluster);
  workload_ = std::move(wl);
  sched_ = std::move(sched);
  spec_ = std::move(spec);
  sim_ = std::move(sim);
  attempt_names_.clear();
  attempt_ids_.clear();
  assigned_.clear();
  counter_ = 0;
  attempts_of_task_.assign(workload_->n_tasks(), 0);
  task_number_.assign(workload_->n_tasks(), 0);
  job_counter_.assign(2 * workload_->n_jobs(), 0);
  dirty_ = false;
  for (const Action& a : log_) apply(a, true);
  sim_->advance_to(now_);
}

void Harness::name_new_attempts(int64_t from, int32_t node) {
  const Workload& wl = *workload_;
  for (int64_t a = from; a < sim_->n_attempts(); ++a) {
    const Attempt& at = sim_->attempt(a);
    const int32_t job = at.job;
    const bool map = at.stage == kMap;
    const int64_t index = at.task - wl.task_begin[size_t(job)] - (map ? 0 : wl.n_maps[size_t(job)]);
    int64_t number = index;
    if (task_ids_ == TaskIds::Counter) number = ++counter_;
    if (task_ids_ == TaskIds::PerJob) {  // the task's number: its job's count of tasks of its type handed out, from 1
      if (task_number_[size_t(at.task)] == 0) task_number_[size_t(at.task)] = ++job_counter_[2 * size_t(job) + (map ? 0 : 1)];
      number = task_number_[size_t(at.task)];
    }
    const std::string name = "attempt_test_" + pad(job + 1, 4) + (map ? "_m_" : "_r_") + pad(number, 6) + "_" +
                             std::to_string(attempts_of_task_[size_t(at.task)]++);
    attempt_names_.push_back(name);
    attempt_ids_[name] = a;
    assigned_.push_back(name + " on " + trackers_[size_t(at.node)].name);
    (void)node;
  }
}

void Harness::apply(const Action& a, bool) {
  sim_->advance_to(a.time);
  switch (a.kind) {
    case Action::Submit: {
      const int32_t s = jobs_[size_t(a.target)].spec.slowstart_maps;
      if (s >= 0) sim_->set_slowstart_maps(int32_t(a.target), s);
      sim_->submit_now(int32_t(a.target));
      break;
    }
    case Action::Heartbeat: {
      const int64_t before = sim_->n_attempts();
      sim_->heartbeat_now(int32_t(a.target));
      name_new_attempts(before, int32_t(a.target));
      break;
    }
    case Action::Join: {
      const Tracker& t = trackers_[size_t(a.target)];
      sim_->set_slots(int32_t(a.target), t.map_slots, t.reduce_slots);
      break;
    }
    case Action::Priority:
      workload_->priority[size_t(a.target)] = int32_t(a.value);
      sched_->on_priority_changed(*sim_, int32_t(a.target));
      break;
    case Action::Finish: sim_->complete(a.target); break;
    case Action::Fail: sim_->fail(a.target); break;
    case Action::Kill: sim_->kill(a.target); break;
    case Action::Progress: sim_->set_progress(a.target, a.value); break;
    case Action::EndJob: sim_->end_job(int32_t(a.target), uint8_t(int(a.value) % 10), int(a.value) >= 10); break;
    case Action::Finalize: sim_->finalize_job(int32_t(a.target)); break;
    case Action::Act: {
      std::string name = act_names_[size_t(a.target)];
      if (name.rfind("set_pool:", 0) == 0) {  // "set_pool:JOB:POOL NAME" -> ids of this engine
        const size_t colon = name.find(':', 9);
        name = name.substr(0, colon + 1) + std::to_string(pool_id(name.substr(colon + 1)));
      }
      if (!sched_->act(*sim_, name))
        throw std::invalid_argument("scheduler '" + scheduler_ + "' has no action '" + name + "'");
      break;
    }
  }
}

std::vector<Assignment> Harness::heartbeat(const std::string& tracker) {
  const int32_t node = node_of(tracker);
  ensure();
  const int64_t before = sim_->n_attempts();
  const Action act{Action::Heartbeat, now_, node};
  apply(act, true);
  log_.push_back(act);
  std::vector<Assignment> out;
  for (int64_t a = before; a < sim_->n_attempts(); ++a) {
    const Attempt& at = sim_->attempt(a);
    out.push_back({attempt_names_[size_t(a)], trackers_[size_t(at.node)].name, a, at.stage == kMap, at.speculative != 0});
  }
  return out;
}

void Harness::finish(const std::string& attempt) {
  ensure();
  const int64_t a = attempt_of(attempt);
  const uint8_t st = sim_->attempt(a).status;
  if (st != kRunning)
    throw std::invalid_argument("finish: attempt " + attempt + (st == kSucceeded || st == kLost ? " finished already" : " is not running"));
  const Action act{Action::Finish, now_, a};
  apply(act, true);
  log_.push_back(act);
}

void Harness::fail(const std::string& attempt) {
  ensure();
  const int64_t a = attempt_of(attempt);
  if (sim_->attempt(a).status != kRunning) throw std::invalid_argument("fail: attempt " + attempt + " is not running");
  const Action act{Action::Fail, now_, a};
  apply(act, true);
  log_.push_back(act);
}

void Harness::kill(const std::string& attempt) {
  ensure();
  const int64_t a = attempt_of(attempt);
  if (sim_->attempt(a).status != kRunning) throw std::invalid_argument("kill: attempt " + attempt + " is not running");
  const Action act{Action::Kill, now_, a};
  apply(act, true);
  log_.push_back(act);
}

void Harness::set_progress(const std::string& attempt, double progress) {
  ensure();
  const int64_t a = attempt_of(attempt);
  if (sim_->attempt(a).status != kRunning) throw std::invalid_argument("set_progress: attempt " + attempt + " is not running");
  if (!(progress >= 0 && progress <= 1)) throw std::invalid_argument("set_progress: progress must be in [0, 1]");
  const Action act{Action::Progress, now_, a, progress};
  apply(act, true);
  log_.push_back(act);
}

void Harness::end_job(const std::string& job, const std::string& state, bool keep_attempts) {
  const int32_t j = job_id(job);
  if (state != "KILLED" && state != "FAILED") throw std::invalid_argument("end_job: state must be KILLED or FAILED, not '" + state + "'");
  ensure();
  const Action act{Action::EndJob, now_, j, double((state == "KILLED" ? kKilled : kFailed) + (keep_attempts ? 10 : 0))};
  apply(act, true);
  log_.push_back(act);
}

void Harness::finalize_job(const std::string& job) {
  const int32_t j = job_id(job);
  ensure();
  const Action act{Action::Finalize, now_, j};
  apply(act, true);
  log_.push_back(act);
}

void Harness::hold_jobs(bool hold) {
  if (hold == hold_) return;
  if (!log_.empty()) throw std::invalid_argument("hold_jobs: set it before the first action");
  hold_ = hold;
  dirty_ = true;
}

void Harness::set_pool(const std::string& job, const std::string& pool) {
  const int32_t j = job_id(job);
  if (pool.empty()) throw std::invalid_argument("set_pool: a pool needs a name");
  if (pool_ids_.emplace(pool, 0).second) dirty_ = true;  // a new pool: the engine restarts with it
  act("set_pool:" + std::to_string(j) + ":" + pool);
}

void Harness::act(const std::string& action) {
  ensure();
  act_names_.push_back(action);
  const Action act{Action::Act, now_, int64_t(act_names_.size()) - 1};
  try {
    apply(act, true);
  } catch (...) {
    act_names_.pop_back();
    throw;
  }
  log_.push_back(act);
}

SchedulerReport Harness::report() {
  ensure();
  SchedulerReport r;
  sched_->report(*sim_, r);
  if (spec_) spec_->report(*sim_, r);
  return r;
}

const JobState& Harness::job_state(const std::string& job) {
  const int32_t j = job_id(job);
  ensure();
  return sim_->job(j);
}

std::string Harness::attempt_status(const std::string& attempt) {
  ensure();
  switch (sim_->attempt(attempt_of(attempt)).status) {
    case kRunning: return "running";
    case kSucceeded: return "succeeded";
    case kKilled: return "killed";
    case kFailed: return "failed";
    default: return "lost";
  }
}

std::vector<std::string> Harness::running_attempts(const std::string& tracker) {
  const int32_t node = node_of(tracker);
  ensure();
  std::vector<int64_t> ids;
  for (int64_t a : sim_->attempts_on(node)) ids.push_back(a);
  std::sort(ids.begin(), ids.end());
  std::vector<std::string> out;
  for (int64_t a : ids) out.push_back(attempt_names_[size_t(a)]);
  return out;
}

std::vector<std::string> Harness::assignments() const { return assigned_; }

Sim& Harness::sim() {
  ensure();
  return *sim_;
}

SimResult Harness::result() {
  ensure();
  SimResult r = sim_->collect();
  dirty_ = true;  // (collect hands over some of the engine's columns: the next call rebuilds it)
  return r;
}

}  // namespace schedlab::mr

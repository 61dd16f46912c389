// The fair-sharing simulator under placement constraints (see schedlab/share.h)
// [Zhou 2019, §5.2–5.3, Table 5.2; §5.3.2].
//
// Events: job arrival (a pass over every node with free resources; jobs arriving at the same
// instant are submitted first and served by one pass), task end (a pass over the
// task's node), sampling of the share series. A pass repeatedly serves the lowest-share user
// that has a pending task fitting one of the pass's candidate nodes and launches its oldest
// job's next task there, until no user has a task that fits [Zhou 2019, §5.3.2]. A user whose
// tasks fit nowhere in the pass is skipped for the rest of it (free resources only shrink).
#include "schedlab/interrupt.h"
#include "schedlab/share.h"
#include "schedlab/timing.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace schedlab::share {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::unordered_map<std::string, PolicyFactory>& factories() {
  static std::unordered_map<std::string, PolicyFactory> f;
  return f;
}

std::vector<double> parse_numbers(const std::string& text, const std::string& what) {
  std::vector<double> out;
  std::string tok;
  std::istringstream in(text);
  while (std::getline(in, tok, ',')) {
    size_t a = tok.find_first_not_of(" \t"), b = tok.find_last_not_of(" \t");
    if (a == std::string::npos) throw std::invalid_argument(what + ": empty entry in '" + text + "'");
    tok = tok.substr(a, b - a + 1);
    char* end = nullptr;
    const double v = std::strtod(tok.c_str(), &end);
    if (end == tok.c_str() || *end != '\0' || !(v > 0) || !std::isfinite(v))
      throw std::invalid_argument(what + ": '" + tok + "' is not a positive number");
    out.push_back(v);
  }
  return out;
}

// "user:weight,user:weight" (the Python layer encodes dicts this way)
std::vector<double> parse_weights(const std::string& text, int32_t n_users) {
  std::vector<double> w;
  if (text.empty()) return w;
  w.assign(n_users, kNaN);
  std::string tok;
  std::istringstream in(text);
  while (std::getline(in, tok, ',')) {
    const size_t c = tok.find(':');
    if (c == std::string::npos) throw std::invalid_argument("parameter 'weights': expected 'user:weight', got '" + tok + "'");
    char* end = nullptr;
    const long u = std::strtol(tok.c_str(), &end, 10);
    if (end != tok.c_str() + c || u < 0) throw std::invalid_argument("parameter 'weights': bad user id in '" + tok + "'");
    const double v = std::strtod(tok.c_str() + c + 1, &end);
    if (*end != '\0' || !(v > 0) || !std::isfinite(v))
      throw std::invalid_argument("parameter 'weights': weight in '" + tok + "' must be a positive number");
    if (u < n_users) w[u] = v;  // users without jobs are ignored
  }
  return w;
}
}  // namespace

const std::vector<ParamSpec>& Options::specs() {
  static const std::vector<ParamSpec> s = {
      ParamSpec::text("performance", "",
                      "normalized performance P by node type, as 'p0,p1,...' (entry k for node_type k); "
                      "empty = each node's Cluster speed [Zhou 2019, §5.2–5.3, Table 5.2]"),
      ParamSpec::text("user_performance", "",
                      "per-user performance overrides, as 'user=p0,p1,...;user=...' by node type (CPU- vs "
                      "IO-bound users); users not listed use 'performance'"),
      ParamSpec::choice("runtime_scaling", "performance", {"performance", "none"},
                        "task duration on node m: 'performance' = work / P (the dissertation's stated "
                        "assumption, default [Zhou 2019]); 'none' = work on every node (the reading "
                        "the micro-benchmark-1 timeline fits better)"),
      ParamSpec::number("sample_interval", 1.0, 0, 1e9,
                        "> 0: record the per-user share series every so many seconds (0 = none)"),
      ParamSpec::number("time_limit", INFINITY, 0, INFINITY,
                        "stop the simulation at this time (unfinished jobs get NaN finish times)"),
      ParamSpec::boolean("measure_overhead", false,
                         "measure the wall time of every call of the policy's share function and of its init (counters "
                         "'scheduler_seconds' and 'scheduler_calls')"),
  };
  return s;
}

Options Options::from(const Params& p) {
  Options o;
  const std::string& perf = p.text("performance");
  if (!perf.empty()) o.performance = parse_numbers(perf, "simulate option 'performance'");
  const std::string& up = p.text("user_performance");
  if (!up.empty()) {
    std::string item;
    std::istringstream in(up);
    while (std::getline(in, item, ';')) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos)
        throw std::invalid_argument("simulate option 'user_performance': expected 'user=p0,p1,...', got '" + item + "'");
      char* end = nullptr;
      const long u = std::strtol(item.c_str(), &end, 10);
      if (end != item.c_str() + eq || u < 0 || u > 100000000)
        throw std::invalid_argument("simulate option 'user_performance': bad user id in '" + item + "'");
      if (static_cast<size_t>(u) >= o.user_performance.size()) o.user_performance.resize(u + 1);
      o.user_performance[u] = parse_numbers(item.substr(eq + 1), "simulate option 'user_performance'");
    }
  }
  o.scaling = p.choice("runtime_scaling") == "none" ? Scaling::None : Scaling::Performance;
  o.sample_interval = p.number("sample_interval");
  o.time_limit = p.number("time_limit");
  o.measure_overhead = p.boolean("measure_overhead");
  return o;
}

void register_policy(SchedulerInfo info, PolicyFactory factory) {
  info.engine = "share";
  factories()[info.name] = factory;
  schedlab::register_scheduler(std::move(info));
}

namespace {
// Times the calls of a policy's share function and init (the measure_overhead option).
class TimedPolicy final : public Policy {
 public:
  explicit TimedPolicy(Policy& inner) : in_(inner) {}
  void init(Sim& s) override { t_([&] { in_.init(s); }); }
  double share(const Sim& s, int32_t user) const override { return t_([&] { return in_.share(s, user); }); }
  Placement placement() const override { return in_.placement(); }
  bool random_ties() const override { return in_.random_ties(); }
  void report(SimResult& r) const {
    r.counters["scheduler_seconds"] = double(t_.ns) * 1e-9;
    r.counters["scheduler_calls"] = double(t_.calls);
  }

 private:
  Policy& in_;
  mutable CallTimer t_;
};
}  // namespace

void register_engine() {
  EngineInfo e;
  e.name = "share";
  e.summary = "multi-resource fair sharing on heterogeneous nodes under placement constraints (no heartbeats)";
  e.options = Options::specs();
  e.run = [](const RunRequest& r) {
    const SchedulerInfo& info = find_scheduler(r.scheduler);
    Params sp(info.name, info.params, r.scheduler_params);
    Params op("simulate options (share engine)", Options::specs(), r.options);
    auto policy = factories().at(info.name)(sp);
    int32_t n_users = 0;
    for (int32_t u : r.workload->user) n_users = std::max(n_users, u + 1);
    const std::vector<double> weights = sp.has("weights") ? parse_weights(sp.text("weights"), n_users) : std::vector<double>{};
    const Options opt = Options::from(op);
    if (opt.measure_overhead) {
      TimedPolicy timed(*policy);
      Sim sim(*r.cluster, *r.workload, timed, opt, r.seed, weights);
      SimResult res = sim.run();
      timed.report(res);
      return res;
    }
    Sim sim(*r.cluster, *r.workload, *policy, opt, r.seed, weights);
    return sim.run();
  };
  schedlab::register_engine(std::move(e));
}

// ---------------------------------------------------------------------------------------------

Sim::Sim(const Cluster& cluster, const Workload& workload, Policy& policy, const Options& options, uint64_t seed,
         const std::vector<double>& user_weights)
    : cl_(cluster), wl_(workload), policy_(policy), opt_(options), rng_(seed, 7) {
  const int32_t n = n_nodes();
  if (n == 0) throw std::invalid_argument("cluster has no nodes");
  if (wl_.has_dependencies())
    throw std::invalid_argument("workload field 'parents': the share engine does not run jobs with dependencies "
                                "(DAGs of jobs); use the mapreduce engine");
  const size_t nj = wl_.n_jobs(), nt = wl_.n_tasks();

  // performance per node (and per user)
  auto per_node = [&](const std::vector<double>& by_type, const std::string& what) {
    std::vector<double> p(n);
    for (int32_t m = 0; m < n; ++m) {
      const int32_t k = cl_.node_type[m];
      if (k < 0 || static_cast<size_t>(k) >= by_type.size())
        throw std::invalid_argument(what + " has " + std::to_string(by_type.size()) + " entries but node " +
                                    std::to_string(m) + " has node_type " + std::to_string(k));
      p[m] = by_type[k];
    }
    return p;
  };
  perf_ = opt_.performance.empty() ? cl_.speed : per_node(opt_.performance, "simulate option 'performance'");
  int32_t nu = 0;
  for (int32_t u : wl_.user) nu = std::max(nu, u + 1);
  users_.assign(nu, UserState{});
  if (!opt_.user_performance.empty()) {
    user_perf_.assign(nu, {});
    for (size_t u = 0; u < opt_.user_performance.size() && u < size_t(nu); ++u)
      if (!opt_.user_performance[u].empty())
        user_perf_[u] = per_node(opt_.user_performance[u], "simulate option 'user_performance' (user " + std::to_string(u) + ")");
  }

  free_vc_ = cl_.vcores;
  free_mem_ = cl_.memory;
  slot_bits_.assign(n, 0);
  for (int32_t m = 0; m < n; ++m) { total_vcores_ += cl_.vcores[m]; total_memory_ += cl_.memory[m]; }

  // constraints as one bitset per job
  if (wl_.has_constraints()) {
    elig_words_ = (static_cast<size_t>(n) + 63) / 64;
    elig_bits_.assign(nj * elig_words_, 0);
    elig_any_.assign(nj, 0);
    for (size_t j = 0; j < nj; ++j) {
      if (wl_.eligible_begin[j] == wl_.eligible_begin[j + 1]) { elig_any_[j] = 1; continue; }
      for (int64_t k = wl_.eligible_begin[j]; k < wl_.eligible_begin[j + 1]; ++k) {
        const int32_t m = wl_.eligible_node[k];
        elig_bits_[j * elig_words_ + (m >> 6)] |= 1ULL << (m & 63);
      }
    }
  }

  // weights: per user, from the parameter or else the user's first job
  for (auto& u : users_) u.weight = kNaN;
  for (size_t j = 0; j < nj; ++j)
    if (std::isnan(users_[wl_.user[j]].weight)) users_[wl_.user[j]].weight = wl_.weight[j];
  for (int32_t u = 0; u < nu; ++u) {
    if (!user_weights.empty() && !std::isnan(user_weights[u])) users_[u].weight = user_weights[u];
    if (std::isnan(users_[u].weight)) users_[u].weight = 1.0;
  }

  // share denominators; every task must fit on some eligible node
  h_tasks_.assign(nj, 0);
  h_prog_.assign(nj, 0);
  job_user_.resize(nj);
  next_task_.resize(nj);
  job_left_.resize(nj);
  job_start_.assign(nj, kNaN);
  job_finish_.assign(nj, kNaN);
  for (size_t j = 0; j < nj; ++j) {
    const int32_t u = wl_.user[j];
    job_user_[j] = u;
    const int64_t t0 = wl_.task_begin[j], t1 = wl_.task_begin[j + 1];
    next_task_[j] = t0;
    job_left_[j] = static_cast<int32_t>(t1 - t0);
    const double dv = wl_.vcores[t0], dm = wl_.memory[t0];
    if (!(dv > 0) && !(dm > 0))
      throw std::invalid_argument("job field 'vcores/memory' of job " + std::to_string(j) +
                                  ": a task must demand a positive amount of some resource");
    double maxv = 0, maxm = 0;
    for (int64_t t = t0; t < t1; ++t) { maxv = std::max(maxv, wl_.vcores[t]); maxm = std::max(maxm, wl_.memory[t]); }
    bool holds_max = false;
    for (int32_t m = 0; m < n; ++m) {
      double h = INFINITY;
      if (dv > 0) h = std::min(h, std::floor(cl_.vcores[m] / dv + 1e-9));
      if (dm > 0) h = std::min(h, std::floor(cl_.memory[m] / dm + 1e-9));
      h_tasks_[j] += h;
      h_prog_[j] += h * performance(u, m);
      if (eligible(int32_t(j), m) && cl_.vcores[m] + 1e-9 >= maxv && cl_.memory[m] + 1e-9 >= maxm) holds_max = true;
    }
    if (!holds_max) {
      for (int64_t t = t0; t < t1; ++t) {
        bool ok = false;
        for (int32_t m = 0; m < n && !ok; ++m)
          ok = eligible(int32_t(j), m) && cl_.vcores[m] + 1e-9 >= wl_.vcores[t] && cl_.memory[m] + 1e-9 >= wl_.memory[t];
        if (!ok)
          throw std::invalid_argument("task " + std::to_string(t) + " of job " + std::to_string(j) +
                                      " can never run: none of the job's eligible nodes can hold its <vcores, memory> demand");
      }
    }
    if (!(h_tasks_[j] > 0))
      throw std::invalid_argument("job " + std::to_string(j) + ": no node can hold its task demand (sum of H is 0)");
  }
  task_attempt_.assign(nt, -1);
  unfinished_ = static_cast<int64_t>(nj);
  cand_.reserve(n);
  order_.reserve(nu);
  order_user_.reserve(nu);
  active_users_.reserve(nu);
  att_task_.reserve(nt); att_node_.reserve(nt); att_slot_.reserve(nt);
  att_start_.reserve(nt); att_finish_.reserve(nt); att_status_.reserve(nt); att_perf_.reserve(nt);
  shares_ = TimeSeries::with_columns({"time", "user", "progress_share", "task_share", "dominant_share", "running", "pending"});
  dispersion_ = TimeSeries::with_columns({"time", "backlogged_users", "jain", "max_min"});
}

double Sim::dominant_share(int32_t u) const {
  const UserState& s = users_[u];
  double d = 0;
  if (total_vcores_ > 0) d = std::max(d, s.vcores / total_vcores_);
  if (total_memory_ > 0) d = std::max(d, s.memory / total_memory_);
  return d / s.weight;
}

void Sim::submit(int32_t j) {
  UserState& u = users_[job_user_[j]];
  const int64_t n = wl_.task_begin[j + 1] - wl_.task_begin[j];
  if (u.pending == 0) active_users_.push_back(job_user_[j]);
  u.pending += n;
  u.jobs.push_back(j);
}

void Sim::try_free_nodes() {
  // try every node with free resources [§7.4 step 4]
  cand_.clear();
  for (int32_t m = 0; m < n_nodes(); ++m)
    if (free_vc_[m] > 1e-9 || free_mem_[m] > 1e-9) cand_.push_back(m);
  fill(static_cast<int32_t>(cand_.size()));
}

int32_t Sim::pick_node(int32_t user, int32_t job, int32_t task, int32_t n_cand) const {
  const Placement rule = policy_.placement();
  int32_t best = -1;
  double best_score = 0;
  for (int32_t k = 0; k < n_cand; ++k) {
    const int32_t m = cand_[k];
    if (!eligible(job, m) || !fits(task, m)) continue;
    double score = 0;  // lower is better; ties -> lowest id
    switch (rule) {
      case Placement::FirstFit: score = 0; break;
      case Placement::BestFit: {
        score = 0;
        if (cl_.vcores[m] > 0) score += (free_vc_[m] - wl_.vcores[task]) / cl_.vcores[m];
        if (cl_.memory[m] > 0) score += (free_mem_[m] - wl_.memory[task]) / cl_.memory[m];
        break;
      }
      case Placement::Fastest: score = -performance(user, m); break;
    }
    if (best < 0 || score < best_score - 1e-12 || (score <= best_score + 1e-12 && m < best)) {
      best = m;
      best_score = score;
    }
  }
  return best;
}

void Sim::fill(int32_t n_cand) {
  if (active_users_.empty() || n_cand == 0) return;
  const bool random_ties = policy_.random_ties();
  // users in share order; shares are quantized so that float noise from adding and removing
  // terms cannot reorder users whose shares are equal
  auto build_order = [&] {
    order_.clear();
    order_user_.clear();
    for (int32_t u : active_users_) {
      const double s = std::nearbyint(policy_.share(*this, u) * 1e9);
      order_.emplace_back(s, random_ties ? rng_.next_u64() : static_cast<uint64_t>(u));
      order_user_.push_back(u);
    }
  };
  // blocked users (no fitting task in this pass) are removed from active_ for the pass: they
  // are collected here and restored at the end
  size_t n_blocked = 0;
  for (;;) {
    if (active_users_.size() == n_blocked) break;
    build_order();
    // the smallest (share, key) among not-blocked users; blocked ones sit at the back of active_
    const size_t live = active_users_.size() - n_blocked;
    int32_t chosen_i = -1;
    // selection by repeated minimum: usually the first user fits, so this beats a full sort
    for (;;) {
      int32_t best = -1;
      for (size_t i = 0; i < live; ++i) {
        if (order_user_[i] < 0) continue;
        if (best < 0 || order_[i] < order_[best]) best = static_cast<int32_t>(i);
      }
      if (best < 0) break;
      const int32_t u = order_user_[best];
      bool launched = false;
      for (int32_t j : users_[u].jobs) {
        const int32_t t = static_cast<int32_t>(next_task_[j]);
        const int32_t m = pick_node(u, j, t, n_cand);
        if (m >= 0) {
          launch(j, t, m);
          launched = true;
          break;
        }
      }
      if (launched) { chosen_i = best; break; }
      // u cannot be served in this pass: move it to the blocked tail of active_
      order_user_[best] = -1;
      const size_t pos = std::find(active_users_.begin(), active_users_.end() - n_blocked, u) - active_users_.begin();
      ++n_blocked;
      std::swap(active_users_[pos], active_users_[active_users_.size() - n_blocked]);
    }
    if (chosen_i < 0) break;
    // drop full candidate nodes
    for (int32_t k = 0; k < n_cand;) {
      const int32_t m = cand_[k];
      if (free_vc_[m] <= 1e-9 && free_mem_[m] <= 1e-9) cand_[k] = cand_[--n_cand];
      else ++k;
    }
    if (n_cand == 0) break;
  }
}

void Sim::launch(int32_t j, int32_t t, int32_t m) {
  const int32_t u = job_user_[j];
  UserState& us = users_[u];
  const double p = performance(u, m);
  free_vc_[m] -= wl_.vcores[t];
  free_mem_[m] -= wl_.memory[t];
  us.running++;
  us.pending--;
  us.task_share += 1.0 / (us.weight * h_tasks_[j]);
  us.progress_share += p / (us.weight * h_prog_[j]);
  us.vcores += wl_.vcores[t];
  us.memory += wl_.memory[t];
  if (++next_task_[j] == wl_.task_begin[j + 1]) us.jobs.erase(std::find(us.jobs.begin(), us.jobs.end(), j));
  if (us.pending == 0) active_users_.erase(std::find(active_users_.begin(), active_users_.end(), u));
  if (std::isnan(job_start_[j])) job_start_[j] = now_;
  int32_t pos = -1;
  if (~slot_bits_[m]) {
    pos = __builtin_ctzll(~slot_bits_[m]);
    slot_bits_[m] |= 1ULL << pos;
  }
  const double dur = opt_.scaling == Scaling::Performance ? wl_.work[t] / p : wl_.work[t];
  task_attempt_[t] = static_cast<int32_t>(att_task_.size());
  att_task_.push_back(t);
  att_node_.push_back(m);
  att_slot_.push_back(pos);
  att_start_.push_back(now_);
  att_finish_.push_back(now_ + dur);
  att_status_.push_back(kRunning);
  att_perf_.push_back(p);
  q_.push(now_ + dur, kTaskEnd, 0, static_cast<uint64_t>(t));
}

void Sim::task_end(int32_t t) {
  const int32_t a = task_attempt_[t];
  const int32_t m = att_node_[a], j = wl_.task_job[t], u = job_user_[j];
  UserState& us = users_[u];
  att_status_[a] = kSucceeded;
  free_vc_[m] += wl_.vcores[t];
  free_mem_[m] += wl_.memory[t];
  if (att_slot_[a] >= 0) slot_bits_[m] &= ~(1ULL << att_slot_[a]);
  us.running--;
  us.task_share -= 1.0 / (us.weight * h_tasks_[j]);
  us.progress_share -= att_perf_[a] / (us.weight * h_prog_[j]);
  us.vcores -= wl_.vcores[t];
  us.memory -= wl_.memory[t];
  if (us.running == 0) {  // reset accumulated rounding
    us.task_share = us.progress_share = us.vcores = us.memory = 0;
  }
  if (--job_left_[j] == 0) {
    job_finish_[j] = now_;
    --unfinished_;
  }
  cand_.clear();
  cand_.push_back(m);
  fill(1);
}

void Sim::sample(size_t next_job) {
  double s1 = 0, s2 = 0, mx = 0, mn = INFINITY;
  int32_t backlogged = 0;
  bool active = false;
  for (int32_t u = 0; u < n_users(); ++u) {
    const UserState& s = users_[u];
    if (s.running == 0 && s.pending == 0) continue;
    active = true;
    shares_.add_row({now_, double(u), s.progress_share, s.task_share, dominant_share(u), double(s.running), double(s.pending)});
    if (s.pending > 0) {
      ++backlogged;
      const double x = s.progress_share;
      s1 += x;
      s2 += x * x;
      mx = std::max(mx, x);
      mn = std::min(mn, x);
    }
  }
  double jain = kNaN, ratio = kNaN;
  if (backlogged >= 2) {
    jain = s2 > 0 ? s1 * s1 / (backlogged * s2) : 1.0;
    jain_sum_ += jain;
    jain_min_ = std::min(jain_min_, jain);
    ++disp_samples_;
    if (mn > 0) {
      ratio = mx / mn;
      maxmin_sum_ += ratio;
      ++maxmin_samples_;
    }
  }
  dispersion_.add_row({now_, double(backlogged), jain, ratio});
  double next = now_ + opt_.sample_interval;
  // An idle span: no user has a task running or waiting and the queue holds nothing but the next
  // arrival, so nothing changes until it. The samples that fall before it are written here, each
  // the row its event would have written (no share rows, an empty dispersion row, at the same
  // time computed the same way), without going through the queue; one at the arrival's time fires
  // after it (pushed earlier, as before).
  if (!active && next_job < wl_.n_jobs() && q_.size() == 1) {
    const double arrival = wl_.submit_time[next_job];
    const double now = now_;
    uint64_t written = 0;
    while (next < arrival && next <= opt_.time_limit) {
      now_ = next;
      dispersion_.add_row({now_, 0.0, kNaN, kNaN});
      next = now_ + opt_.sample_interval;
      poll_interrupt(events_ + ++written, now_);
    }
    idle_samples_ += double(written);
    now_ = now;
  }
  q_.push(next, kSample);
}

SimResult Sim::run() {
  policy_.init(*this);
  const size_t nj = wl_.n_jobs();
  size_t next_job = 0;
  if (nj > 0) q_.push(wl_.submit_time[0], kArrival);
  if (opt_.sample_interval > 0) q_.push(0, kSample);
  while (!q_.empty() && unfinished_ > 0) {
    const Event e = q_.pop();
    if (e.time > opt_.time_limit) { now_ = opt_.time_limit; break; }
    now_ = e.time;
    ++events_;
    poll_interrupt(events_, now_);
    switch (e.kind) {
      case kArrival: {
        // jobs arriving at the same instant are submitted together, then served in one pass
        do submit(static_cast<int32_t>(next_job++));
        while (next_job < nj && wl_.submit_time[next_job] == now_);
        if (next_job < nj) q_.push(wl_.submit_time[next_job], kArrival);
        try_free_nodes();
        break;
      }
      case kTaskEnd: task_end(static_cast<int32_t>(e.b)); break;
      case kSample: sample(next_job); break;
    }
  }
  if (opt_.sample_interval > 0 && unfinished_ == 0) sample(nj);  // the final (empty) state

  SimResult r;
  r.job_start = job_start_;
  r.job_finish = job_finish_;
  const size_t na = att_task_.size();
  r.att_task = att_task_;
  r.att_node = att_node_;
  r.att_start = att_start_;
  r.att_finish.resize(na);
  for (size_t i = 0; i < na; ++i) r.att_finish[i] = att_status_[i] == kRunning ? kNaN : att_finish_[i];
  r.att_status = att_status_;
  r.att_locality.assign(na, kNoLocality);
  r.att_slot = att_slot_;
  r.att_speculative.assign(na, 0);
  r.att_extra["performance"] = att_perf_;
  r.counters["tasks_launched"] = double(na);
  // busy vcore-seconds (and memory) over capacity x the span from the first arrival to the end
  double busy_vc = 0, busy_mem = 0;
  for (size_t i = 0; i < na; ++i) {
    const double end = att_status_[i] == kRunning ? now_ : att_finish_[i];
    busy_vc += wl_.vcores[att_task_[i]] * (end - att_start_[i]);
    busy_mem += wl_.memory[att_task_[i]] * (end - att_start_[i]);
  }
  const double span = nj > 0 ? now_ - wl_.submit_time[0] : 0;
  r.counters["vcore_utilization"] = span > 0 && total_vcores_ > 0 ? busy_vc / (total_vcores_ * span) : kNaN;
  r.counters["memory_utilization"] = span > 0 && total_memory_ > 0 ? busy_mem / (total_memory_ * span) : kNaN;
  r.counters["users"] = double(n_users());
  r.counters["progress_share_jain"] = disp_samples_ ? jain_sum_ / disp_samples_ : kNaN;
  r.counters["progress_share_jain_min"] = disp_samples_ ? jain_min_ : kNaN;
  r.counters["progress_share_max_min"] = maxmin_samples_ ? maxmin_sum_ / maxmin_samples_ : kNaN;
  r.counters["dispersion_samples"] = double(disp_samples_);
  if (idle_samples_ > 0) r.counters["idle_samples"] = idle_samples_;
  if (opt_.sample_interval > 0) {
    r.series["shares"] = std::move(shares_);
    r.series["dispersion"] = std::move(dispersion_);
  }
  r.events = events_;
  r.end_time = now_;
  return r;
}

}  // namespace schedlab::share

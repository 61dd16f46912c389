// YARN containers (Wang dissertation §2.3 and the OMO comparison §4.4.3.3; spec Wang 2017,
// §1.4, §3.6): the `yarn` scheduler. Nodes offer <vcores, memory>; each task asks for its own
// <vcores, memory> container (the workload's vcores / memory columns; see
// schedlab.mapreduce.with_containers); there are no typed slots.
//
// The MapReduce ApplicationMaster of each job requests all its maps at once and ramps its
// reduce requests up as Hadoop 2's RMContainerAllocator.scheduleReduces does [E, spec §1.4]:
// every AM heartbeat (am_heartbeat, 1 s), once the completed-map fraction reaches slowstart
// (the engine option, 0.05), with M = completed-map fraction and L = headroom + memory of the
// job's running maps and reduces,
//   ideal reduce limit = min(M L, maxReduceRampupLimit L), ideal map limit = L - that;
//   if the job's requested+running maps use less than the ideal map limit, the rest goes to
//   reduces; reduces are requested (or un-requested) up to that limit; once every map has been
//   assigned, all remaining reduces are requested.
// Headroom = the cluster's free memory (one queue, one user). Within a job, requested reduces are
// served before maps (reduce priority 10 < map priority 20, as in MapReduce on YARN).
//
// The ResourceManager, at each NodeManager heartbeat, offers the node's free resources to the
// jobs in order: "capacity" (default, Hadoop 2.6's CapacityScheduler with its single default
// queue: applications in submission order) or "fair" (FairScheduler: the job holding the least
// memory first). A container is granted when it fits both vcores and memory (the spec's reading
// that each node ran at most 8 vcores / 2 = 4 tasks); a memory-only calculator is not modelled.
// Not modelled either: AM containers, reduce preemption (a cluster-wide cap on reduces of jobs
// still mapping, early_reduce_limit, prevents the deadlock preemption resolves), locality delays.
#include <algorithm>
#include <cmath>

#include "mr_common.h"

namespace schedlab {
namespace mr {
namespace {

constexpr uint64_t kAmTag = 0x7A'0000'0000'0001ULL;

class YarnScheduler : public Scheduler {
 public:
  // with nothing pending it launches nothing; the ApplicationMaster heartbeats are timers
  bool quiet_without_pending() const override { return true; }
  explicit YarnScheduler(const Params& p)
      : fair_(p.choice("ordering") == "fair"),
        rampup_limit_(p.number("max_reduce_rampup_limit")),
        am_interval_(p.number("am_heartbeat")),
        assign_multiple_(p.boolean("assign_multiple")),
        early_limit_(p.number("early_reduce_limit")) {}

  SlotModel slot_model() const override { return SlotModel::Containers; }

  void init(Sim& sim) override {
    const auto& wl = sim.workload();
    const size_t nj = wl.n_jobs();
    // inputs the scheduler could never honour are refused here, not after stall_limit seconds
    if (sim.options().stall_limit > 0 && am_interval_ >= sim.options().stall_limit)
      throw std::invalid_argument("yarn: parameter 'am_heartbeat' (" + std::to_string(am_interval_) +
                                  " s) must be shorter than the simulate option 'stall_limit' (" +
                                  std::to_string(sim.options().stall_limit) + " s): reduces ramp up only on AM heartbeats");
    double max_vcores = 0, max_mem = 0;
    for (int32_t i = 0; i < sim.n_nodes(); ++i) {
      max_vcores = std::max(max_vcores, sim.cluster().vcores[i]);
      max_mem = std::max(max_mem, sim.cluster().memory[i]);
    }
    for (size_t t = 0; t < wl.n_tasks(); ++t)
      if (wl.vcores[t] > max_vcores || wl.memory[t] > max_mem)
        throw std::invalid_argument("yarn: task " + std::to_string(t) + " of job " + std::to_string(wl.task_job[t]) +
                                    " asks for a container of " + std::to_string(wl.vcores[t]) + " vcores and " +
                                    std::to_string(wl.memory[t]) + " MB, but the largest node has " +
                                    std::to_string(max_vcores) + " vcores and " + std::to_string(max_mem) +
                                    " MB: expected containers that fit a node");
    // the smallest container any task asks for: a node with less room than that launches nothing
    // more at this heartbeat, whichever job is asked (fits() compares each task's ask alike)
    min_vcores_ = INFINITY;
    min_mem_ = INFINITY;
    for (size_t t = 0; t < wl.n_tasks(); ++t) {
      min_vcores_ = std::min(min_vcores_, wl.vcores[t]);
      min_mem_ = std::min(min_mem_, wl.memory[t]);
    }
    // the cluster's capacity, for early_room() (the nodes' configured sizes: a node that goes down
    // keeps counting, as before)
    cap_mem_ = 0;
    cap_vcores_ = 0;
    for (int32_t i = 0; i < sim.n_nodes(); ++i) {
      cap_mem_ += sim.cluster().memory[i];
      cap_vcores_ += sim.cluster().vcores[i];
    }
    requested_.assign(nj, 0);
    rampup_started_.assign(nj, 0);
    red_mem_.assign(nj, 0);
    red_vcores_.assign(nj, 0);
    map_mem_.assign(nj, 0);
    for (size_t j = 0; j < nj; ++j) {
      const int64_t b = wl.task_begin[j], m = wl.n_maps[j], e = wl.task_begin[j + 1];
      if (m > 0) map_mem_[j] = wl.memory[b];
      if (e > b + m) {
        red_mem_[j] = wl.memory[b + m];
        red_vcores_[j] = wl.vcores[b + m];
      }
    }
    sim.set_timer(0, kAmTag);
  }

  void on_job_submitted(Sim& sim, int32_t job) override { ramp(sim, job, free_memory(sim)); }

  void on_timer(Sim& sim, uint64_t tag) override {
    if (tag != kAmTag) return;
    const double headroom = free_memory(sim);
    for (int32_t j : sim.active_jobs()) ramp(sim, j, headroom);
    sim.set_timer(sim.now() + am_interval_, kAmTag);
  }

  void on_heartbeat(Sim& sim, int32_t node) override {
    order_.assign(sim.active_jobs().begin(), sim.active_jobs().end());
    if (fair_)
      std::stable_sort(order_.begin(), order_.end(), [&](int32_t a, int32_t b) { return used_mem(sim, a) < used_mem(sim, b); });
    bool room = room_for_any(sim, node);
    early_room_now_ = -1;  // (not known yet this heartbeat)
    for (int32_t j : order_) {
      // A job whose lookups would launch nothing (the node has no room for the smallest container,
      // or the job has nothing to ask for) is not looked up; its re-queued lists are left as the
      // lookups would leave them (see Sim::drop_stale_requeued).
      const JobState& js = sim.job(j);
      if (!room || (js.pending[kMap] == 0 && (requested_[j] == 0 || js.pending[kReduce] == 0))) {
        if (!room && !sim.any_requeued()) break;  // (nor for any job after it)
        if (!assign_multiple_ && assigned_now_ > 0) continue;  // (no lookup below either)
        if (requested_[j] > 0 && sim.has_requeued(j, kReduce) && (js_maps_done(sim, j) || early_room_cached(sim)))
          sim.drop_stale_requeued(j, kReduce);
        sim.drop_stale_requeued(j, kMap);
        continue;
      }
      for (;;) {
        if (!assign_multiple_ && assigned_now_ > 0) break;
        int32_t t = -1;
        bool reduce = false;
        if (requested_[j] > 0 && (js_maps_done(sim, j) || early_room_cached(sim))) {
          t = sim.find_reduce(j);
          reduce = t >= 0 && sim.fits(t, node, kReduce);
          if (!reduce) t = -1;
        }
        if (t < 0) {
          t = sim.find_map(j, node, kRemote);
          if (t >= 0 && !sim.fits(t, node, kMap)) t = -1;
        }
        if (t < 0) break;
        sim.launch(t, node, reduce ? kReduce : kMap);
        if (reduce) --requested_[j];
        ++assigned_now_;
        room = room_for_any(sim, node);
        early_room_now_ = -1;  // (a reduce of a job still mapping may have started)
      }
    }
    assigned_now_ = 0;
  }

  void finish(Sim&, SimResult& r) override { r.counters["yarn_reduce_rampups"] = double(rampups_); }

 private:
  // Whether the node could still take the smallest container of the workload (a down node takes none).
  bool room_for_any(const Sim& sim, int32_t node) const {
    return sim.node_up(node) && min_vcores_ <= sim.free_vcores(node) + 1e-9 && min_mem_ <= sim.free_memory(node) + 1e-9;
  }
  bool js_maps_done(const Sim& sim, int32_t j) const { return sim.job(j).done[kMap] == sim.workload().n_maps[j]; }
  // one more early reduce keeps reduces of jobs still mapping within early_limit_ of the
  // cluster's memory and of its vcores (a container needs both: either can run out first)
  bool early_room(const Sim& sim) const {
    double held_mem = 0, held_vcores = 0;
    for (int32_t j : sim.active_jobs()) {
      if (js_maps_done(sim, j)) continue;
      held_mem += sim.job(j).running_attempts[kReduce] * red_mem_[j];
      held_vcores += sim.job(j).running_attempts[kReduce] * red_vcores_[j];
    }
    return held_mem < early_limit_ * cap_mem_ && held_vcores < early_limit_ * cap_vcores_;
  }

  // early_room() as of the last launch: it reads the running reduces, which only a launch changes
  // within a heartbeat
  bool early_room_cached(const Sim& sim) {
    if (early_room_now_ < 0) early_room_now_ = early_room(sim) ? 1 : 0;
    return early_room_now_ == 1;
  }

  // memory held by a job's running containers (its maps, and its reduces, ask alike)
  double used_mem(const Sim& sim, int32_t j) const {
    return sim.job(j).running_attempts[kMap] * map_mem_[j] + sim.job(j).running_attempts[kReduce] * red_mem_[j];
  }
  static double free_memory(const Sim& sim) {
    double free = 0;
    for (int32_t i = 0; i < sim.n_nodes(); ++i) free += sim.free_memory(i);
    return free;
  }

  // RMContainerAllocator.scheduleReduces for one job.
  void ramp(Sim& sim, int32_t j, double headroom) {
    const auto& wl = sim.workload();
    const JobState& js = sim.job(j);
    const int32_t unrequested = js.pending[kReduce] - requested_[j];
    if (js.pending[kReduce] == 0) return;
    const double done_frac = wl.n_maps[j] > 0 ? double(js.done[kMap]) / wl.n_maps[j] : 1.0;
    if (!rampup_started_[j]) {
      if (!sim.reduces_allowed(j)) return;
      rampup_started_[j] = 1;
    }
    if (js.pending[kMap] == 0) {  // every map assigned: request all reduces
      requested_[j] += unrequested;
      return;
    }
    const double rm = red_mem_[j] > 0 ? red_mem_[j] : 1.0;
    const double assigned_maps = js.running_attempts[kMap] * map_mem_[j];
    const double assigned_reds = js.running_attempts[kReduce] * red_mem_[j];
    const double limit = headroom + assigned_maps + assigned_reds;
    const double ideal_red = std::min(done_frac * limit, rampup_limit_ * limit);
    const double ideal_map = limit - ideal_red;
    const double net_map = js.pending[kMap] * map_mem_[j] + assigned_maps;
    const double net_red = requested_[j] * red_mem_[j] + assigned_reds;
    const double final_red = ideal_map > net_map ? ideal_red + (ideal_map - net_map) : ideal_red;
    const int64_t ramp = static_cast<int64_t>(std::floor((final_red - net_red) / rm + 1e-9));
    if (ramp > 0) {
      const int32_t n = static_cast<int32_t>(std::min<int64_t>(ramp, unrequested));
      requested_[j] += n;
      if (n > 0) ++rampups_;
    } else if (ramp < 0) {
      requested_[j] -= static_cast<int32_t>(std::min<int64_t>(-ramp, requested_[j]));
    }
  }

  bool fair_;
  double rampup_limit_, am_interval_;
  bool assign_multiple_;
  double early_limit_;
  std::vector<int32_t> requested_;
  std::vector<uint8_t> rampup_started_;
  std::vector<double> red_mem_, red_vcores_, map_mem_;
  std::vector<int32_t> order_;
  double min_vcores_ = 0, min_mem_ = 0;  // the smallest ask of any task
  double cap_mem_ = 0, cap_vcores_ = 0;  // the cluster's configured memory and vcores
  int64_t assigned_now_ = 0;
  int8_t early_room_now_ = -1;  // early_room_cached(): -1 unknown, else its answer
  int64_t rampups_ = 0;
};

}  // namespace

void register_yarn_schedulers() {
  register_scheduler(
      {"yarn", "", "Hadoop 2 YARN with MapReduce's reduce ramp-up [Wang 2017, §2.3, §4.4.3.3]",
       "<vcores, memory> containers, no typed slots; reduce requests ramped by slowstart and maxReduceRampupLimit",
       {ParamSpec::choice("ordering", "capacity", {"capacity", "fair"},
                          "ResourceManager order over jobs: CapacityScheduler's single queue in submission order (default) "
                          "or FairScheduler's least memory held first"),
        ParamSpec::number("max_reduce_rampup_limit", 0.5, 0, 1,
                          "yarn.app.mapreduce.am.job.reduce.rampup.limit: largest fraction of the job's memory limit reduces "
                          "may hold while maps are pending"),
        ParamSpec::number("am_heartbeat", 1.0, 1e-3, 86400, "seconds between ApplicationMaster heartbeats (reduce ramp-up decisions)"),
        ParamSpec::boolean("assign_multiple", true, "grant several containers per NodeManager heartbeat"),
        ParamSpec::number("early_reduce_limit", 0.5, 0, 0.99,
                          "cluster-wide cap on the memory and vcore fractions held by reduces of jobs still in their map phase; stands in "
                          "for YARN's reduce preemption, which this model lacks (without either, reduces can starve maps forever)")}},
      [](const Params& p) { return std::make_unique<YarnScheduler>(p); });
}

}  // namespace mr
}  // namespace schedlab

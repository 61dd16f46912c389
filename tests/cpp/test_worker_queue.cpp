// The worker engine's queue arrays: each worker's queue is a linked list of probes and also an
// array in queue order (Eagle's SRPT pick scans it), where a removed probe leaves a hole, holes
// at the front are skipped, and an append compacts the array once holes are more than 8 and more
// than half of it. Checked here after every append and removal: the array's live entries are
// the list's probes in order, each probe knows its entry, and compaction keeps them.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "schedlab/registry.h"
#include "schedlab/worker.h"
#include "worker_helpers.h"

using namespace schedlab;
using namespace schedlab::worker;

namespace {

// The array of worker w against its list; returns the number of holes between its first and
// last entries (the first entry is never a hole).
int check_queue(Sim& sim, int32_t w) {
  std::vector<int32_t> listed;
  for (int32_t p = sim.worker(w).head; p >= 0; p = sim.probe(p).next) listed.push_back(p);
  EXPECT_EQ(static_cast<int32_t>(listed.size()), sim.worker(w).qlen);
  std::vector<int32_t> live;
  const QueueEntry* begin = sim.queue_begin(w);
  const QueueEntry* end = sim.queue_end(w);
  if (begin != end) EXPECT_TRUE(begin->live()) << "holes at the front are skipped";
  int holes = 0;
  for (const QueueEntry* e = begin; e != end; ++e) {
    if (!e->live()) {
      ++holes;
      continue;
    }
    const int32_t p = e->probe();
    live.push_back(p);
    const Probe& pr = sim.probe(p);
    EXPECT_EQ(e->job, pr.job);
    EXPECT_EQ(e->is_long(), (pr.flags & kProbeLong) != 0);
    // the probe's position is its entry's index in the array
    EXPECT_EQ(pr.pos - sim.probe(begin->probe()).pos, e - begin) << "probe " << p;
  }
  EXPECT_EQ(live, listed);
  return holes;
}

// One worker; job 0 (one 100 s task) takes the slot at 0, job 1 queues 30 probes at 1. Then, by
// timers: at 2, probes 5..24 of the queue are dropped (20 holes in the middle); at 2.5 the head
// is dropped (the array's start moves past it); at 3, job 1 gets 21 new probes, whose first
// append compacts the array. Every probe serves a task (late binding), so all tasks run once.
class QueueScript : public Scheduler {
 public:
  void init(Sim& sim) override {
    sim.set_timer(2.0, 0, 0);
    sim.set_timer(2.5, 0, 1);
    sim.set_timer(3.0, 0, 2);
  }
  void on_job_arrival(Sim& sim, int32_t job) override {
    std::vector<int32_t> t(static_cast<size_t>(sim.n_tasks(job)), 0);
    sim.send_probes(job, t.data(), t.size(), 0.0);
  }
  void on_probe_arrival(Sim& sim, int32_t w, int32_t) override {
    const int holes = check_queue(sim, w);
    ++appends;
    if (expect_compaction) {
      EXPECT_EQ(holes, 0) << "the first append after the drops compacts the array";
      EXPECT_EQ(sim.queue_end(w) - sim.queue_begin(w), sim.worker(w).qlen);
      expect_compaction = false;
      compacted = true;
    }
  }
  int32_t pick_probe(Sim& sim, int32_t w, bool short_only) override {
    check_queue(sim, w);
    return Scheduler::pick_probe(sim, w, short_only);
  }
  void on_timer(Sim& sim, uint32_t, uint64_t tag) override {
    if (tag == 0) {
      std::vector<int32_t> order;
      for (int32_t p = sim.worker(0).head; p >= 0; p = sim.probe(p).next) order.push_back(p);
      ASSERT_EQ(order.size(), 30u);
      for (size_t k = 5; k < 25; ++k) sim.drop_probe(0, order[k]);
      EXPECT_EQ(check_queue(sim, 0), 20);
      EXPECT_EQ(sim.queue_end(0) - sim.queue_begin(0), 30);
    } else if (tag == 1) {
      sim.drop_probe(0, sim.worker(0).head);
      EXPECT_EQ(check_queue(sim, 0), 20);
      EXPECT_EQ(sim.queue_end(0) - sim.queue_begin(0), 29) << "the hole left at the head is skipped";
      EXPECT_EQ(sim.worker(0).qlen, 9);
    } else {
      expect_compaction = true;
      std::vector<int32_t> t(21, 0);
      sim.send_probes(1, t.data(), t.size(), 0.0);
    }
  }
  int appends = 0;
  bool expect_compaction = false, compacted = false;
};

}  // namespace

TEST(WorkerQueue, HolesAndCompactionKeepTheQueueOrder) {
  Workload w = worker_test::make_workload({{0.0, {100.0}}, {1.0, std::vector<double>(30, 1.0)}});
  Cluster c = Cluster::uniform(1, 1, 1, 0);
  QueueScript s;
  Options o;
  o.network_delay = 0;  // requests and replies take no time: the tasks run back to back
  Sim sim(c, w, s, o, 0);
  SimResult r = sim.run();
  EXPECT_TRUE(s.compacted);
  EXPECT_EQ(s.appends, 1 + 30 + 21);
  std::vector<int> ok(w.n_tasks(), 0);
  for (size_t i = 0; i < r.att_task.size(); ++i)
    if (r.att_status[i] == kSucceeded) ok[r.att_task[i]]++;
  for (int k : ok) EXPECT_EQ(k, 1);
  EXPECT_DOUBLE_EQ(r.job_finish[1], 100.0 + 30 * 1.0);  // one worker, no delay: back to back
}

// Many probes dropped and added at random on a few workers: the arrays always match the lists.
class RandomDrops : public Scheduler {
 public:
  void init(Sim& sim) override {
    for (int k = 1; k <= 400; ++k) sim.set_timer(0.25 * k, 0, static_cast<uint64_t>(k));
  }
  void on_job_arrival(Sim& sim, int32_t job) override {
    std::vector<int32_t> t;
    for (int32_t k = 0; k < sim.n_tasks(job); ++k) t.push_back(static_cast<int32_t>(sim.rng().below(3)));
    sim.send_probes(job, t.data(), t.size(), 0.0);
  }
  void on_probe_arrival(Sim& sim, int32_t w, int32_t) override { check_queue(sim, w); }
  int32_t pick_probe(Sim& sim, int32_t w, bool short_only) override {
    check_queue(sim, w);
    return Scheduler::pick_probe(sim, w, short_only);
  }
  void on_timer(Sim& sim, uint32_t, uint64_t) override {
    const int32_t w = static_cast<int32_t>(sim.rng().below(3));
    std::vector<std::pair<int32_t, int32_t>> dropped;  // (probe's job, worker)
    for (int32_t p = sim.worker(w).head; p >= 0;) {
      const int32_t next = sim.probe(p).next;
      if (sim.rng().uniform() < 0.6) {
        dropped.push_back({sim.probe(p).job, w});
        sim.drop_probe(w, p);
        max_holes = std::max(max_holes, check_queue(sim, w));
      }
      p = next;
    }
    for (auto& [job, from] : dropped) {  // each dropped probe comes back, to a random worker
      int32_t to = static_cast<int32_t>(sim.rng().below(3));
      sim.send_probes(job, &to, 1, 0.0);
    }
    check_queue(sim, w);
  }
  int max_holes = 0;
};

TEST(WorkerQueue, RandomDropsAndAppends) {
  std::vector<std::pair<double, std::vector<double>>> jobs;
  Random g(11);
  for (int j = 0; j < 60; ++j) {
    std::vector<double> d;
    for (int k = 0, n = 1 + static_cast<int>(g.below(20)); k < n; ++k) d.push_back(g.uniform(0.5, 4));
    jobs.push_back({0.5 * j, d});
  }
  Workload w = worker_test::make_workload(jobs);
  Cluster c = Cluster::uniform(3, 1, 1, 0);
  RandomDrops s;
  Options o;
  Sim sim(c, w, s, o, 5);
  SimResult r = sim.run();
  EXPECT_GT(s.max_holes, 8) << "the case reaches the compaction threshold";
  std::vector<int> ok(w.n_tasks(), 0);
  for (size_t i = 0; i < r.att_task.size(); ++i)
    if (r.att_status[i] == kSucceeded) ok[r.att_task[i]]++;
  for (int k : ok) EXPECT_EQ(k, 1);
}

// The worker engine's queue arrays: each worker's queue is an array in queue order, where a
// removed probe leaves a hole, holes at the front are skipped, and an append compacts the array
// once holes are more than 8 and more than half of it. Checked here after every append and
// removal: the live entries are the queue's probes in the order they came (against a model of
// each queue kept by the test), each probe knows its entry, and compaction keeps them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "schedlab/registry.h"
#include "schedlab/worker.h"
#include "worker_helpers.h"

using namespace schedlab;
using namespace schedlab::worker;

namespace {

// Probes in queue order per worker as the test expects them (appended on arrival, removed when
// served or dropped). Returns the array's probes of worker w in order.
std::vector<int32_t> live_probes(Sim& sim, int32_t w) {
  std::vector<int32_t> live;
  for (const QueueEntry* e = sim.queue_begin(w); e != sim.queue_end(w); ++e)
    if (e->live()) live.push_back(e->probe());
  return live;
}

// The array of worker w against the expected queue; returns the number of holes between its
// first and last entries (the first entry is never a hole).
int check_queue(Sim& sim, int32_t w, const std::vector<int32_t>& expected) {
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
    const Probe& pr = sim.probe(p);
    EXPECT_EQ(e->job, pr.job);
    EXPECT_EQ(e->is_long(), (pr.flags & kProbeLong) != 0);
    // the probe's position is its entry's index in the array
    EXPECT_EQ(pr.pos - sim.probe(begin->probe()).pos, e - begin) << "probe " << p;
  }
  const std::vector<int32_t> live = live_probes(sim, w);
  EXPECT_EQ(static_cast<int32_t>(live.size()), sim.worker(w).qlen);
  EXPECT_EQ(live, expected);
  EXPECT_EQ(sim.queue_head(w), expected.empty() ? -1 : expected.front());
  return holes;
}

// The expected queues: a probe joins the back of its worker's queue when it arrives and leaves
// it when picked or dropped, wherever it stands.
struct Model {
  std::vector<std::vector<int32_t>> q;
  explicit Model(size_t workers) : q(workers) {}
  void remove(int32_t w, int32_t p) {
    auto& v = q[static_cast<size_t>(w)];
    auto it = std::find(v.begin(), v.end(), p);
    ASSERT_NE(it, v.end()) << "probe " << p << " expected at worker " << w;
    v.erase(it);
  }
};

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
  void on_probe_arrival(Sim& sim, int32_t w, int32_t p) override {
    model.q[w].push_back(p);
    const int holes = check_queue(sim, w, model.q[w]);
    ++appends;
    if (expect_compaction) {
      EXPECT_EQ(holes, 0) << "the first append after the drops compacts the array";
      EXPECT_EQ(sim.queue_end(w) - sim.queue_begin(w), sim.worker(w).qlen);
      expect_compaction = false;
      compacted = true;
    }
  }
  int32_t pick_probe(Sim& sim, int32_t w, bool short_only) override {
    check_queue(sim, w, model.q[w]);
    const int32_t p = Scheduler::pick_probe(sim, w, short_only);
    EXPECT_EQ(p, model.q[w].front()) << "FIFO: the head is served";
    model.remove(w, p);
    return p;
  }
  void on_timer(Sim& sim, uint32_t, uint64_t tag) override {
    if (tag == 0) {
      const std::vector<int32_t> order = live_probes(sim, 0);
      ASSERT_EQ(order.size(), 30u);
      for (size_t k = 5; k < 25; ++k) {
        sim.drop_probe(0, order[k]);
        model.remove(0, order[k]);
      }
      EXPECT_EQ(check_queue(sim, 0, model.q[0]), 20);
      EXPECT_EQ(sim.queue_end(0) - sim.queue_begin(0), 30);
    } else if (tag == 1) {
      const int32_t head = sim.queue_head(0);
      sim.drop_probe(0, head);
      model.remove(0, head);
      EXPECT_EQ(check_queue(sim, 0, model.q[0]), 20);
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
  Model model{1};
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
  void on_probe_arrival(Sim& sim, int32_t w, int32_t p) override {
    model.q[w].push_back(p);
    check_queue(sim, w, model.q[w]);
  }
  int32_t pick_probe(Sim& sim, int32_t w, bool short_only) override {
    check_queue(sim, w, model.q[w]);
    const int32_t p = Scheduler::pick_probe(sim, w, short_only);
    EXPECT_EQ(p, model.q[w].front()) << "FIFO: the head is served";
    model.remove(w, p);
    return p;
  }
  void on_timer(Sim& sim, uint32_t, uint64_t) override {
    const int32_t w = static_cast<int32_t>(sim.rng().below(3));
    std::vector<std::pair<int32_t, int32_t>> dropped;  // (probe's job, worker)
    for (int32_t p : live_probes(sim, w)) {
      if (sim.rng().uniform() < 0.6) {
        dropped.push_back({sim.probe(p).job, w});
        sim.drop_probe(w, p);
        model.remove(w, p);
        max_holes = std::max(max_holes, check_queue(sim, w, model.q[w]));
      }
    }
    for (auto& [job, from] : dropped) {  // each dropped probe comes back, to a random worker
      int32_t to = static_cast<int32_t>(sim.rng().below(3));
      sim.send_probes(job, &to, 1, 0.0);
    }
    check_queue(sim, w, model.q[w]);
  }
  int max_holes = 0;
  Model model{3};
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

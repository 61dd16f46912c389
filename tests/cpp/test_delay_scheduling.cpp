// Delay scheduling's listed form (DelayScheduling::list / skip_listed /
// listed_may_go_beyond_node, what fair's map scans use) against its plain form (skipped() for
// every job a scan passes over): the same waits to the nanosecond and the same answers.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "../../cpp/src/schedulers/mr_common.h"
#include "schedlab/random.h"

using namespace schedlab;
using namespace schedlab::mr;

namespace {

// Pending jobs that nobody launches: heartbeats go on until the time limit.
Workload idle_jobs(int32_t jobs) {
  Workload w;
  w.replica_begin.push_back(0);
  for (int32_t j = 0; j < jobs; ++j) {
    w.submit_time.push_back(0);
    w.task_job.push_back(j);
    w.task_stage.push_back(kMap);
    w.work.push_back(1);
    w.replica_node.push_back(0);
    w.replica_begin.push_back(int64_t(w.replica_node.size()));
  }
  w.finalize();
  return w;
}

// Two DelaySchedulings given one random history of heartbeats: jobs join and leave the list at
// a heartbeat's start, then scans either pass over a random prefix of the list (maybe launching
// the next job, which may then leave) or skip the whole list. `listed` is told with list() and
// skip_listed(), `plain` with skipped() for each job passed over.
class TwinDelay : public Scheduler {
 public:
  explicit TwinDelay(double delay) : delay_(delay) {}
  DelayScheduling listed, plain;
  std::vector<uint8_t> on_list;
  Random rng{7};
  int64_t compared = 0, whole_skips = 0, may_go_beyond = 0, queries = 0;

  void init(Sim& sim) override {
    listed.init(sim, delay_);
    plain.init(sim, delay_);
    on_list.assign(sim.workload().n_jobs(), 0);
  }
  void on_heartbeat(Sim& sim, int32_t) override {
    listed.on_heartbeat(sim);
    plain.on_heartbeat(sim);
    const int32_t n = int32_t(on_list.size());
    for (int k = 0; k < 2; ++k) {
      const int32_t j = int32_t(rng.below(uint64_t(n)));
      if (rng.uniform() < 0.3) {
        on_list[j] ^= 1;
        listed.list(j, on_list[j]);
      }
    }
    // the answer of listed_may_go_beyond_node must be the walk over the list's allowed levels
    std::vector<uint8_t> map_on_rack(on_list.size());
    for (auto& r : map_on_rack) r = rng.uniform() < 0.3;
    bool walk = false;
    for (int32_t j = 0; j < n; ++j) {
      const Locality a = plain.allowed(j);
      if (on_list[j] && (a == kRemote || (a == kRackLocal && map_on_rack[j]))) walk = true;
    }
    const bool beyond = listed.listed_may_go_beyond_node([&](int32_t j) { return map_on_rack[j] != 0; });
    ASSERT_EQ(beyond, walk) << "t=" << sim.now();
    ++queries;
    may_go_beyond += beyond;

    for (int s = 0; s < 2; ++s) {
      std::vector<int32_t> order;
      for (int32_t j = 0; j < n; ++j)
        if (on_list[j]) order.push_back(j);
      if (!beyond && rng.uniform() < 0.85) {  // the whole list skipped: the heartbeat's last map scan
        ++whole_skips;
        listed.skip_listed();
        for (int32_t j : order) plain.skipped(j);
        break;
      }
      const size_t stop = order.empty() ? 0 : size_t(rng.below(order.size() + 1));
      for (size_t i = 0; i < stop; ++i) { listed.skipped(order[i]); plain.skipped(order[i]); }
      if (stop < order.size()) {
        const int32_t j = order[stop];
        const Locality l = Locality(rng.below(4));  // kNoLocality counts as node-local
        listed.launched(j, l);
        plain.launched(j, l);
        if (rng.uniform() < 0.4) {  // its last map went: it leaves the list
          on_list[j] = 0;
          listed.list(j, false);
        }
      }
    }
    for (int32_t j = 0; j < n; ++j) {
      ASSERT_EQ(listed.waited(j), plain.waited(j)) << "job " << j << " at t=" << sim.now();
      ASSERT_EQ(listed.allowed(j), plain.allowed(j)) << "job " << j << " at t=" << sim.now();
      ++compared;
    }
  }

 private:
  double delay_;
};

// Runs `s` over `jobs` idle jobs on `nodes` nodes (one rack) that heartbeat every `heartbeat`
// seconds until `time_limit`.
void run_idle(Scheduler& s, int32_t jobs, int32_t nodes, double heartbeat, double time_limit) {
  const Cluster c = Cluster::uniform(nodes, 1, 1, 1);
  const Workload w = idle_jobs(jobs);
  Options o;
  o.heartbeat_interval = heartbeat;
  o.time_limit = time_limit;
  o.stall_limit = 0;
  Sim sim(c, w, s, o, 0);
  sim.run();
}

}  // namespace

TEST(DelayScheduling, ListedFormKeepsThePlainFormsWaitsAndAnswers) {
  TwinDelay twin(2.5);
  run_idle(twin, 12, 3, 0.37, 3000);  // heartbeat times not exact in binary; ~24,000 heartbeats
  EXPECT_GT(twin.compared, 200000);
  EXPECT_GT(twin.whole_skips, 5000);
  EXPECT_GT(twin.may_go_beyond, 1000);  // both answers were checked many times
  EXPECT_GT(twin.queries - twin.may_go_beyond, 1000);
}

TEST(DelayScheduling, ListedFormWithTheDelayOff) {
  TwinDelay twin(0.0);  // every job may go anywhere at once
  run_idle(twin, 12, 3, 0.5, 3000);
  EXPECT_GT(twin.compared, 100000);
  EXPECT_GT(twin.may_go_beyond, 1000);
}

// Waits add up exactly: with heartbeats 0.1 s apart a job skipped at each reaches a 1 s delay at
// the tenth, and twice it at the twentieth, where sums of the gaps in binary floating point fall
// short (ten gaps add up to 0.9999999999999999).
TEST(DelayScheduling, WaitsReachTheDelayExactly) {
  struct SkipEach : Scheduler {
    DelayScheduling d;
    std::vector<Locality> seen;
    void init(Sim& sim) override { d.init(sim, 1.0); }
    void on_heartbeat(Sim& sim, int32_t) override {
      d.on_heartbeat(sim);
      seen.push_back(d.allowed(0));
      d.skipped(0);
    }
  } s;
  run_idle(s, 1, 1, 0.1, 2.05);
  ASSERT_EQ(s.seen.size(), 21u);
  EXPECT_EQ(s.seen[9], kNodeLocal);    // waited 0.9 s
  EXPECT_EQ(s.seen[10], kRackLocal);   // 1 s: the delay
  EXPECT_EQ(s.seen[19], kRackLocal);
  EXPECT_EQ(s.seen[20], kRemote);      // 2 s: twice the delay
}

TEST(DelayScheduling, TheListMayNotChangeAfterAWholeSkip) {
  struct Misuse : Scheduler {
    DelayScheduling d;
    bool threw = false;
    void init(Sim& sim) override { d.init(sim, 1.0); }
    void on_heartbeat(Sim& sim, int32_t) override {
      d.on_heartbeat(sim);
      d.list(0, true);
      d.skip_listed();
      try {
        d.list(0, false);
      } catch (const std::logic_error&) {
        threw = true;
      }
    }
  } s;
  run_idle(s, 1, 1, 1.0, 0.5);
  EXPECT_TRUE(s.threw);
}

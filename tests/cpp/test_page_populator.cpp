// The background page populator (huge_pages.h): it faults pages in without touching their
// contents, follows its writer, stops at once when asked; and a MapReduce run large enough to
// populate its attempt records in the background runs every task once. The MapReduce engine's
// replicas drawn on a thread of their own are those drawn inline, and the place indexes that
// thread builds ahead of the jobs' arrivals schedule as those built at arrival.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "schedlab/huge_pages.h"
#include "schedlab/mapreduce.h"
#include "schedlab/registry.h"
#include "schedlab/workload.h"

using namespace schedlab;

TEST(PagePopulator, FaultsInWithoutChangingContents) {
  constexpr size_t kBytes = size_t(24) << 20;
  std::unique_ptr<uint8_t[]> buf(new uint8_t[kBytes]);
  for (size_t i = 0; i < kBytes; i += 4093) buf[i] = uint8_t(i * 7 + 1);
  PagePopulator p;
  p.start(buf.get(), kBytes, size_t(1) << 20, size_t(4) << 20);
  EXPECT_TRUE(p.running());
  for (size_t w = 0; w <= kBytes; w += size_t(1) << 20) p.advance(w);
  p.stop();
  EXPECT_FALSE(p.running());
  for (size_t i = 0; i < kBytes; i += 4093) ASSERT_EQ(buf[i], uint8_t(i * 7 + 1)) << i;
}

TEST(PagePopulator, StopsWhileWaitingAndRestarts) {
  std::vector<uint8_t> a(size_t(8) << 20, 3), b(size_t(8) << 20, 5);
  PagePopulator p;
  p.start(a.data(), a.size(), 4096 * 16, 4096 * 64);  // its writer never advances: it waits
  p.stop();
  p.start(b.data(), b.size(), 4096 * 16, 4096 * 64);  // (the destructor stops this one)
  p.advance(b.size());
  EXPECT_EQ(a[12345], 3);
  EXPECT_EQ(b[12345], 5);
}

namespace {
// 1,100 jobs of 1,000 one-second maps each: 1.1 M attempt records, 70 MB, populated in the
// background (and 3.3 M replicas, drawn on a thread of their own)
Workload many_maps(int jobs = 1100) {
  Workload w;
  for (int j = 0; j < jobs; ++j) {
    w.submit_time.push_back(double(j));
    for (int m = 0; m < 1000; ++m) {
      w.task_job.push_back(j);
      w.task_stage.push_back(kMap);
    }
  }
  w.work = std::vector<double>(w.task_job.size(), 1.0);
  w.finalize();
  return w;
}

SimResult run_fifo(const Cluster& c, const Workload& w, double time_limit) {
  RunRequest r;
  r.cluster = &c;
  r.workload = &w;
  r.scheduler = "fifo";
  r.options.numbers["time_limit"] = time_limit;
  return run(r);
}
}  // namespace

TEST(PagePopulator, LargeRunFinishesEveryTaskOnce) {
  const Cluster c = Cluster::uniform(500, 10, 4, 0);
  const Workload w = many_maps();
  const auto full = run_fifo(c, w, std::numeric_limits<double>::infinity());
  ASSERT_EQ(full.att_task.size(), w.task_job.size());
  std::vector<int> seen(w.task_job.size(), 0);
  for (size_t a = 0; a < full.att_task.size(); ++a) {
    ++seen[size_t(full.att_task[a])];
    EXPECT_EQ(full.att_status[a], kSucceeded);
  }
  for (int s : seen) ASSERT_EQ(s, 1);
  // a run stopped by its time limit stops its populator too; what it ran is the full run's start
  const auto cut = run_fifo(c, w, 300.0);
  ASSERT_GT(cut.att_task.size(), 0u);
  ASSERT_LT(cut.att_task.size(), full.att_task.size());
  for (size_t a = 0; a < cut.att_task.size(); ++a) {
    ASSERT_EQ(cut.att_task[a], full.att_task[a]);
    ASSERT_EQ(cut.att_start[a], full.att_start[a]);
  }
}

// 1,100 jobs draw their 3.3 M replicas on a thread; their first 10 alone draw theirs inline, from
// the same stream: the same replicas, read through locality() (which waits for the drawing).
TEST(PagePopulator, ReplicasDrawnOnAThreadAreThoseDrawnInline) {
  const Cluster c = Cluster::uniform(500, 10, 4, 0);
  const Workload big = many_maps(), small = many_maps(10);
  auto s1 = mr::make_scheduler("fifo", {}), s2 = mr::make_scheduler("fifo", {});
  mr::Sim threaded(c, big, *s1, mr::Options{}, 7), inline_(c, small, *s2, mr::Options{}, 7);
  int node_local = 0;
  for (int32_t t = 0; t < 10000; t += 13)
    for (int32_t n = 0; n < 500; n += 3) {
      ASSERT_EQ(threaded.locality(t, n), inline_.locality(t, n)) << t << " " << n;
      node_local += threaded.locality(t, n) == kNodeLocal;
    }
  EXPECT_GT(node_local, 0);
  // the last job's maps: three distinct replicas each
  std::vector<int32_t> reps;
  for (int32_t t = int32_t(big.n_tasks()) - 1000; t < int32_t(big.n_tasks()); ++t) {
    threaded.replicas_of(t, reps);
    ASSERT_EQ(reps.size(), 3u);
    EXPECT_TRUE(reps[0] != reps[1] && reps[1] != reps[2] && reps[0] != reps[2]);
  }
}

// 400 jobs draw their 1.2 M replicas on a thread, which then builds the jobs' place indexes ahead
// of their arrivals; given the same replicas in the workload, every index is built at its job's
// arrival. Under fair (delay scheduling: node-local, then rack-local lookups), the same schedule.
TEST(PagePopulator, PlaceIndexesBuiltAheadScheduleAsThoseBuiltAtArrival) {
  const Cluster c = Cluster::uniform(500, 10, 4, 0);
  const Workload drawn = many_maps(400);
  Workload given = drawn;
  {
    auto s = mr::make_scheduler("fifo", {});
    mr::Sim sim(c, drawn, *s, mr::Options{}, 7);
    std::vector<int32_t> reps;
    given.replica_begin.assign(1, 0);
    for (int32_t t = 0; t < int32_t(drawn.n_tasks()); ++t) {
      sim.replicas_of(t, reps);
      given.replica_node.insert(given.replica_node.end(), reps.begin(), reps.end());
      given.replica_begin.push_back(int64_t(given.replica_node.size()));
    }
  }
  given.finalize();
  auto run_fair = [&](const Workload& w) {
    RunRequest r;
    r.cluster = &c;
    r.workload = &w;
    r.scheduler = "fair";
    r.seed = 7;
    return run(r);
  };
  const SimResult a = run_fair(drawn), b = run_fair(given);
  ASSERT_EQ(a.att_task.size(), drawn.n_tasks());
  ASSERT_EQ(a.att_task, b.att_task);
  ASSERT_EQ(a.att_node, b.att_node);
  ASSERT_EQ(a.att_start, b.att_start);
  ASSERT_EQ(a.att_locality, b.att_locality);
  int node_local = 0;
  for (auto l : a.att_locality) node_local += l == kNodeLocal;
  EXPECT_GT(node_local, 0);
}

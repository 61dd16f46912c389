// Engine basics and hand-computed Hadoop schedules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "schedlab/event_queue.h"
#include "schedlab/mapreduce.h"
#include "schedlab/params.h"
#include "schedlab/random.h"
#include "schedlab/registry.h"
#include "schedlab/workload.h"

using namespace schedlab;

namespace {

// A small builder for hand-made MapReduce workloads.
struct JobSpec {
  double submit;
  std::vector<double> maps;
  std::vector<double> reduces;
  std::vector<std::vector<int32_t>> map_replicas;  // empty = node 0 for every map
  int32_t user = 0;
  double deadline = NAN;
};

Workload make_workload(const std::vector<JobSpec>& jobs) {
  Workload w;
  w.replica_begin.push_back(0);
  for (size_t j = 0; j < jobs.size(); ++j) {
    const JobSpec& js = jobs[j];
    w.submit_time.push_back(js.submit);
    w.user.push_back(js.user);
    w.deadline.push_back(js.deadline);
    for (size_t m = 0; m < js.maps.size(); ++m) {
      w.task_job.push_back(int32_t(j));
      w.task_stage.push_back(kMap);
      w.work.push_back(js.maps[m]);
      std::vector<int32_t> reps = js.map_replicas.empty() ? std::vector<int32_t>{0} : js.map_replicas[m];
      for (int32_t r : reps) w.replica_node.push_back(r);
      w.replica_begin.push_back(int64_t(w.replica_node.size()));
    }
    for (double r : js.reduces) {
      w.task_job.push_back(int32_t(j));
      w.task_stage.push_back(kReduce);
      w.work.push_back(r);
      w.replica_begin.push_back(int64_t(w.replica_node.size()));
    }
  }
  w.finalize();
  return w;
}

SimResult simulate(const Cluster& c, const Workload& w, const std::string& sched, ParamValues params = {},
                   ParamValues options = {}, uint64_t seed = 0) {
  RunRequest r;
  r.cluster = &c;
  r.workload = &w;
  r.scheduler = sched;
  r.scheduler_params = std::move(params);
  r.options = std::move(options);
  r.seed = seed;
  return run(r);
}

ParamValues hb1() {
  ParamValues o;
  o.numbers["heartbeat_interval"] = 1.0;
  return o;
}

// (start, finish) of the successful attempt of each task, by task id
std::map<int32_t, std::pair<double, double>> spans(const SimResult& r) {
  std::map<int32_t, std::pair<double, double>> out;
  for (size_t i = 0; i < r.att_task.size(); ++i)
    if (r.att_status[i] == kSucceeded) out[r.att_task[i]] = {r.att_start[i], r.att_finish[i]};
  return out;
}

}  // namespace

TEST(EventQueue, OrdersByTimeThenInsertion) {
  EventQueue q;
  q.push(5.0, 1, 10);
  q.push(1.0, 2, 20);
  q.push(5.0, 3, 30);
  q.push(1.0, 4, 40);
  q.push(0.5, 5, 50);
  std::vector<uint32_t> kinds;
  double last = -1;
  while (!q.empty()) {
    Event e = q.pop();
    EXPECT_GE(e.time, last);
    last = e.time;
    kinds.push_back(e.kind);
  }
  EXPECT_EQ(kinds, (std::vector<uint32_t>{5, 2, 4, 1, 3}));
}

TEST(EventQueue, ManyTiesKeepInsertionOrder) {
  EventQueue q;
  for (uint32_t i = 0; i < 1000; ++i) q.push(double(i % 7), i);
  uint32_t prev_kind = 0;
  double prev_time = -1;
  while (!q.empty()) {
    Event e = q.pop();
    if (e.time == prev_time) { EXPECT_GT(e.kind, prev_kind); }
    else { EXPECT_GT(e.time, prev_time); }
    prev_time = e.time;
    prev_kind = e.kind;
  }
}

// push_later's FIFO lane must pop in exactly push()'s (time, sequence) order, interleaved with
// the heap, including ties and a push_later that is not in order (it falls back to the heap).
TEST(EventQueue, LaterLaneMergesLikeTheHeap) {
  EventQueue lane, heap;
  Random rng(7);
  double later = 0;
  std::vector<std::pair<double, uint64_t>> got, want;
  for (uint32_t i = 0; i < 20000; ++i) {
    const uint64_t pick = rng.below(4);
    if (pick == 0 && !heap.empty()) {  // pop from both
      const Event a = lane.pop(), b = heap.pop();
      got.push_back({a.time, a.b});
      want.push_back({b.time, b.b});
      later = std::max(later, a.time);
      continue;
    }
    const double t = pick == 1 ? later + double(rng.below(3))                // in order (ties too)
                   : pick == 2 ? later - 1.0                                  // out of order
                               : later + double(rng.below(50)) * 0.5;         // anything
    if (pick == 3) lane.push(t, 0, 0, i); else lane.push_later(t, 0, 0, i);
    heap.push(t, 0, 0, i);
  }
  while (!heap.empty()) {
    const Event a = lane.pop(), b = heap.pop();
    got.push_back({a.time, a.b});
    want.push_back({b.time, b.b});
  }
  EXPECT_TRUE(lane.empty());
  EXPECT_EQ(got, want);
}

// The queue compares times as integers of the same order: negative, zero (either sign), tiny,
// huge and infinite times must pop in numeric order, ties (-0 with +0 too) in push order, each
// with its time unchanged -- against a stable sort of the same pushes, through heap and lane.
TEST(EventQueue, OrdersEveryTimeNumerically) {
  const std::vector<double> times = {3.5, -1.0, 0.0, -0.0, -2.5, 1e-300, -1e-300, INFINITY, 2.0, -INFINITY,
                                     0.0, 3.5, -1.0, 5e-324, 1.7976931348623157e308, -0.0, 2.0};
  for (bool later : {false, true}) {
    EventQueue q;
    std::vector<std::pair<double, uint32_t>> want;
    for (uint32_t i = 0; i < times.size(); ++i) {
      if (later) q.push_later(times[i], i); else q.push(times[i], i);
      want.push_back({times[i], i});
    }
    std::stable_sort(want.begin(), want.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [t, kind] : want) {
      const Event e = q.pop();
      EXPECT_EQ(e.kind, kind);
      EXPECT_EQ(e.time, t);  // (-0 comes back as +0: equal)
    }
    EXPECT_TRUE(q.empty());
  }
}

// A simulation's pushes against a sorted reference: events at and after the current time (ties
// of every kind), events in the past, times far apart and close together, the FIFO lane, pops
// interleaved; either event classes ordered at equal times (push_ordered, push_ordered_later:
// some earlier than the event being handled), or plain pushes with sequence numbers between
// earlier pushes (push_at_seq). Every pop must be the reference's least (time, sequence).
TEST(EventQueue, MatchesSortedOrderUnderSimulationPushes) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const bool ordered = seed % 2 == 0;
    EventQueue q;
    q.set_seq_stride(4);
    Random rng(seed);
    std::set<std::pair<double, uint64_t>> ref;
    double now = 0;
    auto check_pop = [&] {
      const Event e = q.pop();
      ASSERT_FALSE(ref.empty());
      EXPECT_EQ(std::make_pair(e.time, e.seq), *ref.begin());
      EXPECT_EQ(e.b, e.seq ^ 0x5555);  // the payload travels with its key
      ref.erase(ref.begin());
      now = std::max(now, e.time);
    };
    for (int i = 0; i < 60000; ++i) {
      const uint64_t r = rng.below(10);
      if (r < 4 && !q.empty()) {
        check_pop();
        continue;
      }
      const double t = r == 4 ? now                                                // now (ties)
                     : r == 5 ? now + double(rng.below(4)) * 0.25               // close
                     : r == 6 ? now + double(rng.below(1000000)) * 1e-3         // far
                     : r == 7 ? now - 1.0                                        // in the past
                              : now + double(rng.below(100));
      const uint32_t order = static_cast<uint32_t>(rng.below(6));
      uint64_t seq;
      if (r == 8 && !ordered && q.next_seq() > 8) {
        seq = q.next_seq() - 4 * (1 + rng.below(2)) + 1 + rng.below(3);  // between earlier pushes
        if (!ref.insert({t, seq}).second) continue;  // (that number is taken: no duplicate keys)
        q.push_at_seq(t, seq, 0, 0, seq ^ 0x5555);
        continue;
      }
      seq = q.next_seq() | (ordered ? uint64_t(order) << 56 : 0);
      ref.insert({t, seq});
      if (r == 9) {
        if (ordered) q.push_ordered_later(t, order, 0, 0, seq ^ 0x5555);
        else q.push_later(t, 0, 0, seq ^ 0x5555);
      } else if (ordered) {
        q.push_ordered(t, order, 0, 0, seq ^ 0x5555);
      } else {
        q.push(t, 0, 0, seq ^ 0x5555);
      }
      EXPECT_EQ(q.size(), ref.size());
    }
    while (!q.empty()) check_pop();
    EXPECT_TRUE(ref.empty());
  }
}

// clear() empties the buckets but keeps their room: a queue cleared after heavy use (buckets
// grown, pulled and refiled) must order the next run exactly as a fresh queue does.
TEST(EventQueue, ClearedQueueOrdersLikeAFreshOne) {
  EventQueue used;
  Random rng(3);
  for (int round = 0; round < 3; ++round) {
    EventQueue fresh;
    double now = 0;
    for (int i = 0; i < 30000; ++i) {
      if (rng.below(3) == 0 && !fresh.empty()) {
        const Event a = used.pop(), b = fresh.pop();
        ASSERT_EQ(a.time, b.time);
        ASSERT_EQ(a.seq, b.seq);
        ASSERT_EQ(a.b, b.b);
        now = a.time;
        continue;
      }
      const double t = now + double(rng.below(1u << (4 * rng.below(6)))) * 1e-3;
      const uint32_t order = static_cast<uint32_t>(rng.below(3));
      used.push_ordered(t, order, 0, 0, uint64_t(i));
      fresh.push_ordered(t, order, 0, 0, uint64_t(i));
    }
    // leave events behind in several buckets, then start over
    for (int i = 0; i < 100 && !fresh.empty(); ++i) ASSERT_EQ(used.pop().b, fresh.pop().b);
    ASSERT_EQ(used.size(), fresh.size());
    used.clear();
    ASSERT_TRUE(used.empty());
  }
}

TEST(Random, SameSeedSameStreamDifferentStreamsDiffer) {
  Random a(42, 0), b(42, 0), c(42, 1);
  int same = 0;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.next_u64();
    EXPECT_EQ(x, b.next_u64());
    same += x == c.next_u64();
  }
  EXPECT_EQ(same, 0);
}

// below(n) keeps the stream of the textbook form (reject r >= UINT64_MAX - UINT64_MAX % n, else
// r % n), draw for draw, for small, power-of-two and huge n (half of all draws rejected).
TEST(Random, BelowKeepsTheRejectionStream) {
  const uint64_t half = uint64_t(1) << 63;
  for (uint64_t n : {uint64_t(2), uint64_t(3), uint64_t(7), uint64_t(40), uint64_t(10000), uint64_t(1) << 32,
                     half - 1, half, half + 1, half + 12345, UINT64_MAX - 1, UINT64_MAX}) {
    Random fast(11, 3), raw(11, 3);
    for (int i = 0; i < 2000; ++i) {
      const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
      uint64_t r;
      do { r = raw.next_u64(); } while (r >= limit);
      ASSERT_EQ(fast.below(n), r % n) << "n = " << n << ", draw " << i;
    }
  }
}

// The same when the bound changes from draw to draw (below() keeps its multiplier for the last n).
TEST(Random, BelowWithChangingBounds) {
  const uint64_t bounds[] = {15000, 2, 12450, 15000, uint64_t(1) << 63, 3, 3, 2550, UINT64_MAX, 1, 7};
  Random fast(5, 1), raw(5, 1);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t n = bounds[i % 11] + uint64_t(i % 7 == 0 ? i : 0);
    uint64_t want = 0;
    if (n > 1) {
      const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
      uint64_t r;
      do { r = raw.next_u64(); } while (r >= limit);
      want = r % n;
    }
    ASSERT_EQ(fast.below(n), want) << "n = " << n << ", draw " << i;
  }
}

TEST(Random, RangesAndMeans) {
  Random r(7);
  double sum = 0, esum = 0;
  for (int i = 0; i < 100000; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    esum += r.exponential(3.0);
    ASSERT_LT(r.below(13), 13u);
  }
  EXPECT_NEAR(sum / 100000, 0.5, 0.01);
  EXPECT_NEAR(esum / 100000, 3.0, 0.05);
}

TEST(Params, ValidatesNamesTypesAndRanges) {
  std::vector<ParamSpec> specs = {ParamSpec::number("x", 1.5, 0, 10, ""), ParamSpec::choice("mode", "a", {"a", "b"}, ""),
                                  ParamSpec::integer("k", 2, 0, 5, "")};
  ParamValues v;
  Params p("s", specs, v);
  EXPECT_EQ(p.number("x"), 1.5);
  EXPECT_EQ(p.choice("mode"), "a");
  EXPECT_EQ(p.integer("k"), 2);
  v.numbers["nope"] = 1;
  EXPECT_THROW(Params("s", specs, v), std::invalid_argument);
  v = {};
  v.numbers["x"] = 11;
  EXPECT_THROW(Params("s", specs, v), std::invalid_argument);
  v = {};
  v.strings["mode"] = "c";
  EXPECT_THROW(Params("s", specs, v), std::invalid_argument);
  v = {};
  v.numbers["k"] = 1.5;
  EXPECT_THROW(Params("s", specs, v), std::invalid_argument);
}

TEST(Workload, RejectsBadInputNamingTheField) {
  Workload w = make_workload({{0, {10}, {}}});
  w.work[0] = -1;
  try {
    w.validate();
    FAIL() << "negative work accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'work'"), std::string::npos);
  }
  Workload u = make_workload({{5, {1}, {}}, {6, {1}, {}}});
  u.submit_time[1] = 1;  // out of order
  EXPECT_THROW(u.validate(), std::invalid_argument);
  Cluster c = Cluster::uniform(1, 1, 1, 1);
  Workload r = make_workload({{0, {1}, {}, {{5}}}});  // replica on a node the cluster lacks
  EXPECT_THROW(simulate(c, r, "fifo"), std::invalid_argument);
  EXPECT_THROW(Cluster::uniform(0, 1, 1, 1), std::invalid_argument);
}

// A run checks every invariant of a workload that may have changed since finalize(), and of a
// sealed one (read-only since) only the nodes it names, which depend on the run's cluster.
TEST(Workload, RunChecksWhatCanHaveChanged) {
  Workload w = make_workload({{0, {10}, {}}});
  w.work[0] = -1;
  EXPECT_THROW(w.validate_for_run(1), std::invalid_argument);
  Workload r = make_workload({{0, {1}, {}, {{5}}}});  // replica on node 5
  r.sealed = true;
  EXPECT_NO_THROW(r.validate_for_run(6));
  try {
    r.validate_for_run(5);
    FAIL() << "a replica on a node the cluster lacks accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not in the cluster"), std::string::npos);
  }
}

// A workload given no estimates holds its work values once (the estimate shares them), and so do
// its copies; writing a column, in any of them, gives that column values of its own. (Reads go
// through const references: the non-const [] is a write.)
TEST(Workload, EstimateSharesWorkUntilWritten) {
  Workload w = make_workload({{0, {10, 20, 30}, {}}});
  const Workload& cw = w;
  ASSERT_FALSE(cw.work.per_block());
  EXPECT_TRUE(cw.estimate.shares_values(cw.work));
  Workload own = w;
  const size_t shared_bytes = own.nbytes();
  own.estimate[0] = 99;  // its own estimate from here: the work of both is untouched
  EXPECT_EQ(own.nbytes(), shared_bytes + 3 * sizeof(double));
  Workload c = w;
  const Workload& cc = c;
  EXPECT_TRUE(cc.work.shares_values(cw.work));
  c.work[1] = 7;
  EXPECT_EQ(cc.work[1], 7);
  EXPECT_EQ(cc.estimate[1], 20);
  EXPECT_EQ(cw.work[1], 20);
  EXPECT_EQ(cw.estimate[1], 20);
  EXPECT_EQ(static_cast<const Workload&>(own).work[1], 20);
  EXPECT_EQ(static_cast<const Workload&>(own).estimate[0], 99);
  EXPECT_EQ(cw.estimate[0], 10);
  EXPECT_FALSE(cc.work.shares_values(cc.estimate));
  EXPECT_TRUE(cc.estimate.shares_values(cw.work));
  EXPECT_TRUE(cw.estimate.shares_values(cw.work));
  c.work.push_back(1);  // (push_back and reserve keep the reads in step with the moved values)
  EXPECT_EQ(cc.work[3], 1);
  EXPECT_EQ(cc.work[0], 10);
}

TEST(Registry, UnknownSchedulerAndParameter) {
  Cluster c = Cluster::uniform(1, 1, 1, 1);
  Workload w = make_workload({{0, {1}, {}}});
  EXPECT_THROW(simulate(c, w, "no_such_scheduler"), std::invalid_argument);
  ParamValues p;
  p.numbers["no_such_param"] = 1;
  EXPECT_THROW(simulate(c, w, "fair", p), std::invalid_argument);
  ParamValues o;
  o.numbers["slowstart"] = 2;
  EXPECT_THROW(simulate(c, w, "fifo", {}, o), std::invalid_argument);
}

// One node with 2 map slots and 1 reduce slot, heartbeats every second from t = 0.
// Job A (t=0): 4 maps of 10 s and a 5 s reduce. Job B (t=0.5, another user): one 3 s map.
//   FIFO: A's maps run [0,10] x2 and [10,20] x2; A's reduce starts at 10 (slowstart met) and
//         ends 20 + 5 = 25; B waits for A's maps: [20,23].
//   Fair: at t=10 B has no running map and A has one, so B gets the second slot: [10,13];
//         A's last map runs [13,23] and its reduce ends 23 + 5 = 28.
TEST(HandSchedule, FifoVersusFairExactTimes) {
  Cluster c = Cluster::uniform(1, 1, 2, 1);
  Workload w = make_workload({{0, {10, 10, 10, 10}, {5}, {}, 0}, {0.5, {3}, {}, {}, 1}});
  SimResult f = simulate(c, w, "fifo", {}, hb1());
  auto fs = spans(f);
  EXPECT_EQ(fs[0], std::make_pair(0.0, 10.0));
  EXPECT_EQ(fs[1], std::make_pair(0.0, 10.0));
  EXPECT_EQ(fs[2], std::make_pair(10.0, 20.0));
  EXPECT_EQ(fs[3], std::make_pair(10.0, 20.0));
  EXPECT_EQ(fs[4], std::make_pair(10.0, 25.0));  // reduce
  EXPECT_EQ(fs[5], std::make_pair(20.0, 23.0));  // job B
  EXPECT_EQ(f.job_finish[0], 25.0);
  EXPECT_EQ(f.job_finish[1], 23.0);

  SimResult s = simulate(c, w, "fair", {}, hb1());
  auto ss = spans(s);
  EXPECT_EQ(ss[0], std::make_pair(0.0, 10.0));
  EXPECT_EQ(ss[1], std::make_pair(0.0, 10.0));
  EXPECT_EQ(ss[2], std::make_pair(10.0, 20.0));
  EXPECT_EQ(ss[5], std::make_pair(10.0, 13.0));  // B takes the second slot at t=10
  EXPECT_EQ(ss[3], std::make_pair(13.0, 23.0));
  EXPECT_EQ(ss[4], std::make_pair(10.0, 28.0));
  EXPECT_EQ(s.job_finish[0], 28.0);
  EXPECT_EQ(s.job_finish[1], 13.0);
}

// Two nodes in two racks, one map slot each; node 0 heartbeats at 0,1,2,..., node 1 at
// 0.5,1.5,... Job A holds node 0 for 100 s; job B's only map has its input on node 0.
// Delay scheduling (delay 2 s): B is skipped at node 1's heartbeats; each skip earns the
// next inter-heartbeat gap (0.5 s), so B may go rack-local after 2 s of waiting (t=4) and
// anywhere after 4 s (t=8): it starts remotely on node 1 at 8.5 and takes 10 x 1.5 = 15 s.
// With the delay off, or under FIFO, B starts at node 1's first heartbeat, t=0.5.
TEST(HandSchedule, DelaySchedulingWaitsThenGoesRemote) {
  Cluster c = Cluster::uniform(2, 2, 1, 0);
  Workload w = make_workload({{0, {100}, {}, {{0}}, 0}, {0, {10}, {}, {{0}}, 1}});
  ParamValues delay;
  delay.numbers["locality_delay"] = 2.0;
  SimResult s = simulate(c, w, "fair", delay, hb1());
  auto ss = spans(s);
  EXPECT_EQ(ss[0], std::make_pair(0.0, 100.0));
  EXPECT_EQ(ss[1].first, 8.5);
  EXPECT_EQ(ss[1].second, 8.5 + 15.0);
  for (size_t i = 0; i < s.att_task.size(); ++i)
    if (s.att_task[i] == 1) { EXPECT_EQ(s.att_locality[i], kRemote); EXPECT_EQ(s.att_node[i], 1); }

  delay.numbers["locality_delay"] = 0.0;
  SimResult off = simulate(c, w, "fair", delay, hb1());
  EXPECT_EQ(spans(off)[1], std::make_pair(0.5, 15.5));
  SimResult fifo = simulate(c, w, "fifo", {}, hb1());
  EXPECT_EQ(spans(fifo)[1], std::make_pair(0.5, 15.5));
}

// Admission control k=1 runs jobs one map phase at a time: B's map waits for A's maps even
// though a slot is free, and B's reduce waits for A's reduce phase to end.
TEST(HandSchedule, AdmissionControlK1) {
  Cluster c = Cluster::uniform(1, 1, 2, 1);
  Workload w = make_workload({{0, {10}, {4}, {}, 0}, {0, {10}, {4}, {}, 1}});
  ParamValues k1;
  k1.numbers["k"] = 1;
  for (const char* name : {"fifo", "fair", "capacity"}) {
    SimResult r = simulate(c, w, name, k1, hb1());
    auto sp = spans(r);
    EXPECT_EQ(sp[0], std::make_pair(0.0, 10.0)) << name;
    EXPECT_EQ(sp[2], std::make_pair(10.0, 20.0)) << name;  // B's map after A leaves M
    EXPECT_EQ(sp[1], std::make_pair(10.0, 14.0)) << name;  // A's reduce
    EXPECT_EQ(sp[3], std::make_pair(20.0, 24.0)) << name;  // B's reduce after A leaves R
    SimResult free_run = simulate(c, w, name, {}, hb1());
    EXPECT_EQ(spans(free_run)[2].first, 0.0) << name;  // without k both maps start at once
  }
}

// The reduce copy phase ends no earlier than the last map plus that map's share of the shuffle.
TEST(HandSchedule, ShuffleWaitsForLastMap) {
  Cluster c = Cluster::uniform(1, 1, 1, 1);
  Workload w = make_workload({{0, {10, 10}, {2}}});
  w.input_bytes[2] = 4e8;  // 4e8 B / 1e8 B/s = 4 s of shuffle
  ParamValues o = hb1();
  o.numbers["network_bandwidth"] = 1e8;
  SimResult r = simulate(c, w, "fifo", {}, o);
  auto sp = spans(r);
  // reduce launched at 10 (one map done); copy ends at max(10 + 4, 20 + 4/2) = 22; + 2 s work
  EXPECT_EQ(sp[2], std::make_pair(10.0, 24.0));
  EXPECT_EQ(r.att_extra.at("copy_end")[2], 22.0);
}

TEST(Determinism, SameSeedIdenticalRuns) {
  Cluster c = Cluster::uniform(12, 3, 2, 2);
  std::vector<JobSpec> jobs;
  Random rng(3);
  for (int j = 0; j < 30; ++j) {
    JobSpec js{double(j) * 3.0, {}, {}, {}, j % 4};
    const int m = 1 + int(rng.below(12)), r = int(rng.below(3));
    for (int i = 0; i < m; ++i) js.maps.push_back(rng.exponential(20));
    for (int i = 0; i < r; ++i) js.reduces.push_back(rng.exponential(30));
    jobs.push_back(js);
  }
  Workload w = make_workload(jobs);
  w.replica_begin.clear();  // let the engine draw replicas from the seed
  w.replica_node.clear();
  for (const char* name : {"fifo", "fair", "capacity", "edf"}) {
    SimResult a = simulate(c, w, name, {}, {}, 11), b = simulate(c, w, name, {}, {}, 11);
    EXPECT_EQ(a.att_task, b.att_task) << name;
    EXPECT_EQ(a.att_node, b.att_node) << name;
    EXPECT_EQ(a.att_start, b.att_start) << name;
    EXPECT_EQ(a.att_finish, b.att_finish) << name;
    EXPECT_EQ(a.events, b.events) << name;
    SimResult d = simulate(c, w, name, {}, {}, 12);
    EXPECT_NE(a.att_node, d.att_node) << name << ": the seed should change replica placement";
  }
}

// No node ever runs more attempts of a slot type than it has slots of that type.
// Hundreds of jobs active at once: the engine's per-node job rows widen (64 slots per word)
// and slots of finished jobs are reused; every task must still succeed exactly once, every job
// finish, and runs repeat exactly.
TEST(SlotAccounting, ManyActiveJobsWidenTheNodeRows) {
  Cluster c = Cluster::uniform(8, 2, 1, 1);
  std::vector<JobSpec> jobs;
  Random rng(11);
  for (int j = 0; j < 300; ++j) {
    JobSpec js{j < 200 ? 0.0 : 50.0 + j, {}, {}, {}, j % 7};
    const int maps = 1 + int(rng.below(4));
    for (int i = 0; i < maps; ++i) {
      js.maps.push_back(1 + rng.exponential(5));
      js.map_replicas.push_back({int32_t(rng.below(8)), int32_t(rng.below(8))});
    }
    if (j % 2) js.reduces.push_back(1 + rng.exponential(5));
    jobs.push_back(js);
  }
  const Workload w = make_workload(jobs);
  for (const char* name : {"fair", "fifo", "edf", "capacity"}) {
    const SimResult a = simulate(c, w, name, {}, hb1());
    const SimResult b = simulate(c, w, name, {}, hb1());
    std::vector<int> runs(w.n_tasks(), 0);
    for (size_t i = 0; i < a.att_task.size(); ++i) runs[size_t(a.att_task[i])] += a.att_status[i] == kSucceeded;
    for (size_t t = 0; t < w.n_tasks(); ++t) ASSERT_EQ(runs[t], 1) << name << " task " << t;
    for (size_t j = 0; j < w.n_jobs(); ++j) ASSERT_FALSE(std::isnan(a.job_finish[j])) << name << " job " << j;
    EXPECT_EQ(a.att_start, b.att_start) << name;  // deterministic
    EXPECT_EQ(a.att_node, b.att_node) << name;
  }
}

TEST(SlotAccounting, NeverOverCommitted) {
  Cluster c = Cluster::uniform(6, 2, 2, 1);
  std::vector<JobSpec> jobs;
  Random rng(5);
  for (int j = 0; j < 40; ++j) {
    JobSpec js{double(j), {}, {}, {}, j % 3};
    for (int i = 0; i < 1 + int(rng.below(10)); ++i) js.maps.push_back(1 + rng.exponential(10));
    for (int i = 0; i < int(rng.below(4)); ++i) js.reduces.push_back(1 + rng.exponential(10));
    jobs.push_back(js);
  }
  Workload w = make_workload(jobs);
  w.replica_begin.clear();
  w.replica_node.clear();
  for (const char* name : {"fifo", "fair", "capacity", "edf"}) {
    SimResult r = simulate(c, w, name);
    std::vector<std::tuple<double, int, int32_t, int>> ev;  // time, +1/-1 (ends first), node, type
    for (size_t i = 0; i < r.att_task.size(); ++i) {
      const int type = int(r.att_slot_type[i]);
      ev.emplace_back(r.att_start[i], +1, r.att_node[i], type);
      ev.emplace_back(r.att_finish[i], -1, r.att_node[i], type);
    }
    std::sort(ev.begin(), ev.end());
    std::map<std::pair<int32_t, int>, int> busy;
    for (auto& [t, d, node, type] : ev) {
      int& b = busy[{node, type}];
      b += d;
      ASSERT_LE(b, type == kMap ? c.map_slots[node] : c.reduce_slots[node]) << name << " node " << node << " t=" << t;
    }
    size_t succeeded = 0;
    for (auto s : r.att_status) succeeded += s == kSucceeded;
    EXPECT_EQ(succeeded, w.n_tasks()) << name;
    for (size_t j = 0; j < w.n_jobs(); ++j) EXPECT_FALSE(std::isnan(r.job_finish[j])) << name;
  }
}

// A sleeping node's heartbeat times, found by whole binades at once, are exactly the sums the engine
// would have computed one interval at a time (rounding ties included).
TEST(HeartbeatChain, MatchesStepByStepSums) {
  Random rng(7, 0);
  const double intervals[] = {1.0, 0.3, 0.7, 3.0, 0.1, 1.0 / 3.0, 0.5 + 0x1p-40, 10.0, 0.25};
  for (double interval : intervals) {
    for (int trial = 0; trial < 40; ++trial) {
      double c = trial == 0 ? 0.0 : rng.uniform() * std::pow(10.0, double(rng.below(8)));
      const double target = c + rng.uniform() * interval * std::pow(10.0, double(rng.below(6)));
      double x = c;
      uint64_t n = 0;
      while (x < target) { x += interval; ++n; }
      uint64_t steps = 0;
      EXPECT_EQ(mr::heartbeat_chain(c, interval, target, UINT64_MAX, steps), x) << c << " " << interval << " " << target;
      EXPECT_EQ(steps, n);
      // and by a number of steps
      const uint64_t k = n / 2 + 1;
      double y = c;
      for (uint64_t i = 0; i < k; ++i) y += interval;
      EXPECT_EQ(mr::heartbeat_chain(c, interval, INFINITY, k, steps), y);
      EXPECT_EQ(steps, k);
    }
  }
}

// push_at_seq: an event put between two pushes' sequence numbers fires between them at equal times.
TEST(EventQueue, PushAtSeqOrdersAmongSimultaneousEvents) {
  EventQueue q;
  q.set_seq_stride(8);
  const uint64_t first = q.next_seq();
  q.push(5.0, 1);
  const uint64_t second = q.next_seq();
  q.push(5.0, 2);
  q.push_at_seq(5.0, second - 8 + 1, 3);  // after the first push, before the second
  q.push_at_seq(5.0, first - 8 + 1, 4);   // before both
  std::vector<uint32_t> order;
  while (!q.empty()) order.push_back(q.pop().kind);
  EXPECT_EQ(order, (std::vector<uint32_t>{4, 1, 3, 2}));
  EXPECT_EQ(q.pushed(), 2u);
}

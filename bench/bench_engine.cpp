// Throughput of the MapReduce engine from C++ alone (no Python in the process), for profiling:
//
//   build/ctest/bench_engine [scheduler=fair] [jobs/s=0.1] [tasks=1000000] [nodes=10000] [repeats=3]
//
// The workload has the shape of bench/bench_mapreduce.py's synthetic one: jobs of 400 maps and
// 100 reduces (work exponential, means 40 s and 60 s) from 20 users, Poisson arrivals, on nodes
// with 2 map and 2 reduce slots, 40 nodes per rack; the engine draws 3 replicas per map.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "schedlab/cluster.h"
#include "schedlab/random.h"
#include "schedlab/registry.h"
#include "schedlab/workload.h"

using namespace schedlab;

static double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

int main(int argc, char** argv) {
  const std::string scheduler = argc > 1 ? argv[1] : "fair";
  const double rate = argc > 2 ? std::atof(argv[2]) : 0.1;
  const long tasks = argc > 3 ? std::atol(argv[3]) : 1000000;
  const int nodes = argc > 4 ? std::atoi(argv[4]) : 10000;
  const int repeats = argc > 5 ? std::atoi(argv[5]) : 3;
  const int maps = 400, reduces = 100;
  const long jobs = std::max(1L, tasks / (maps + reduces));

  const Cluster cluster = Cluster::uniform(nodes, std::max(1, nodes / 40), 2, 2);
  Workload wl;
  Random rng(1);
  double t = 0;
  wl.task_begin.push_back(0);
  for (long j = 0; j < jobs; ++j) {
    t += rng.exponential(1.0 / rate);
    wl.submit_time.push_back(t);
    wl.user.push_back(int32_t(rng.below(20)));
    wl.n_maps.push_back(maps);
    for (int k = 0; k < maps + reduces; ++k) {
      wl.task_job.push_back(int32_t(j));
      wl.task_stage.push_back(k < maps ? kMap : kReduce);
      wl.work.push_back(rng.exponential(k < maps ? 40.0 : 60.0));
    }
    wl.task_begin.push_back(int64_t(wl.task_job.size()));
  }
  wl.finalize();

  RunRequest req;
  req.cluster = &cluster;
  req.workload = &wl;
  req.scheduler = scheduler;
  double best = 1e300;
  uint64_t events = 0;
  for (int r = 0; r < repeats; ++r) {
    const double c0 = cpu_seconds();
    const SimResult res = run(req);
    best = std::min(best, cpu_seconds() - c0);
    events = res.events;
  }
  std::printf("%s, %.2f jobs/s: %ld jobs, %zu tasks, %d nodes: %llu events in %.3f s of CPU (best of %d) = %.2f M events/s, %.3f M tasks/s\n",
              scheduler.c_str(), rate, jobs, wl.n_tasks(), nodes, static_cast<unsigned long long>(events), best, repeats,
              double(events) / best / 1e6, double(wl.n_tasks()) / best / 1e6);
  return 0;
}

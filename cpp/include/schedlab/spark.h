// A model of Apache Spark's task scheduling inside one application (Spark 3.x core:
// org.apache.spark.scheduler.{DAGScheduler, TaskSchedulerImpl, TaskSetManager, Pool,
// FIFOSchedulingAlgorithm, FairSchedulingAlgorithm, FairSchedulableBuilder},
// CoarseGrainedSchedulerBackend and ExecutorAllocationManager), as an engine of its own.
//
// How the workload maps onto Spark's objects:
//  * a workload job is a Spark *stage* (one task set; its tasks are the stage's partitions);
//    the job's `parents` are the stages it reads shuffle output from, and its `dag` is the
//    Spark *job* it belongs to (Result.dags are the Spark jobs; the FIFO priority of a task
//    set is its Spark job's id, then its stage id, as FIFOSchedulingAlgorithm orders them);
//  * a job's `user` is its fair scheduler pool (the spark.scheduler.pool local property);
//  * a cluster node is an *executor* with `slots` cores; executors_per_host consecutive nodes
//    share a host, and nodes keep their rack;
//  * a task's `replicas` are its preferred locations: executors holding a cached partition
//    (ExecutorCacheTaskLocation: PROCESS_LOCAL on it, NODE_LOCAL on its host) or, with
//    preferred_locations='host', the hosts of those executors (HostTaskLocation: NODE_LOCAL).
//
// Events: a stage's task set is submitted when its Spark job is submitted and its parent
// stages have finished (plus stage_submit_delay); the backend then revives offers to every
// executor. A task's end frees its core and makes an offer of that executor alone; the revive
// timer offers every executor with free cores each spark.scheduler.revive.interval.
// TaskSchedulerImpl.resourceOffers takes the task sets in pool order and, for each, every
// locality level it has (PROCESS_LOCAL, NODE_LOCAL, NO_PREF, RACK_LOCAL, ANY), offering the
// shuffled free cores until no task launches at that level; TaskSetManager.resourceOffer caps
// the level by delay scheduling (getAllowedLocalityLevel, spark.locality.wait*), with the
// timer reset of Spark 3.1+ (reset only after an offer round without delay rejections) or the
// legacy reset on every launch. Speculation and dynamic allocation run on their own timers.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "schedlab/cluster.h"
#include "schedlab/event_queue.h"
#include "schedlab/params.h"
#include "schedlab/random.h"
#include "schedlab/registry.h"
#include "schedlab/results.h"
#include "schedlab/workload.h"

namespace schedlab::spark {

// TaskLocality, in Spark's order (lower = more local).
enum Level : uint8_t { kProcessLocal = 0, kNodeLocal = 1, kNoPref = 2, kRackLocal = 3, kAny = 4 };

struct Options {
  double locality_wait = 3.0;          // spark.locality.wait
  double locality_wait_process = -1;   // spark.locality.wait.process (< 0: locality_wait)
  double locality_wait_node = -1;      // spark.locality.wait.node
  double locality_wait_rack = -1;      // spark.locality.wait.rack
  bool legacy_locality_reset = false;  // spark.locality.wait.legacyResetOnTaskLaunch
  double revive_interval = 1.0;        // spark.scheduler.revive.interval
  int32_t task_cpus = 1;               // spark.task.cpus
  bool shuffle_offers = true;          // TaskSchedulerImpl.shuffleOffers (seeded)
  int32_t executors_per_host = 1;
  bool host_preferences = false;       // replicas name hosts (NODE_LOCAL) instead of executors
  bool rack_locality = true;           // racks known (YARN topology); else no RACK_LOCAL level
  // speculation
  bool speculation = false;                  // spark.speculation
  double speculation_interval = 0.1;         // spark.speculation.interval
  double speculation_multiplier = 1.5;       // spark.speculation.multiplier
  double speculation_quantile = 0.75;        // spark.speculation.quantile
  double speculation_min_task_runtime = 0.1; // spark.speculation.minTaskRuntime
  // dynamic allocation
  bool dynamic_allocation = false;           // spark.dynamicAllocation.enabled
  int32_t min_executors = 0;                 // spark.dynamicAllocation.minExecutors
  int32_t max_executors = std::numeric_limits<int32_t>::max();  // ...maxExecutors (capped at the nodes)
  int32_t initial_executors = -1;            // ...initialExecutors (< 0: minExecutors)
  double executor_allocation_ratio = 1.0;    // ...executorAllocationRatio
  double backlog_timeout = 1.0;              // ...schedulerBacklogTimeout
  double sustained_backlog_timeout = -1;     // ...sustainedSchedulerBacklogTimeout (< 0: backlog_timeout)
  double executor_idle_timeout = 60.0;       // ...executorIdleTimeout
  double allocation_interval = 0.1;          // ExecutorAllocationManager's schedule period (100 ms)
  // fixed costs of the real system (calibrated model parameters; 0 = none)
  double executor_start_time = 0;   // from the request (or the application's start) to registration
  double task_launch_overhead = 0;  // added to every attempt (launch RPC, deserialization, result)
  double first_task_overhead = 0;   // added to the first attempt on each core of an executor (worker start)
  double stage_submit_delay = 0;    // from parents' end (or job submission) to the task set's submission
  double stage_fetch_overhead = 0;  // added to the first attempt of a stage on each executor (task binary fetch)
  double time_limit = std::numeric_limits<double>::infinity();
  // failures (TaskSetManager.handleFailedTask, executorLost)
  int32_t max_failures = 4;                  // spark.task.maxFailures
  double task_failure_probability = 0;      // each attempt fails with this probability (seeded)
  bool shuffle_service = false;             // spark.shuffle.service.enabled: lost executors keep map outputs
  std::string faults;                       // executor crashes: crash:NODE:AT:RESTART_AFTER, mtbf:...
  int32_t max_consecutive_attempts = 4;     // spark.stage.maxConsecutiveAttempts (fetch failures)
  double resubmit_timeout = 0.2;            // DAGScheduler.RESUBMIT_TIMEOUT: fetch failure to re-submission
  // several applications: Spark standalone's Master shares the nodes (its workers)
  bool spread_out = true;                   // spark.deploy.spreadOut
  int32_t default_cores = 0;                // spark.deploy.defaultCores (0: unlimited, Int.MaxValue)
  int32_t cores_max = 0;                    // spark.cores.max of every application (0: unset, defaultCores)
  int32_t executor_cores = 0;               // spark.executor.cores (0: unset, one executor per worker, all its free cores)
  // visit only the offers that can launch while delay scheduling admits local tasks only (the
  // same schedule; false visits every offer, as Spark does: for tests)
  bool sparse_offers = true;
  // the Spark stage id of each workload job (the scheduler parameter `stage_ids`): a task set is
  // named TaskSet_<stage id>.0, which FAIR ties compare as strings, and FIFO orders the stages of
  // one Spark job by it; empty: the dense job ids
  std::vector<int64_t> stage_ids;

  static const std::vector<ParamSpec>& specs();
  static Options from(const Params& p);
};

// A fair scheduler pool (FairSchedulableBuilder): its name, mode inside, weight and minShare.
struct PoolSpec {
  std::string name;
  bool fair = false;  // schedulingMode inside the pool: FIFO (default) or FAIR
  double weight = 1;
  int32_t min_share = 0;
};

// An application on a standalone cluster: its registration time (NaN: its first job's
// submission), spark.cores.max and spark.executor.cores (0: the engine options').
struct AppSpec {
  double arrival = std::numeric_limits<double>::quiet_NaN();
  int32_t cores_max = 0;
  int32_t executor_cores = 0;
};

// Parses the scheduler parameter `applications` ("code,code,..." the application of each job;
// "" = one application, no cluster manager) and `application_settings`
// ("arrival/cores_max/executor_cores;..." by application code, empty fields: defaults).
std::vector<int32_t> parse_applications(const std::string& text, size_t n_jobs);
std::vector<AppSpec> parse_application_settings(const std::string& text);

// Runs several applications on a standalone cluster (the cluster's nodes are its workers).
SimResult simulate_standalone(const Cluster& workers, const Workload& workload, bool fair, const std::vector<PoolSpec>& pools,
                              const Options& options, const std::vector<int32_t>& app_of_job,
                              const std::vector<AppSpec>& specs, uint64_t seed);

// Parses the scheduler parameter `stage_ids` ("id,id,..." one whole number >= 0 per job; "" = none).
std::vector<int64_t> parse_stage_ids(const std::string& text, size_t n_jobs);

// Parses "code=name/MODE/weight/minShare;..." (the Python layer's encoding); pools without an
// entry are FIFO, weight 1, minShare 0, named "pool<code>" ("default" for code 0).
std::vector<PoolSpec> parse_pools(const std::string& text, int32_t n_pools);

void register_engine();

// Runs one simulation: fair = spark.scheduler.mode FAIR (pools), else FIFO.
SimResult simulate(const Cluster& cluster, const Workload& workload, bool fair, const std::vector<PoolSpec>& pools,
                   const Options& options, uint64_t seed);

}  // namespace schedlab::spark

// The workload model in columnar form: jobs and tasks in contiguous arrays addressed by
// integer ids. Tasks are sorted by (job, stage); stage 0 is the map stage and stage 1 the
// reduce stage of a MapReduce job (single-stage jobs have only stage 0). Actual work and the
// scheduler's estimate of it are kept apart.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace schedlab {

enum Stage : uint8_t { kMap = 0, kReduce = 1 };

struct Workload {
  // --- jobs (index = dense job id) ---
  std::vector<double> submit_time;
  std::vector<int32_t> user;      // pool / user id (dense, 0-based)
  std::vector<int32_t> queue;     // capacity-scheduler queue id (dense, 0-based)
  std::vector<double> weight;     // fair-share weight (> 0)
  std::vector<double> deadline;   // absolute time; NaN = none
  // Hadoop's JobPriority: 0 VERY_HIGH, 1 HIGH, 2 NORMAL (default), 3 LOW, 4 VERY_LOW. Hadoop's FIFO
  // queues order by it before submission time; the Fair Scheduler turns it into a weight factor.
  std::vector<int32_t> priority;
  std::vector<int64_t> task_begin;  // size n_jobs + 1; job j owns tasks [task_begin[j], task_begin[j+1])
  std::vector<int32_t> n_maps;      // tasks of stage 0; the rest of the job's tasks are stage 1

  // --- tasks (index = dense task id) ---
  std::vector<int32_t> task_job;
  std::vector<uint8_t> task_stage;
  std::vector<double> work;           // seconds at speed 1 (actual)
  std::vector<double> estimate;       // scheduler-visible estimate of work (defaults to work)
  std::vector<double> input_bytes;    // map input (block) bytes; reduce shuffle input bytes
  std::vector<double> output_bytes;   // map output (intermediate) bytes
  std::vector<double> vcores;         // container demand
  std::vector<double> memory;
  // Input block replicas: task t's replica nodes are replica_node[replica_begin[t] .. replica_begin[t+1]).
  std::vector<int64_t> replica_begin;  // size n_tasks + 1 (may be empty = no locality info)
  std::vector<int32_t> replica_node;
  // --- placement constraints (jobs) ---
  // Job j may run only on nodes eligible_node[eligible_begin[j] .. eligible_begin[j+1]); an empty
  // range, or an empty eligible_begin, means any node.
  std::vector<int64_t> eligible_begin;  // size n_jobs + 1 (may be empty = unconstrained)
  std::vector<int32_t> eligible_node;
  // --- job dependencies (DAGs of MapReduce jobs, as Pig/Hive/Oozie run them on Hadoop 1) ---
  // Job j may be submitted only when every job parent_job[parent_begin[j] .. parent_begin[j+1])
  // has finished: it enters the scheduler at max(submit_time[j], the last parent's finish).
  // Parents have smaller job ids than their children (see validate()). An empty parent_begin
  // means no dependencies.
  std::vector<int64_t> parent_begin;  // size n_jobs + 1 (may be empty = independent jobs)
  std::vector<int32_t> parent_job;
  // The DAG (workflow) each job belongs to: dense ids in [0, n_jobs); default (filled by
  // finalize()): the job's own id.
  std::vector<int32_t> dag;

  size_t n_jobs() const { return submit_time.size(); }
  size_t n_tasks() const { return task_job.size(); }
  int64_t n_reduces(size_t j) const { return task_begin[j + 1] - task_begin[j] - n_maps[j]; }
  bool has_deadline(size_t j) const { return !std::isnan(deadline[j]); }
  bool has_replicas() const { return !replica_begin.empty(); }
  bool has_constraints() const { return !eligible_begin.empty(); }
  bool has_dependencies() const { return !parent_job.empty(); }

  // Fills optional columns with defaults (estimate = work, weight 1, ...) and checks every
  // invariant; throws std::invalid_argument naming the field and the row.
  void finalize();
  void validate(size_t n_nodes = 0) const;
};

}  // namespace schedlab

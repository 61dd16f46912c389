// The workload model in columnar form: jobs and tasks in contiguous arrays addressed by
// integer ids. Tasks are sorted by (job, stage); stage 0 is the map stage and stage 1 the
// reduce stage of a MapReduce job (single-stage jobs have only stage 0). Actual work and the
// scheduler's estimate of it are kept apart.
#pragma once
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace schedlab {

enum Stage : uint8_t { kMap = 0, kReduce = 1 };

// A per-task column of numbers, read as column[task]. Stored either one value per task, or, when
// every task of each (job, stage) has the same value (trace readers that derive a job's tasks
// from its figures, and the defaults), one value per (job, stage): 16 bytes per job instead of 8
// per task. In that second form it reads the task's job and stage from the workload it belongs to
// (bound by Workload; tasks are grouped by job and stage). Writing through it (push_back, a
// non-const [], assign) turns it back into one value per task.
class TaskColumn {
 public:
  TaskColumn() = default;
  TaskColumn(std::initializer_list<double> v) : TaskColumn(std::vector<double>(v)) {}
  TaskColumn(std::vector<double> v) { set_values(std::move(v)); }  // NOLINT: a vector is a column
  TaskColumn& operator=(std::vector<double> v) {
    set_values(std::move(v));
    std::vector<double>().swap(blocks_);
    n_ = 0;
    return *this;
  }
  TaskColumn& operator=(std::initializer_list<double> v) { return *this = std::vector<double>(v); }

  double operator[](size_t t) const { return blocks_.empty() ? data_[t] : blocks_[2 * size_t(job_[t]) + stage_[t]]; }
  double& operator[](size_t t) { return own()[t]; }
  // column[t] for a task t of `job`'s `stage`, known to the caller: read without the task's job
  // and stage columns
  double of(size_t t, int32_t job, uint8_t stage) const {
    return blocks_.empty() ? data_[t] : blocks_[2 * size_t(job) + stage];
  }
  size_t size() const { return blocks_.empty() ? (v_ ? v_->size() : 0) : n_; }
  bool empty() const { return size() == 0; }
  void push_back(double x) {
    own().push_back(x);
    data_ = v_->data();
  }
  void reserve(size_t n) {
    own().reserve(n);
    data_ = v_->data();
  }
  void assign(size_t n, double x) { *this = std::vector<double>(n, x); }

  // One value per (job, stage): block 2j + s holds every task of job j's stage s.
  bool per_block() const { return !blocks_.empty(); }
  const std::vector<double>& blocks() const { return blocks_; }
  // one per task (empty in the per-block form)
  const std::vector<double>& values() const {
    static const std::vector<double> none;
    return v_ ? *v_ : none;
  }
  // The same values one per task (a copy), and the bytes it holds.
  std::vector<double> to_vector() const;
  size_t nbytes() const { return ((v_ ? v_->capacity() : 0) + blocks_.capacity()) * sizeof(double); }
  // Whether its values per task are the very array `o` holds (a copy of a column shares them
  // until one of the two is written): their bytes are held once.
  bool shares_values(const TaskColumn& o) const { return v_ && v_ == o.v_; }
  // Makes it per-block when its values allow: each (job, stage) of `job`/`stage` (n tasks, of
  // `n_jobs` jobs) holds one value; whether it is per-block now. With `data` (n values), those
  // values are taken instead of the column's own, if they allow (else the column is unchanged).
  bool compact(const int32_t* job, const uint8_t* stage, size_t n, size_t n_jobs, const double* data = nullptr);
  // One value per (job, stage) given (2 x jobs values, block 2j + s for job j's stage s) for n
  // tasks; bound to the workload's job and stage columns by Workload::finalize.
  void set_blocks(std::vector<double> blocks, size_t n) {
    v_.reset();
    data_ = nullptr;
    if (n == 0 || blocks.empty()) {  // (no tasks: an empty column)
      std::vector<double>().swap(blocks_);
      n_ = 0;
      return;
    }
    blocks_ = std::move(blocks);
    n_ = n;
  }
  // The same value for every task of n tasks of n_jobs jobs.
  void fill(const int32_t* job, const uint8_t* stage, size_t n, size_t n_jobs, double x);
  void bind(const int32_t* job, const uint8_t* stage) {
    job_ = job;
    stage_ = stage;
  }

 private:
  void expand();  // back to one value per task
  void set_values(std::vector<double> v) {
    v_ = std::make_shared<std::vector<double>>(std::move(v));
    data_ = v_->data();
  }
  // The values per task, its own to write: expanded from the per-block form, and copied first
  // when another column shares them.
  std::vector<double>& own() {
    expand();
    if (!v_) set_values({});
    else if (v_.use_count() > 1) set_values(*v_);
    return *v_;
  }
  // One value per task, shared by copies of the column until one of them writes (a workload's
  // estimate, given no values of its own, is its work column); data_ is its first value.
  std::shared_ptr<std::vector<double>> v_;
  const double* data_ = nullptr;
  std::vector<double> blocks_;
  size_t n_ = 0;  // tasks, in the per-block form
  const int32_t* job_ = nullptr;
  const uint8_t* stage_ = nullptr;
};

struct WorkloadColumns {
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
  TaskColumn work;           // seconds at speed 1 (actual)
  TaskColumn estimate;       // scheduler-visible estimate of work (defaults to work)
  TaskColumn input_bytes;    // map input (block) bytes; reduce shuffle input bytes
  TaskColumn output_bytes;   // map output (intermediate) bytes
  TaskColumn vcores;         // container demand
  TaskColumn memory;
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
};

// The workload: its columns (WorkloadColumns), the per-task ones bound to its own task_job and
// task_stage (a copy or a move binds them again).
struct Workload : WorkloadColumns {
  Workload() = default;
  Workload(const Workload& o) : WorkloadColumns(o) { bind(); }
  Workload(Workload&& o) noexcept : WorkloadColumns(std::move(o)) { bind(); }
  Workload& operator=(const Workload& o) {
    WorkloadColumns::operator=(o);
    bind();
    return *this;
  }
  Workload& operator=(Workload&& o) noexcept {
    WorkloadColumns::operator=(std::move(o));
    bind();
    return *this;
  }
  void bind() {
    for (TaskColumn* c : {&work, &estimate, &input_bytes, &output_bytes, &vcores, &memory})
      c->bind(task_job.data(), task_stage.data());
  }
  size_t nbytes() const;  // bytes held by the columns

  size_t n_jobs() const { return submit_time.size(); }
  size_t n_tasks() const { return task_job.size(); }
  int64_t n_reduces(size_t j) const { return task_begin[j + 1] - task_begin[j] - n_maps[j]; }
  bool has_deadline(size_t j) const { return !std::isnan(deadline[j]); }
  bool has_replicas() const { return !replica_begin.empty(); }
  bool has_constraints() const { return !eligible_begin.empty(); }
  bool has_dependencies() const { return !parent_job.empty(); }

  // Set where the columns are handed out read-only once finalize() has checked them (the Python
  // binding's workloads): they cannot change after, so a run checks only what depends on its
  // cluster (validate_for_run).
  bool sealed = false;

  // Fills optional columns with defaults (estimate = work, weight 1, ...) and checks every
  // invariant; throws std::invalid_argument naming the field and the row.
  void finalize();
  void validate(size_t n_nodes = 0) const;
  // What a run on n_nodes nodes checks: every invariant (validate), or for a sealed workload
  // only that the nodes its replicas and constraints name exist.
  void validate_for_run(size_t n_nodes) const;

 private:
  void check_replica_nodes(size_t n_nodes) const;
  void check_eligible_nodes(size_t n_nodes) const;
};

}  // namespace schedlab

#include "schedlab/workload.h"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace schedlab {

namespace {
std::string job_field(const char* f, size_t j) { return std::string("job field '") + f + "' of job " + std::to_string(j); }
std::string task_field(const char* f, size_t t) { return std::string("task field '") + f + "' of task " + std::to_string(t); }
template <class V>
void fill(V& v, size_t n, typename V::value_type x) {
  if (v.empty()) v.assign(n, x);
}
}  // namespace

std::vector<double> TaskColumn::to_vector() const {
  if (blocks_.empty()) return values();
  std::vector<double> out(n_);
  for (size_t t = 0; t < n_; ++t) out[t] = (*this)[t];
  return out;
}

void TaskColumn::expand() {
  if (blocks_.empty()) return;
  std::vector<double> v = to_vector();
  *this = std::move(v);
}

bool TaskColumn::compact(const int32_t* job, const uint8_t* stage, size_t n, size_t n_jobs, const double* data) {
  if (!blocks_.empty()) return true;
  if (!data) {
    if (size() != n) return false;
    data = data_;
  }
  if (n == 0 || n_jobs == 0) return false;
  std::vector<double> blocks(2 * n_jobs, 0.0);
  std::vector<uint8_t> seen(2 * n_jobs, 0);
  for (size_t t = 0; t < n; ++t) {
    if (job[t] < 0 || size_t(job[t]) >= n_jobs || stage[t] > 1) return false;  // (validate() names the row)
    const size_t b = 2 * size_t(job[t]) + stage[t];
    // (bitwise: NaN, -0.0 and +0.0 stay as given)
    if (!seen[b]) {
      seen[b] = 1;
      blocks[b] = data[t];
    } else if (std::memcmp(&blocks[b], &data[t], sizeof(double)) != 0) {
      return false;
    }
  }
  v_.reset();
  data_ = nullptr;
  blocks_ = std::move(blocks);
  n_ = n;
  bind(job, stage);
  return true;
}

void TaskColumn::fill(const int32_t* job, const uint8_t* stage, size_t n, size_t n_jobs, double x) {
  if (n == 0 || n_jobs == 0) {
    *this = std::vector<double>(n, x);
    return;
  }
  v_.reset();
  data_ = nullptr;
  blocks_.assign(2 * n_jobs, x);
  n_ = n;
  bind(job, stage);
}

size_t Workload::nbytes() const {
  size_t b = 0;
  auto add = [&](const auto& v) { b += v.capacity() * sizeof(v[0]); };
  add(submit_time); add(user); add(queue); add(weight); add(deadline); add(priority); add(task_begin); add(n_maps);
  add(task_job); add(task_stage); add(replica_begin); add(replica_node); add(eligible_begin); add(eligible_node);
  add(parent_begin); add(parent_job); add(dag);
  const TaskColumn* cols[] = {&work, &estimate, &input_bytes, &output_bytes, &vcores, &memory};
  for (size_t i = 0; i < 6; ++i) {
    bool counted = false;  // (values shared with a column before it are counted there)
    for (size_t k = 0; k < i; ++k) counted |= cols[i]->shares_values(*cols[k]);
    b += counted ? cols[i]->blocks().capacity() * sizeof(double) : cols[i]->nbytes();
  }
  return b;
}

void Workload::finalize() {
  const size_t nj = submit_time.size(), nt = task_job.size();
  fill(user, nj, 0);
  fill(queue, nj, 0);
  fill(weight, nj, 1.0);
  fill(priority, nj, 2);
  fill(deadline, nj, std::numeric_limits<double>::quiet_NaN());
  if (dag.empty()) {
    dag.resize(nj);
    for (size_t j = 0; j < nj; ++j) dag[j] = static_cast<int32_t>(j);
  }
  fill(task_stage, nt, kMap);
  // columns of one value per (job, stage) are kept so (the defaults too)
  const bool blocks_ok = task_job.size() == nt && task_stage.size() == nt;
  for (TaskColumn* c : {&work, &estimate, &input_bytes, &output_bytes, &vcores, &memory})
    if (blocks_ok) c->compact(task_job.data(), task_stage.data(), nt, nj);
  if (estimate.empty()) estimate = work;  // (shares work's values: no copy)
  auto fill_column = [&](TaskColumn& c, double x) {
    if (!c.empty()) return;
    if (blocks_ok) c.fill(task_job.data(), task_stage.data(), nt, nj, x);
    else c.assign(nt, x);
  };
  fill_column(input_bytes, 0.0);
  fill_column(output_bytes, 0.0);
  fill_column(vcores, 1.0);
  fill_column(memory, 1024.0);
  bind();
  if (task_begin.empty()) {
    // derive from task_job (tasks must be sorted by job)
    task_begin.assign(nj + 1, 0);
    for (size_t t = 0; t < nt; ++t) {
      if (task_job[t] < 0 || static_cast<size_t>(task_job[t]) >= nj)
        throw std::invalid_argument(task_field("job", t) + " refers to an unknown job");
      task_begin[task_job[t] + 1]++;
    }
    for (size_t j = 0; j < nj; ++j) task_begin[j + 1] += task_begin[j];
  }
  if (n_maps.empty()) {
    n_maps.assign(nj, 0);
    for (size_t t = 0; t < nt; ++t)
      if (task_stage[t] == kMap) n_maps[task_job[t]]++;
  }
  validate();
}

// (n_nodes 0: any node id >= 0)
void Workload::check_replica_nodes(size_t n_nodes) const {
  for (size_t i = 0; i < replica_node.size(); ++i)
    if (replica_node[i] < 0 || (n_nodes && static_cast<size_t>(replica_node[i]) >= n_nodes))
      throw std::invalid_argument("workload field 'replicas': replica " + std::to_string(i) + " names node " +
                                  std::to_string(replica_node[i]) + ", which is not in the cluster");
}

void Workload::check_eligible_nodes(size_t n_nodes) const {
  for (size_t j = 0; j + 1 < eligible_begin.size(); ++j)
    for (int64_t k = eligible_begin[j]; k < eligible_begin[j + 1]; ++k)
      if (eligible_node[k] < 0 || (n_nodes && static_cast<size_t>(eligible_node[k]) >= n_nodes))
        throw std::invalid_argument(job_field("eligible_nodes", j) + " names node " + std::to_string(eligible_node[k]) +
                                    ", which is not in the cluster");
}

void Workload::validate_for_run(size_t n_nodes) const {
  if (!sealed) return validate(n_nodes);
  check_replica_nodes(n_nodes);
  check_eligible_nodes(n_nodes);
}

void Workload::validate(size_t n_nodes) const {
  const size_t nj = submit_time.size(), nt = task_job.size();
  auto need = [&](const char* f, size_t got, size_t want, const char* per) {
    if (got != want)
      throw std::invalid_argument(std::string("workload field '") + f + "' has " + std::to_string(got) +
                                  " entries, expected one per " + per + " (" + std::to_string(want) + ")");
  };
  need("user", user.size(), nj, "job");
  need("queue", queue.size(), nj, "job");
  need("weight", weight.size(), nj, "job");
  need("priority", priority.size(), nj, "job");
  need("deadline", deadline.size(), nj, "job");
  need("n_maps", n_maps.size(), nj, "job");
  need("task_begin", task_begin.size(), nj + 1, "job plus one");
  need("stage", task_stage.size(), nt, "task");
  need("work", work.size(), nt, "task");
  need("estimate", estimate.size(), nt, "task");
  need("input_bytes", input_bytes.size(), nt, "task");
  need("output_bytes", output_bytes.size(), nt, "task");
  need("vcores", vcores.size(), nt, "task");
  need("memory", memory.size(), nt, "task");
  double prev = -std::numeric_limits<double>::infinity();
  for (size_t j = 0; j < nj; ++j) {
    if (!std::isfinite(submit_time[j]) || submit_time[j] < 0) throw std::invalid_argument(job_field("submit_time", j) + " must be a finite number >= 0");
    if (submit_time[j] < prev) throw std::invalid_argument(job_field("submit_time", j) + " is earlier than the previous job's: jobs must be sorted by submit time");
    prev = submit_time[j];
    if (!(weight[j] > 0) || !std::isfinite(weight[j])) throw std::invalid_argument(job_field("weight", j) + " must be a positive number");
    if (priority[j] < 0 || priority[j] > 4) throw std::invalid_argument(job_field("priority", j) + " must be 0 (VERY_HIGH) .. 4 (VERY_LOW)");
    if (user[j] < 0) throw std::invalid_argument(job_field("user", j) + " must not be negative");
    if (queue[j] < 0) throw std::invalid_argument(job_field("queue", j) + " must not be negative");
    if (task_begin[j + 1] <= task_begin[j]) throw std::invalid_argument(job_field("tasks", j) + ": the job has no tasks");
    if (n_maps[j] < 0 || n_maps[j] > task_begin[j + 1] - task_begin[j]) throw std::invalid_argument(job_field("n_maps", j) + " is inconsistent with its tasks");
    for (int64_t t = task_begin[j]; t < task_begin[j + 1]; ++t) {
      if (task_job[t] != static_cast<int32_t>(j)) throw std::invalid_argument(task_field("job", t) + " is out of order: tasks must be grouped by job");
      const bool is_map = (t - task_begin[j]) < n_maps[j];
      if ((task_stage[t] == kMap) != is_map) throw std::invalid_argument(task_field("stage", t) + " is out of order: a job's map tasks must come before its reduce tasks");
    }
  }
  if (!task_begin.empty() && static_cast<size_t>(task_begin[nj]) != nt) throw std::invalid_argument("workload field 'task_begin' does not cover every task");
  // The per-task checks below, done first on the values the columns hold (a column held per
  // (job, stage) holds a job's few values, not one per task); only when one fails are the tasks
  // scanned, for the first offending task's message.
  auto holds = [](const TaskColumn& c, auto ok) {
    const std::vector<double>& v = c.per_block() ? c.blocks() : c.values();
    bool all = true;
    for (double x : v) all &= ok(x);
    return all;
  };
  auto finite_nonneg = [](double x) { return std::isfinite(x) && x >= 0; };
  auto nonneg = [](double x) { return x >= 0; };
  bool stages_ok = true;
  for (size_t t = 0; t < nt; ++t) stages_ok &= task_stage[t] <= kReduce;
  const bool tasks_ok = stages_ok && holds(work, finite_nonneg) && holds(estimate, finite_nonneg) &&
                        holds(input_bytes, nonneg) && holds(output_bytes, nonneg) && holds(vcores, nonneg) &&
                        holds(memory, nonneg);
  for (size_t t = 0; t < nt && !tasks_ok; ++t) {
    if (task_stage[t] > kReduce) throw std::invalid_argument(task_field("stage", t) + " must be 0 (map) or 1 (reduce)");
    if (!std::isfinite(work[t]) || work[t] < 0) throw std::invalid_argument(task_field("work", t) + " must be a finite number >= 0");
    if (!std::isfinite(estimate[t]) || estimate[t] < 0) throw std::invalid_argument(task_field("estimate", t) + " must be a finite number >= 0");
    if (!(input_bytes[t] >= 0) || !(output_bytes[t] >= 0)) throw std::invalid_argument(task_field("input_bytes/output_bytes", t) + " must not be negative");
    if (!(vcores[t] >= 0) || !(memory[t] >= 0)) throw std::invalid_argument(task_field("vcores/memory", t) + " must not be negative");
  }
  if (!replica_begin.empty()) {
    need("replica_begin", replica_begin.size(), nt + 1, "task plus one");
    for (size_t t = 0; t < nt; ++t)
      if (replica_begin[t + 1] < replica_begin[t]) throw std::invalid_argument(task_field("replicas", t) + " has a negative count");
    if (static_cast<size_t>(replica_begin[nt]) != replica_node.size()) throw std::invalid_argument("workload field 'replica_node' does not match 'replica_begin'");
    check_replica_nodes(n_nodes);
  }
  if (!eligible_begin.empty()) {
    need("eligible_begin", eligible_begin.size(), nj + 1, "job plus one");
    if (eligible_begin[0] != 0) throw std::invalid_argument("workload field 'eligible_begin' must start at 0");
    for (size_t j = 0; j < nj; ++j)
      if (eligible_begin[j + 1] < eligible_begin[j]) throw std::invalid_argument(job_field("eligible_nodes", j) + " has a negative count");
    if (static_cast<size_t>(eligible_begin[nj]) != eligible_node.size())
      throw std::invalid_argument("workload field 'eligible_node' does not match 'eligible_begin'");
    check_eligible_nodes(n_nodes);
  } else if (!eligible_node.empty()) {
    throw std::invalid_argument("workload field 'eligible_node' is given without 'eligible_begin'");
  }
  if (!dag.empty()) {  // (finalize() fills it; empty reads as every job its own DAG)
    need("dag", dag.size(), nj, "job");
    for (size_t j = 0; j < nj; ++j)
      if (dag[j] < 0 || static_cast<size_t>(dag[j]) >= nj)
        throw std::invalid_argument(job_field("dag", j) + " must be a DAG id in [0, " + std::to_string(nj) + ")");
  }
  if (!parent_begin.empty()) {
    need("parent_begin", parent_begin.size(), nj + 1, "job plus one");
    if (parent_begin[0] != 0) throw std::invalid_argument("workload field 'parent_begin' must start at 0");
    for (size_t j = 0; j < nj; ++j)
      if (parent_begin[j + 1] < parent_begin[j]) throw std::invalid_argument(job_field("parents", j) + " has a negative count");
    if (static_cast<size_t>(parent_begin[nj]) != parent_job.size())
      throw std::invalid_argument("workload field 'parent_job' does not match 'parent_begin'");
    // Acyclicity is checked cheaply and exactly by requiring every parent to have a smaller job
    // id than its child: the ids are then a topological order, so no cycle can exist, and the
    // check is O(edges). It costs no generality: jobs are sorted by submit time and a parent is
    // never submitted after its child (Workload.from_frames orders jobs of equal submit time by
    // their depth in the DAG, and rejects a parent submitted after its child).
    for (size_t j = 0; j < nj; ++j)
      for (int64_t k = parent_begin[j]; k < parent_begin[j + 1]; ++k) {
        const int32_t p = parent_job[k];
        if (p < 0 || static_cast<size_t>(p) >= nj)
          throw std::invalid_argument(job_field("parents", j) + " names job " + std::to_string(p) + ", which does not exist");
        if (static_cast<size_t>(p) == j) throw std::invalid_argument(job_field("parents", j) + " names the job itself");
        if (static_cast<size_t>(p) > j)
          throw std::invalid_argument(job_field("parents", j) + " names job " + std::to_string(p) +
                                      ", which comes later: parents must have smaller job ids than their children "
                                      "(a dependency cycle, or a parent submitted after its child)");
        for (int64_t q = parent_begin[j]; q < k; ++q)
          if (parent_job[q] == p) throw std::invalid_argument(job_field("parents", j) + " names job " + std::to_string(p) + " twice");
      }
  } else if (!parent_job.empty()) {
    throw std::invalid_argument("workload field 'parent_job' is given without 'parent_begin'");
  }
}

}  // namespace schedlab

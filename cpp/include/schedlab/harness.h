// The scheduler harness: a MapReduce-engine scheduler driven step by step, as Hadoop's own
// scheduler unit tests drive theirs (a fake JobTracker with named TaskTrackers, a fake clock,
// heartbeats called by hand, tasks finished by hand). It runs the very engine (mr::Sim) and
// scheduler code that `simulate` runs, in the engine's driven mode: no drawn durations, no
// periodic heartbeats; the caller advances the clock, makes trackers heartbeat and ends attempts.
//
// Names follow Hadoop 1's: jobs "job_test_0001", "job_test_0002", ... in submission order;
// attempts "attempt_test_0001_m_000000_0" (job number, m or r, task index within its type,
// attempt number). With TaskIds::Counter, the task number is instead a counter of the attempts
// handed out so far, starting at 1, as the fake job of Hadoop's TestJobQueueTaskScheduler names
// them; with TaskIds::PerJob a counter per job and type, as TestCapacityScheduler's fake job. An assignment reads "<attempt> on <tracker>".
//
// Pools and queues are named; the harness gives them dense ids in name order (Hadoop breaks ties
// between pools by name) and translates the keys of pool- and user-keyed scheduler parameters
// (e.g. min_shares "poolA:2") from names to ids. Jobs and trackers may be added at any time: the
// engine's workload and cluster are fixed when it starts, so the harness then starts a new engine
// with the larger workload and replays every action so far (the engine is deterministic: the
// replay reproduces the same state), which keeps tests small and the engine unchanged.
//
// Errors (std::invalid_argument): an unknown tracker, job or attempt name, the clock moved
// backwards, an attempt ended twice, a duplicate name, a bad job description.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedlab/mapreduce.h"

namespace schedlab::mr {

struct HarnessJob {
  int32_t maps = 0;
  // Input hosts of each map (tracker host names); empty: the job's maps have no locality
  // information (they may run anywhere). If given, one entry per map.
  std::vector<std::vector<std::string>> map_hosts;
  int32_t reduces = 0;
  std::string pool;               // pool (fair) / queue (capacity); "" = "default"
  std::string user = "user";      // the submitting user
  std::string priority = "NORMAL";  // VERY_HIGH, HIGH, NORMAL, LOW, VERY_LOW (fair: a weight factor)
  double weight = 1.0;            // extra fair-share weight factor (Hadoop's weight adjuster)
  double map_memory = 0, reduce_memory = 0;  // MB per task (containers / memory-aware schedulers)
  double deadline = std::numeric_limits<double>::quiet_NaN();
  double work = 1.0;              // a task's work (seconds at speed 1): what estimators read
  // Hadoop's job run state at submission: "RUNNING", or PREP, SUCCEEDED, FAILED, KILLED: such a
  // job gets its name but the JobTracker never hands it to the scheduler (the engine submits
  // only runnable jobs to schedulers).
  std::string state = "RUNNING";
  // Completed maps its reduces wait for (Hadoop's completedMapsForReduceSlowstart of this job);
  // -1: as the engine's slowstart option says.
  int32_t slowstart_maps = -1;
};

// How attempts number their task: its index within its job and type (Hadoop's own numbering), a
// counter of the attempts handed out so far over all jobs from 1 (TestJobQueueTaskScheduler's fake
// job), or a counter per job and type from 1, in the order its tasks are first handed out
// (TestCapacityScheduler's fake job).
enum class TaskIds { Index, Counter, PerJob };

struct Assignment {
  std::string attempt;   // attempt_test_0001_m_000000_0
  std::string tracker;
  int64_t id = -1;       // engine attempt id
  bool map = true;
  bool speculative = false;
  std::string str() const { return attempt + " on " + tracker; }
};

class Harness {
 public:
  Harness(std::string scheduler, ParamValues scheduler_params = {}, ParamValues options = {},
          TaskIds task_ids = TaskIds::Index);
  // A scheduler the registry does not hold (e.g. one written in Python): `factory` builds it for
  // each engine the harness starts, given that engine's workload (a replay starts a fresh one, so
  // the scheduler's init(sim) is called again); `label` names it in messages.
  using SchedulerFactory = std::function<std::unique_ptr<Scheduler>(const Workload&)>;
  Harness(SchedulerFactory factory, std::string label, ParamValues options = {}, TaskIds task_ids = TaskIds::Index);
  ~Harness();
  Harness(Harness&&) = default;
  Harness& operator=(Harness&&) = default;

  // A TaskTracker `name` on host `host` ("" = the name) of rack `rack`.
  void add_tracker(const std::string& name, const std::string& rack, int32_t map_slots, int32_t reduce_slots,
                   const std::string& host = "");
  // Submits a job now; returns its name (job_test_0001, ...). Throws if the scheduler refuses it
  // (mr::Scheduler::accepts); the name is taken all the same.
  std::string submit(const HarnessJob& job);
  // Changes a job's priority now (Hadoop's JobInProgress.setPriority): before any heartbeat since
  // its submission, as if given at submission; later, the workload's priority column changes and
  // the scheduler hears of it (mr::Scheduler::on_priority_changed) and re-sorts.
  void set_priority(const std::string& job, const std::string& priority);

  double now() const { return now_; }
  void advance(double seconds) { set_time(now_ + seconds); }
  void set_time(double t);

  // Tracker `name` heartbeats now: the attempts assigned to it, in order.
  std::vector<Assignment> heartbeat(const std::string& tracker);
  void finish(const std::string& attempt);
  void fail(const std::string& attempt);
  void kill(const std::string& attempt);
  void set_progress(const std::string& attempt, double progress);
  // Runs one of the scheduler's periodic actions now (mr::Scheduler::act; fair: "update",
  // "preempt"), as Hadoop's tests call them by hand.
  void act(const std::string& action);
  // Moves a running job to another pool (Hadoop's PoolManager.setPool; fair's "set_pool" action).
  void set_pool(const std::string& job, const std::string& pool);
  // Ends a running job now without success, `state` "KILLED" or "FAILED" (JobTracker.killJob,
  // finalizeJob(job, KILLED/FAILED) of Hadoop's tests; mr::Sim::end_job): its running attempts are
  // killed, or with `keep_attempts` hold their slots until finished or killed by hand (the tracker
  // has not reported them yet).
  void end_job(const std::string& job, const std::string& state, bool keep_attempts = false);
  // With hold_jobs(true) (Hadoop's fake jobs), a job whose tasks have all succeeded stays running
  // until finalize_job(job) (finalizeJob(job) of Hadoop's tests); default false: it completes when
  // its last task succeeds. Set it before the first action.
  void hold_jobs(bool hold);
  void finalize_job(const std::string& job);

  // ---- reading state ----
  SchedulerReport report();  // the scheduler's own state (fair shares, ...), ids as below
  const JobState& job_state(const std::string& job);
  int32_t job_id(const std::string& job) const;
  int32_t pool_id(const std::string& pool) const;   // throws for an unknown pool
  int32_t user_id(const std::string& user) const;   // throws for an unknown user
  int32_t tracker_id(const std::string& tracker) const { return node_of(tracker); }  // the engine's node id
  std::vector<std::string> pools() const;           // by id
  std::string attempt_status(const std::string& attempt);  // running, succeeded, killed, failed
  std::vector<std::string> running_attempts(const std::string& tracker);
  std::vector<std::string> assignments() const;     // every assignment so far, in order
  Sim& sim();                                       // the engine (for reading)
  SimResult result();

 private:
  struct Action {
    enum Kind : uint8_t { Submit, Heartbeat, Finish, Fail, Kill, Progress, Act, Join, Priority, EndJob, Finalize } kind;
    double time;
    int64_t target;  // job, node or attempt id
    double value = 0;
  };
  struct Tracker { std::string name, host, rack; int32_t map_slots, reduce_slots; };
  struct Job { HarnessJob spec; };
  void ensure();      // (re)builds the engine and replays the actions if jobs or trackers changed
  void apply(const Action& a, bool record_names);
  int32_t node_of(const std::string& tracker) const;
  int64_t attempt_of(const std::string& attempt) const;
  void name_new_attempts(int64_t from, int32_t node);
  ParamValues translated_params() const;

  std::string scheduler_;
  SchedulerFactory factory_;  // (empty: the registered scheduler scheduler_)
  ParamValues params_, options_;
  TaskIds task_ids_;
  std::vector<Tracker> trackers_;
  std::vector<Job> jobs_;
  std::vector<Action> log_;
  double now_ = 0;
  bool dirty_ = true;
  bool hold_ = false;  // hold_jobs
  std::map<std::string, int32_t> pool_ids_, user_ids_;
  // the current engine and what it was built from
  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<Workload> workload_;
  std::unique_ptr<Scheduler> sched_;
  std::unique_ptr<Speculator> spec_;
  std::unique_ptr<Sim> sim_;
  std::vector<std::string> attempt_names_;
  std::map<std::string, int64_t> attempt_ids_;
  std::vector<std::string> assigned_;
  int64_t counter_ = 0;
  std::vector<int32_t> attempts_of_task_;
  std::vector<int64_t> task_number_, job_counter_;  // TaskIds::PerJob
  std::vector<std::string> act_names_;  // the Act actions' names (by index)
};

}  // namespace schedlab::mr

// Shared building blocks of the distributed and hybrid schedulers on the worker engine
// [Zhou 2019; the Hawk/Eagle simulator, epfl-labos/eagle@371b51f]: batch sampling with late binding (Sparrow),
// centralized least-waiting-time placement of long jobs on the general partition (LWL), Hawk's
// randomized work stealing, and Eagle's Succinct State Sharing, Sticky Batch Probing and SRPT
// queues with a starvation cap. sparrow, hawk and eagle are configurations of HybridScheduler;
// Dice and Eirene extend it.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "schedlab/worker.h"

namespace schedlab::worker {

struct HybridConfig {
  bool central_long = true;  // LWL for long jobs (Hawk, Eagle); false: random probes (Sparrow)
  bool all_general = false;  // Sparrow: no short partition, every worker is general
  bool steal = false;        // Hawk's randomized stealing
  bool sss = false;          // Eagle's Succinct State Sharing
  bool sbp = false;          // Eagle's Sticky Batch Probing
  bool srpt = false;         // Eagle's SRPT queue order with the starvation cap
  double probe_ratio = 2;
  int64_t min_probes = 2;
  int64_t min_probes_long = 2;  // Sparrow mode: probes of a long job
  int64_t steal_attempts = 10;
  int64_t steal_limit = 10000;
  bool steal_random = false;    // extraction rule: ATC (false) or RANDOM
  double starvation_cap = 5;
  // The SRPT pick may pass blocks of a long queue where no probe can win, leaving their stale
  // probes for a later pick to drop: only where nothing reads queue lengths or moves probes
  // between queues (Eagle and Eirene; not Dice, whose preemption counts queued short probes)
  bool srpt_skips_blocks = false;
};

class HybridScheduler : public Scheduler {
 public:
  explicit HybridScheduler(const HybridConfig& cfg) : cfg_(cfg) {}
  void init(Sim& sim) override;
  void on_job_arrival(Sim& sim, int32_t job) override;
  void on_probe_arrival(Sim& sim, int32_t w, int32_t p) override;
  int32_t pick_probe(Sim& sim, int32_t w, bool short_only) override;
  const QueueEntry* pick_entry(Sim& sim, int32_t w, bool short_only) override;
  bool keep_probe(Sim& sim, int32_t w, int32_t p) override;
  void on_task_end(Sim& sim, int32_t w, int64_t a, bool first) override;
  void on_idle(Sim& sim, int32_t w) override;
  bool tracks_remaining() const override { return cfg_.srpt; }
  void finish(Sim& sim, SimResult& r) override;

 protected:
  // Long job: LWL over the general workers not blacklisted, one probe per task.
  void place_long(Sim& sim, int32_t job);
  // Short job: batch sampling over all workers (Sparrow/Hawk) or Eagle's SSS rounds.
  void probe_short_random(Sim& sim, int32_t job);
  void probe_short_sss(Sim& sim, int32_t job);
  QueueEntry* pick_srpt(Sim& sim, int32_t w, bool short_only);
  // Per worker, what the SRPT pick knows of each full block of kSrptBlock positions of its
  // queue array (valid while the array's layout is unchanged): a lower bound of the estimates of
  // the probes there that may still win, and the position of the short probe of least slack
  // (-1: none), whose slack is the block's while that probe is queued, its job has work left
  // and no pick has passed the block since (a pick adds its estimate to the delay of every probe
  // it passes). With exact_slacks_ a block passed whole keeps its note: the estimates are whole
  // numbers, the cap too, and their sums stay below 2^52, so every slack is an exact integer and
  // one added to all of a block's probes leaves its least-slack probe the same; otherwise
  // rounding could reorder near-equal slacks.
  static constexpr int32_t kSrptBlock = 32;
  struct SrptBlock {
    double min_est;
    int32_t least_slack;  // a position in the array, -1 if none
    bool valid;
  };
  struct SrptBlocks {
    uint32_t layout = 0;
    std::vector<SrptBlock> blocks;
  };
  std::vector<SrptBlocks> srpt_blocks_;
  bool exact_slacks_ = false;  // (the Hawk/Eagle simulator's configurations: estimates in whole seconds)
  int64_t n_probes(Sim& sim, int32_t job, int64_t minimum) const;
  bool blacklisted(int32_t w) const { return (blacklist_[w >> 6] >> (w & 63)) & 1ULL; }

  HybridConfig cfg_;
  int32_t W_ = 0, first_general_ = 0;
  // LWL state: estimated long work per worker, bitmap of workers with long work, and the
  // general workers with none (a bitset for a fast lowest-id scan).
  std::vector<double> qlen_;
  std::vector<uint64_t> bitmap_, empty_;
  // general workers that receive no new long task (Dice's Elastic Sizing); all clear otherwise
  std::vector<uint64_t> blacklist_;
  // Eagle: each worker's copy of the bitmap, taken when a long probe reaches it. Copies are
  // shared and never change: a worker holds the id of one, and a new copy is made only when the
  // bitmap changed since the last. Round 2 works out a copy's running counts of clear general
  // workers once, on first use.
  struct ClearRanks {
    std::vector<int64_t> prefix;  // per bitmap word: the clear general workers before it (and the total)
    // per block of kRankBlock ranks: the word holding the block's first clear general worker,
    // from which the word holding a rank in the block is at most a step or two away
    std::vector<int32_t> hint;
    static constexpr int kRankBlock = 8;
  };
  struct BitmapCopy {
    std::vector<uint64_t> bits;
    ClearRanks clear;  // empty until first used
    int64_t refs = 0;
  };
  std::vector<BitmapCopy> copies_;
  std::vector<int32_t> free_copies_;
  std::vector<int32_t> snap_copy_;   // per worker: its copy, -1 if none
  std::vector<double> snap_time_;
  int32_t current_copy_ = -1;        // a copy equal to the bitmap as it is now, -1 if none
  ClearRanks no_copy_clear_;  // round 2's counts when no probed worker holds a copy
  void bitmap_changed() {
    release_copy(current_copy_);
    current_copy_ = -1;
  }
  void release_copy(int32_t c) {
    if (c >= 0 && --copies_[c].refs == 0) {
      copies_[c].clear.prefix.clear();
      free_copies_.push_back(c);
    }
  }
  uint64_t general_mask(size_t word) const;
  const ClearRanks& clear_ranks(int32_t copy);
  // scratch (reused, no allocation per event once warm)
  std::vector<int32_t> targets_, round2_, empties_;
  // LWL's water-filling: the candidate workers (waiting time, id) and those that took tasks
  std::vector<std::pair<double, int32_t>> cand_, filled_;
  // counters
  double stolen_ = 0, steal_tries_ = 0, steals_ = 0, sticky_ = 0;
  double r1_probes_ = 0, r1_rejected_ = 0, r2_probes_ = 0, r2_rejected_ = 0, fallback_ = 0, lwl_jobs_ = 0,
         lwl_fill_ = 0;
};

// Registration of the schedulers built on HybridScheduler (one per file).
void register_dice_scheduler();
void register_eirene_scheduler();

}  // namespace schedlab::worker

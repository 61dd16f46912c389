// Sparrow, Hawk and Eagle on the worker engine, with the public Hawk/Eagle simulator's
// semantics [Zhou 2019, §2.2.1; the Hawk/Eagle simulator, epfl-labos/eagle@371b51f "Short jobs", "Long jobs",
// "Hawk work stealing", "Eagle short-job placement", "Eagle SBP and SRPT"]:
//   sparrow — batch sampling (max(ratio x tasks, min_probes) probes with replacement over all
//             workers) and late binding for every job; FIFO queues; no partitions.
//   hawk    — short jobs as in Sparrow; long jobs placed by the centralized least-waiting-time
//             scheduler (LWL) on the general partition; idle workers steal blocked short probes
//             (ATC rule) from random general-partition victims.
//   eagle   — Hawk without stealing, plus Succinct State Sharing (round 1 over all workers,
//             round 2 avoiding the freshest bitmap of workers with long work, fallback to the
//             short partition), Sticky Batch Probing and SRPT queues with a starvation cap.
//
// Deliberate differences from the simulator: randomness comes from schedlab's own streams (the
// simulator's unused "wasted" draws are not made, so results match as distributions, not
// draw for draw); same-time events of one class fire in creation order instead of by object
// address; when no probed worker holds a bitmap copy, round 2 treats every general worker as
// free of long work (the simulator's behaviour there is undefined).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "hybrid_common.h"

namespace schedlab::worker {

namespace {
inline void set_bit(std::vector<uint64_t>& b, int32_t i) { b[i >> 6] |= 1ULL << (i & 63); }
inline void clear_bit(std::vector<uint64_t>& b, int32_t i) { b[i >> 6] &= ~(1ULL << (i & 63)); }
inline bool test_bit(const std::vector<uint64_t>& b, int32_t i) { return (b[i >> 6] >> (i & 63)) & 1ULL; }
// The position of the k-th set bit of x, counting from 0 (k < the bits set): the byte holding it
// from running counts per byte (no popcount instruction assumed), then at most 7 steps in it.
inline int select_bit(uint64_t x, int64_t k) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  uint64_t c = x - ((x >> 1) & 0x5555555555555555ULL);
  c = (c & 0x3333333333333333ULL) + ((c >> 2) & 0x3333333333333333ULL);
  c = (c + (c >> 4)) & 0x0F0F0F0F0F0F0F0FULL;  // bits set per byte
  const uint64_t cum = c * kOnes;                // byte i: bits set in bytes 0..i (at most 64)
  // bytes whose running count is at most k: they lie before the one holding the bit
  const uint64_t before = ((static_cast<uint64_t>(k) * kOnes) | kHigh) - cum;
  const int byte = static_cast<int>(((((before & kHigh) >> 7) * kOnes) >> 56) & 0xFF);
  int64_t skip = k - (byte ? static_cast<int64_t>((cum >> (8 * (byte - 1))) & 0xFF) : 0);
  uint64_t b = (x >> (8 * byte)) & 0xFF;
  for (; skip > 0; --skip) b &= b - 1;
  return 8 * byte + __builtin_ctzll(b);
}
}  // namespace

void HybridScheduler::init(Sim& sim) {
  W_ = sim.n_workers();
  first_general_ = cfg_.all_general ? 0 : sim.first_general();
  if (cfg_.central_long && first_general_ >= W_)
    throw std::invalid_argument("simulate option 'short_partition' leaves no general-partition worker for long jobs");
  if (cfg_.sss && first_general_ == 0)
    throw std::invalid_argument("simulate option 'short_partition' gives no short-partition worker, which Eagle's "
                                "fallback probes need; raise it (e.g. 0.02)");
  const size_t words = (static_cast<size_t>(W_) + 63) / 64;
  qlen_.assign(W_, 0.0);
  bitmap_.assign(words, 0);
  empty_.assign(words, 0);
  blacklist_.assign(words, 0);
  for (int32_t w = first_general_; w < W_; ++w) set_bit(empty_, w);
  if (cfg_.srpt_skips_blocks) {
    srpt_blocks_.assign(static_cast<size_t>(W_), SrptBlocks{});
    double total = 0;
    exact_slacks_ = cfg_.starvation_cap == std::trunc(cfg_.starvation_cap);
    for (int32_t j = 0; j < int32_t(sim.workload().n_jobs()); ++j) {
      exact_slacks_ = exact_slacks_ && sim.est(j) == std::trunc(sim.est(j));
      total += sim.est(j) * sim.n_tasks(j);
    }
    exact_slacks_ = exact_slacks_ && (total + 1) * (cfg_.starvation_cap + 1) < 0x1p52;
  }
  if (cfg_.sss) {
    snap_copy_.assign(W_, -1);
    snap_time_.assign(W_, -1.0);
  }
}

// The general workers among those of bitmap word `word`.
uint64_t HybridScheduler::general_mask(size_t word) const {
  uint64_t general = ~0ULL;
  const int64_t lo = int64_t(word) * 64;
  if (lo < first_general_) general = first_general_ - lo >= 64 ? 0 : general << (first_general_ - lo);
  if (lo + 64 > W_) general &= W_ - lo >= 64 ? ~0ULL : ((1ULL << (W_ - lo)) - 1);
  return general;
}

// Running counts, word by word, of the general workers clear in bitmap copy `copy` (-1: no copy,
// every general worker counts as clear), and the word of every kRankBlock-th of them.
const HybridScheduler::ClearRanks& HybridScheduler::clear_ranks(int32_t copy) {
  ClearRanks& r = copy >= 0 ? copies_[copy].clear : no_copy_clear_;
  if (!r.prefix.empty()) return r;
  std::vector<int64_t>& prefix = r.prefix;
  const size_t words = bitmap_.size();
  prefix.assign(words + 1, 0);
  for (size_t k = 0; k < words; ++k) {
    const uint64_t clear = general_mask(k) & ~(copy >= 0 ? copies_[copy].bits[k] : 0ULL);
    prefix[k + 1] = prefix[k] + __builtin_popcountll(clear);
  }
  const int64_t total = prefix.back();
  r.hint.resize(static_cast<size_t>(total / ClearRanks::kRankBlock + 1));
  size_t word = 0;
  for (size_t b = 0; b < r.hint.size(); ++b) {
    const int64_t k = static_cast<int64_t>(b) * ClearRanks::kRankBlock;
    while (word + 1 < words && prefix[word + 1] <= k) ++word;
    r.hint[b] = static_cast<int32_t>(word);
  }
  return r;
}

int64_t HybridScheduler::n_probes(Sim& sim, int32_t job, int64_t minimum) const {
  const int64_t want = static_cast<int64_t>(std::ceil(cfg_.probe_ratio * sim.n_tasks(job) - 1e-9));
  return std::max(want, minimum);
}

void HybridScheduler::on_job_arrival(Sim& sim, int32_t job) {
  if (sim.is_long(job)) {
    if (cfg_.central_long) {
      place_long(sim, job);
    } else {
      const int64_t n = n_probes(sim, job, cfg_.min_probes_long);
      targets_.clear();
      for (int64_t i = 0; i < n; ++i)
        targets_.push_back(first_general_ + static_cast<int32_t>(sim.rng().below(W_ - first_general_)));
      sim.send_probes(job, targets_.data(), targets_.size(), sim.delay());
    }
  } else if (cfg_.sss) {
    probe_short_sss(sim, job);
  } else {
    probe_short_random(sim, job);
  }
}

void HybridScheduler::probe_short_random(Sim& sim, int32_t job) {
  const int64_t n = n_probes(sim, job, cfg_.min_probes);
  targets_.clear();
  for (int64_t i = 0; i < n; ++i) targets_.push_back(static_cast<int32_t>(sim.rng().below(W_)));
  sim.send_probes(job, targets_.data(), targets_.size(), sim.delay());
}

void HybridScheduler::probe_short_sss(Sim& sim, int32_t job) {
  const int64_t n = n_probes(sim, job, cfg_.min_probes);
  Random& rng = sim.rng();
  // round 1: all workers; a probe is accepted only where no long work runs or waits
  // (without branches on what the random workers hold: which way they go is a coin toss to a
  // branch predictor, and a miss would discard the memory reads of the draws after it)
  targets_.resize(static_cast<size_t>(n));
  int32_t fresh = -1;
  double fresh_t = -1;
  size_t accepted = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t w = static_cast<int32_t>(rng.below(W_));
    const double t = snap_time_[w];
    const bool fresher = t > fresh_t;
    fresh_t = fresher ? t : fresh_t;
    fresh = fresher ? w : fresh;
    targets_[accepted] = w;
    accepted += sim.has_long_work(w) ? 0 : 1;
  }
  targets_.resize(accepted);
  const int64_t missing = n - static_cast<int64_t>(accepted);
  r1_probes_ += double(n);
  r1_rejected_ += double(missing);
  sim.send_probes(job, targets_.data(), targets_.size(), sim.delay());
  if (missing == 0) return;

  // round 2: the short partition plus the general workers clear in the freshest bitmap copy
  const int32_t copy = fresh >= 0 ? snap_copy_[fresh] : -1;
  const ClearRanks& ranks = clear_ranks(copy);
  const std::vector<int64_t>& prefix = ranks.prefix;
  const int64_t candidates = first_general_ + prefix.back();
  round2_.resize(static_cast<size_t>(missing));
  size_t accepted2 = 0;
  for (int64_t i = 0; i < missing; ++i) {
    const int64_t r = static_cast<int64_t>(rng.below(candidates));
    int32_t w;
    if (r < first_general_) {
      w = static_cast<int32_t>(r);
    } else {
      // the (r - first_general)-th clear general bit
      const int64_t k = r - first_general_;
      // the last word whose count before it is <= k: from the word of k's block, one step
      // without a branch (whether it is taken is a coin toss to a branch predictor), then any
      // further steps, seldom needed (only past words with fewer clear workers than a block)
      size_t word = static_cast<size_t>(ranks.hint[static_cast<size_t>(k / ClearRanks::kRankBlock)]);
      word += prefix[word + 1] <= k ? 1 : 0;
      while (prefix[word + 1] <= k) ++word;
      const uint64_t clear = general_mask(word) & ~(copy >= 0 ? copies_[copy].bits[word] : 0ULL);
      w = static_cast<int32_t>(int64_t(word) * 64 + select_bit(clear, k - prefix[word]));
    }
    round2_[accepted2] = w;
    accepted2 += sim.has_long_work(w) ? 0 : 1;
  }
  round2_.resize(accepted2);
  const int64_t missing2 = missing - static_cast<int64_t>(accepted2);
  r2_probes_ += double(missing);
  r2_rejected_ += double(missing2);
  sim.send_probes(job, round2_.data(), round2_.size(), 2.0 * sim.delay());
  if (missing2 == 0) return;
  // fallback: the static short partition, which never holds long work
  round2_.clear();
  for (int64_t i = 0; i < missing2; ++i) round2_.push_back(static_cast<int32_t>(rng.below(first_general_)));
  fallback_ += double(missing2);
  sim.send_probes(job, round2_.data(), round2_.size(), 2.0 * sim.delay());
}

void HybridScheduler::place_long(Sim& sim, int32_t job) {
  const int32_t T = sim.n_tasks(job);
  const double est = sim.est(job);
  const double rtt = 2.0 * sim.delay();
  ++lwl_jobs_;
  // lowest-id empty eligible workers, up to T
  empties_.clear();
  const size_t words = empty_.size();
  for (size_t k = static_cast<size_t>(first_general_) >> 6; k < words && static_cast<int32_t>(empties_.size()) < T; ++k) {
    uint64_t b = empty_[k] & ~blacklist_[k];
    const int64_t lo = int64_t(k) * 64;
    while (b && static_cast<int32_t>(empties_.size()) < T) {
      empties_.push_back(static_cast<int32_t>(lo + __builtin_ctzll(b)));
      b &= b - 1;
    }
  }
  targets_.clear();
  if (static_cast<int32_t>(empties_.size()) == T) {
    targets_ = empties_;
  } else {
    // greedy water-filling on (estimated waiting time, worker id)
    ++lwl_fill_;
    // Only the `left` first entries in (waiting time, id) order can get a task: each turn hands
    // out at least one, and an entry takes its turn only after every entry before it. They are
    // selected while the entries are made: entries go to a buffer only if they precede its
    // threshold, and a full buffer keeps its `left` first entries (nth_element, linear) and takes
    // the last of them as the threshold, which then rejects most workers by one comparison. A
    // bounded heap would instead sift on each entry taken in, on comparisons a branch predictor
    // cannot foresee.
    const int32_t left0 = T - static_cast<int32_t>(empties_.size());
    const size_t keep = static_cast<size_t>(left0);
    const size_t cap = std::max<size_t>(2 * keep, keep + 64);
    constexpr double kInf = std::numeric_limits<double>::infinity();
    using Entry = std::pair<double, int32_t>;
    Entry thr(kInf, std::numeric_limits<int32_t>::max());  // entries must precede it
    cand_.clear();
    auto shrink = [&] {
      std::nth_element(cand_.begin(), cand_.begin() + static_cast<std::ptrdiff_t>(keep - 1), cand_.end());
      thr = cand_[keep - 1];
      cand_.resize(keep);
    };
    auto offer = [&](double v, int32_t w) {
      if (!(Entry(v, w) < thr)) return;
      cand_.emplace_back(v, w);
      if (cand_.size() == cap) shrink();
    };
    bool any = false;
    // A worker's estimated waiting time, or infinity if its queue is empty (it never gets in),
    // from the engine's compact copy of exec_long, when it began and the long job's estimate (the
    // scan streams 24 bytes a worker, not a worker record's cache line); computed without
    // branches: whether a worker runs a long task is a coin toss to a branch predictor.
    const double now = sim.now();
    auto bits = [](double x) {
      uint64_t b;
      std::memcpy(&b, &x, sizeof b);
      return b;
    };
    const uint64_t inf_bits = bits(kInf);
    auto waiting = [&](int32_t w) {
      const Sim::LongRun& run = sim.long_run(w);
      const double q = qlen_[w];
      const uint64_t runs_long = uint64_t(0) - uint64_t(run.est != -1.0);
      const uint64_t empty = uint64_t(0) - uint64_t(q == 0);
      const uint64_t b = (bits(rtt + q - std::min(now - run.start, run.est)) & runs_long) | (bits(q) & ~runs_long);
      const uint64_t vb = (b & ~empty) | (inf_bits & empty);
      double v;
      std::memcpy(&v, &vb, sizeof v);
      return v;
    };
    // The workers come in increasing id order, after the threshold's: an entry precedes the
    // threshold iff its waiting time is below the threshold's (infinity, an empty queue, never is).
    for (int32_t u = first_general_; u < W_; ++u) {
      const double v = waiting(u);
      if (v < thr.first && !blacklisted(u)) {
        any = true;
        offer(v, u);
      }
    }
    for (int32_t w : empties_) {
      targets_.push_back(w);
      any = true;
      offer(est, w);
    }
    if (!any)  // every general worker is blacklisted: the blacklist is ignored
      for (int32_t w = first_general_; w < W_; ++w) offer(qlen_[w], w);
    if (cand_.size() > keep) shrink();
    // The least entry in (waiting time, id) order takes tasks while its waiting time stays at
    // most the least of the others', then goes back with its new waiting time. The entries are
    // taken from two sorted runs: the selected workers, sorted once, and those that took tasks, in
    // the order they took them, which is sorted too: a worker's new waiting time exceeds the next
    // entry's by at most one estimate, and the next worker's exceeds it by at least one (an equal
    // waiting time is put in place by id). The lesser of the two first entries is the least entry,
    // as a heap would give it, without a heap's sifts.
    std::sort(cand_.begin(), cand_.end());
    filled_.clear();
    size_t ia = 0, ib = 0;
    int32_t left = left0;
    while (left > 0) {
      const bool from_sorted = ia < cand_.size() && (ib == filled_.size() || cand_[ia] < filled_[ib]);
      auto [v, w] = from_sorted ? cand_[ia++] : filled_[ib++];
      double next = kInf;  // the least waiting time of the others (none: the worker takes them all)
      if (ia < cand_.size()) next = cand_[ia].first;
      if (ib < filled_.size()) next = std::min(next, filled_[ib].first);
      do {
        targets_.push_back(w);
        v += est;
        --left;
      } while (left > 0 && v <= next);
      filled_.emplace_back(v, w);
      for (size_t j = filled_.size() - 1; j > ib && filled_[j] < filled_[j - 1]; --j) std::swap(filled_[j], filled_[j - 1]);
    }
  }
  for (int32_t w : targets_) {
    qlen_[w] += est;
    set_bit(bitmap_, w);
    clear_bit(empty_, w);
  }
  if (!targets_.empty()) bitmap_changed();
  sim.send_probes(job, targets_.data(), targets_.size(), sim.delay());
}

void HybridScheduler::on_probe_arrival(Sim& sim, int32_t w, int32_t p) {
  if (!cfg_.sss) return;
  // the probe's flags, at hand (not read from its entry, written an instant before)
  if (sim.probe_flags(p) & kProbeLong) {
    // the worker's copy of the centralized scheduler's bitmap (shared while the bitmap is unchanged)
    if (current_copy_ < 0) {
      if (free_copies_.empty()) {
        current_copy_ = static_cast<int32_t>(copies_.size());
        copies_.emplace_back();
      } else {
        current_copy_ = free_copies_.back();
        free_copies_.pop_back();
      }
      copies_[current_copy_].bits = bitmap_;
      copies_[current_copy_].refs = 1;  // held by current_copy_
    }
    release_copy(snap_copy_[w]);
    snap_copy_[w] = current_copy_;
    ++copies_[current_copy_].refs;
    snap_time_[w] = sim.now();
  }
}

void HybridScheduler::on_task_end(Sim& sim, int32_t w, int64_t /*attempt*/, bool first) {
  if (!cfg_.central_long || !first) return;
  // Whether the attempt's job is long, and its estimate, from the worker's record and its long
  // run (the slot was taken for the attempt's probe, whose job the task is of), not through the
  // attempt's task and job columns, written long ago.
  if (!sim.worker(w).exec_long) return;
  const double est = sim.long_run(w).est;
  qlen_[w] -= est;
  if (qlen_[w] <= 1e-9 * std::max(1.0, est)) {
    qlen_[w] = 0;
    clear_bit(bitmap_, w);
    bitmap_changed();
    if (w >= first_general_) set_bit(empty_, w);
  }
}

int32_t HybridScheduler::pick_probe(Sim& sim, int32_t w, bool short_only) {
  if (!cfg_.srpt) return Scheduler::pick_probe(sim, w, short_only);
  const QueueEntry* e = pick_srpt(sim, w, short_only);
  return e ? e->probe() : -1;
}

const QueueEntry* HybridScheduler::pick_entry(Sim& sim, int32_t w, bool short_only) {
  if (!cfg_.srpt) return Scheduler::pick_entry(sim, w, short_only);
  return pick_srpt(sim, w, short_only);
}

// Eagle's SRPT pick: a long probe at the head is taken at once; otherwise the probe whose job has
// the least remaining estimated work wins (earliest on ties), provided its task estimate fits in
// the slack (cap x estimate - accumulated bypass delay) of every short probe in front of it.
//
// Behind the first few probes the least slack in front is small, and most probes cannot fit in
// it: a long queue is read by blocks, and a block whose estimates all exceed the least slack in
// front of it is passed with its own least slack, read from its least-slack probe, instead of
// probe by probe (the choice is the same; such a block's stale probes stay queued until a pick
// reads the block).
QueueEntry* HybridScheduler::pick_srpt(Sim& sim, int32_t w, bool short_only) {
  const double cap = cfg_.starvation_cap;
  QueueEntry* const end = sim.queue_end(w);
  QueueEntry* q = sim.queue_begin(w);
  // the first probe whose job has work left (stale probes are dropped for free); a long one goes first
  for (; q != end; ++q) {
    if (!q->live()) continue;
    if (sim.remaining(q->job) == -1) {
      sim.drop_entry(w, q);
      continue;
    }
    if (q->is_long() && !short_only) return q;
    break;
  }
  QueueEntry* best = nullptr;
  double best_rem = INFINITY;
  double min_slack = INFINITY;
  // one probe; false once nothing further can win: no estimate fits a negative slack, and no
  // remaining time is below 0 (stale probes further back are purged when a later pick reaches
  // them, which changes no choice)
  auto visit = [&](QueueEntry* e) {
    if (!e->live()) return true;
    const int32_t job = e->job;
    const double rem = sim.remaining(job);
    if (rem == -1) {
      sim.drop_entry(w, e);
      return true;
    }
    const bool is_long = e->is_long();
    if (is_long && short_only) return true;
    const double est = sim.est(job);
    if (rem < best_rem && est <= min_slack) {
      best = e;
      best_rem = rem;
    }
    if (!is_long) min_slack = std::min(min_slack, cap * est - e->acc);
    return !(min_slack < 0 || best_rem <= 0);
  };
  QueueEntry* const data = sim.queue_data(w);
  if (cfg_.srpt_skips_blocks && end - q >= 2 * kSrptBlock) {
    SrptBlocks& sb = srpt_blocks_[w];
    if (sb.layout != sim.queue_layout(w)) {
      sb.layout = sim.queue_layout(w);
      sb.blocks.clear();
    }
    // the rest of the first probe's block, probe by probe
    QueueEntry* stop = data + ((q - data) / kSrptBlock + 1) * kSrptBlock;
    for (; q != stop; ++q)
      if (!visit(q)) goto chosen;
    for (; end - q >= kSrptBlock; q = stop) {
      stop = q + kSrptBlock;
      const size_t b = size_t(q - data) / kSrptBlock;
      if (b < sb.blocks.size() && sb.blocks[b].valid && sb.blocks[b].min_est > min_slack) {
        const int32_t at = sb.blocks[b].least_slack;
        if (at < 0) continue;  // no short probe there
        const QueueEntry& e = data[at];
        if (e.live() && sim.remaining(e.job) != -1) {
          min_slack = std::min(min_slack, cap * sim.est(e.job) - e.acc);
          continue;
        }
      }
      // probe by probe, noting the block's least estimate and least slack
      SrptBlock blk{INFINITY, -1, true};
      double least = INFINITY;
      for (; q != stop; ++q) {
        if (!visit(q)) goto chosen;
        if (!q->live()) continue;  // (a hole, or dropped just now)
        const double est = sim.est(q->job);
        blk.min_est = std::min(blk.min_est, est);
        if (!q->is_long() && cap * est - q->acc < least) {
          least = cap * est - q->acc;
          blk.least_slack = int32_t(q - data);
        }
      }
      if (b >= sb.blocks.size()) sb.blocks.resize(b + 1, SrptBlock{0, -1, false});
      sb.blocks[b] = blk;
    }
  }
  for (; q != end; ++q)
    if (!visit(q)) break;
chosen:
  if (!best) return nullptr;
  if (!best->is_long()) {
    const double e = sim.est(best->job);
    for (q = sim.queue_begin(w); q != best; ++q) q->acc += e;  // (a hole's is never read: no branch on it)
    // the blocks passed have their slacks changed: all of a block's by the same amount but for the
    // winner's, unless rounding gets in the way (an array of fewer positions has no blocks noted
    // in its layout: it grows until its layout changes)
    if (cfg_.srpt_skips_blocks && sim.queue_end(w) - data >= 2 * kSrptBlock) {
      auto& blocks = srpt_blocks_[w].blocks;
      const size_t last = std::min(blocks.size(), size_t(best - data) / kSrptBlock + 1);
      size_t b = size_t(sim.queue_begin(w) - data) / kSrptBlock;
      if (exact_slacks_ && last > b) b = last - 1;  // (the winner's block only)
      for (; b < last; ++b) blocks[b].valid = false;
    }
  }
  return best;
}

bool HybridScheduler::keep_probe(Sim& sim, int32_t, int32_t p) {
  const uint8_t flags = sim.probe_flags(p);
  if (!cfg_.sbp || (flags & kProbeLong)) return false;
  if (flags & kProbeSticky) ++sticky_;
  return true;
}

// Hawk's stealing (strategy ATC): from a random general-partition victim, take the first
// contiguous run of short probes queued behind long work.
void HybridScheduler::on_idle(Sim& sim, int32_t w) {
  if (!cfg_.steal || first_general_ >= W_) return;
  // The victims of the next tries are random workers: they are drawn ahead from a copy of the
  // random stream (the same draws the tries make) and their records fetched a few tries ahead.
  Random ahead = sim.rng();
  constexpr int64_t kAhead = 2;
  const uint64_t span = static_cast<uint64_t>(W_ - first_general_);
  for (int64_t i = 0; i < kAhead && i < cfg_.steal_attempts; ++i)
    sim.prefetch_worker(first_general_ + static_cast<int32_t>(ahead.below(span)));
  for (int64_t attempt = 0; attempt < cfg_.steal_attempts; ++attempt) {
    ++steal_tries_;
    if (attempt + kAhead < cfg_.steal_attempts) sim.prefetch_worker(first_general_ + static_cast<int32_t>(ahead.below(span)));
    const int32_t v = first_general_ + static_cast<int32_t>(sim.rng().below(span));
    // a worker Dice's Elastic Sizing converted is not a victim (Zhou 2019): the try is spent
    if (v == w || blacklisted(v)) continue;
    if (cfg_.steal_random) {
      // RANDOM rule (schedlab's reading; the simulator's is not used in the dissertation): from a
      // victim with long work running or queued, take up to steal_limit short probes, each drawn
      // uniformly from its queued short probes, kept in queue order
      if (!sim.has_long_work(v)) continue;
      const int64_t shorts = sim.worker(v).qlen - sim.worker(v).qlong;
      if (shorts <= 0) continue;
      const int64_t k = std::min<int64_t>(shorts, cfg_.steal_limit);
      // selection sampling (Knuth's algorithm S) over the short probes in queue order (moving a
      // probe out leaves a hole in the victim's array: the entries do not move)
      int64_t seen = 0, taken = 0;
      for (QueueEntry *e = sim.queue_begin(v), *end = sim.queue_end(v); e != end && taken < k; ++e) {
        if (!e->live() || e->is_long()) continue;
        if (static_cast<int64_t>(sim.rng().below(shorts - seen)) < k - taken) {
          sim.move_entry(v, w, e);
          ++taken;
        }
        ++seen;
      }
      stolen_ += double(taken);
      ++steals_;
      sim.kick(w);
      return;
    }
    // the victim's queue in order (holes skipped): past the short probes in front when no long
    // task runs, past the long probes, then the run of short probes behind them
    QueueEntry *e = sim.queue_begin(v), *const end = sim.queue_end(v);
    if (!sim.worker(v).exec_long)
      while (e != end && !(e->live() && e->is_long())) ++e;
    while (e != end && (!e->live() || e->is_long())) ++e;
    int64_t taken = 0;
    for (; e != end && taken < cfg_.steal_limit; ++e) {
      if (!e->live()) continue;
      if (e->is_long()) break;
      sim.move_entry(v, w, e);
      ++taken;
    }
    if (taken > 0) {
      stolen_ += double(taken);
      ++steals_;
      sim.kick(w);
      return;
    }
  }
}

void HybridScheduler::finish(Sim&, SimResult& r) {
  if (cfg_.steal) {
    r.counters["stolen_probes"] = stolen_;
    r.counters["steal_attempts"] = steal_tries_;
    r.counters["successful_steals"] = steals_;
  }
  if (cfg_.sbp) r.counters["sticky_executions"] = sticky_;
  if (cfg_.sss) {
    r.counters["sss_round1_probes"] = r1_probes_;
    r.counters["sss_round1_rejected"] = r1_rejected_;
    r.counters["sss_round2_probes"] = r2_probes_;
    r.counters["sss_round2_rejected"] = r2_rejected_;
    r.counters["sss_fallback_probes"] = fallback_;
  }
  if (cfg_.central_long) {
    r.counters["lwl_long_jobs"] = lwl_jobs_;
    r.counters["lwl_water_fills"] = lwl_fill_;
  }
}

// ---------------------------------------------------------------------------------------------

namespace {

std::vector<ParamSpec> probe_params(int64_t min_probes) {
  return {
      ParamSpec::number("probe_ratio", 2, 1e-9, 1000, "probes per task of a job (batch sampling's d) [Zhou 2019, §2.2.1]; at most 1000 (500x the papers' d = 2: more only queues no-op replies, and costs two events each)"),
      ParamSpec::integer("min_probes", min_probes, 1, 100000,
                         "minimum probes per short job (MIN_NR_PROBES: 2 in the simulator's Sparrow/Hawk examples, 20 in Eagle's); "
                         "at most 100000 (more than the workers of any cluster the papers simulate; the probes are drawn with replacement)"),
  };
}

}  // namespace

void register_hybrid_schedulers() {
  {
    auto params = probe_params(2);
    params.push_back(ParamSpec::integer("min_probes_long", 2, 1, 100000, "minimum probes per long job; at most 100000 (more than the workers of any cluster the papers simulate; the probes are drawn with replacement)"));
    register_scheduler(
        {"sparrow", "", "Ousterhout et al., SOSP'13, as run in the Hawk/Eagle simulator [Zhou 2019, §2.2.1; the Hawk/Eagle simulator, epfl-labos/eagle@371b51f]",
         "batch sampling and late binding for every job, FIFO worker queues, no partitions (ignores short_partition)",
         params},
        [](const Params& p) {
          HybridConfig c;
          c.central_long = false;
          c.all_general = true;
          c.probe_ratio = p.number("probe_ratio");
          c.min_probes = p.integer("min_probes");
          c.min_probes_long = p.integer("min_probes_long");
          return std::make_unique<HybridScheduler>(c);
        });
  }
  {
    auto params = probe_params(2);
    params.push_back(ParamSpec::boolean("stealing", true, "idle workers steal short probes blocked behind long work"));
    params.push_back(ParamSpec::integer("steal_attempts", 10, 0, 10000, "victims tried per steal (STEALING_ATTEMPTS); at most 10000 (1000x the simulator's 10: every idle worker tries them all when no victim yields)"));
    params.push_back(ParamSpec::integer("steal_limit", 10000, 1, 1000000000, "most probes taken per steal (STEALING_LIMIT)"));
    params.push_back(ParamSpec::choice("steal_rule", "atc", {"atc", "random"},
                                       "extraction rule: 'atc' = the first run of short probes queued behind long work "
                                       "(Hawk's, the default); 'random' = up to steal_limit randomly drawn short probes of a "
                                       "victim holding long work (schedlab's reading of the simulator's unused RANDOM rule)"));
    register_scheduler(
        {"hawk", "", "Delgado et al., USENIX ATC'15, as run in the Hawk/Eagle simulator [Zhou 2019, §2.2.1; the Hawk/Eagle simulator, epfl-labos/eagle@371b51f]",
         "LWL-placed long jobs on the general partition, batch-sampled short jobs everywhere, randomized work stealing (ATC)",
         params},
        [](const Params& p) {
          HybridConfig c;
          c.steal = p.boolean("stealing");
          c.probe_ratio = p.number("probe_ratio");
          c.min_probes = p.integer("min_probes");
          c.steal_attempts = p.integer("steal_attempts");
          c.steal_limit = p.integer("steal_limit");
          c.steal_random = p.choice("steal_rule") == "random";
          return std::make_unique<HybridScheduler>(c);
        });
  }
  {
    auto params = probe_params(20);
    params.push_back(ParamSpec::boolean("sss", true, "Succinct State Sharing: short probes avoid workers with long work"));
    params.push_back(ParamSpec::boolean("sbp", true, "Sticky Batch Probing: a short probe keeps asking its job for tasks"));
    params.push_back(ParamSpec::boolean("srpt", true, "SRPT queue order with the starvation cap (False: FIFO)"));
    params.push_back(ParamSpec::number("starvation_cap", 5, 0, 1e9,
                                       "a short probe may be bypassed by at most cap x its job's task estimate (CAP)"));
    register_scheduler(
        {"eagle", "", "Delgado et al., SoCC'16, as run in the Hawk/Eagle simulator [Zhou 2019, §2.2.1–2.2.2; the Hawk/Eagle simulator, epfl-labos/eagle@371b51f]",
         "Hawk's partitions and LWL without stealing, plus Succinct State Sharing, Sticky Batch Probing and SRPT queues",
         params},
        [](const Params& p) {
          HybridConfig c;
          c.sss = p.boolean("sss");
          c.sbp = p.boolean("sbp");
          c.srpt = p.boolean("srpt");
          c.starvation_cap = p.number("starvation_cap");
          c.probe_ratio = p.number("probe_ratio");
          c.min_probes = p.integer("min_probes");
          c.srpt_skips_blocks = true;
          return std::make_unique<HybridScheduler>(c);
        });
  }
  register_dice_scheduler();
  register_eirene_scheduler();
}

}  // namespace schedlab::worker

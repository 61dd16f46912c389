// The simulation's event queue: plain structs ordered by (time, sequence number). The sequence
// number is assigned at push time, so simultaneous events fire in the order they were created
// and every run is deterministic.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace schedlab {

struct Event {
  double time;
  uint64_t seq;
  uint32_t kind;  // meaning is private to the simulation that pushed it
  uint32_t a;     // small payload: e.g. a node id or a job id
  uint64_t b;     // larger payload: e.g. an attempt id or a generation counter
};

class EventQueue {
 public:
  void push(double time, uint32_t kind, uint32_t a = 0, uint64_t b = 0) {
    push_slot(Slot{order_bits(time), take_seq(), kind, a, b});
  }
  // Sequence numbers step by `stride` (a power of two, set before the first push; default 1),
  // leaving stride - 1 free numbers before each one: push_at_seq() puts an event there, ordered
  // among simultaneous events as if it had been pushed between two earlier pushes (the
  // MapReduce engine's sleeping heartbeats, woken where they would have been pushed).
  void set_seq_stride(uint64_t stride) { stride_ = next_seq_ = first_seq_ = stride; }
  uint64_t seq_stride() const { return stride_; }
  uint64_t next_seq() const { return next_seq_; }  // the sequence number of the next push
  void push_at_seq(double time, uint64_t seq, uint32_t kind, uint32_t a = 0, uint64_t b = 0) {
    push_slot(Slot{order_bits(time), seq, kind, a, b});
  }
  // Makes the next push's number a fresh stride ahead (numbers in between stay unused).
  void skip_seq() { next_seq_ += stride_; }
  // Like push(), but among events at the same time a lower `order` fires first (then creation
  // order). Lets an engine fix the relative order of its event classes at equal times; an
  // engine should use either this or push() for all its events.
  void push_ordered(double time, uint32_t order, uint32_t kind, uint32_t a = 0, uint64_t b = 0) {
    push_slot(Slot{order_bits(time), (static_cast<uint64_t>(order) << 56) | take_seq(), kind, a, b});
  }
  // Like push(), for an event no earlier than every event pushed this way before (e.g. periodic
  // heartbeats, each pushed one interval after the one firing): such events need no heap, only
  // a FIFO lane that pop() merges with the heap by (time, sequence). The order is push()'s.
  void push_later(double time, uint32_t kind, uint32_t a = 0, uint64_t b = 0) {
    const Slot s{order_bits(time), take_seq(), kind, a, b};
    if (lane_size_ > 0 && s.when < lane_at(lane_size_ - 1).when) {
      push_slot(s);  // not in order after all: the heap keeps it right
      return;
    }
    if (lane_size_ == lane_.size()) grow_lane();
    lane_at(lane_size_++) = s;
  }
  // push_ordered()'s order with push_later()'s lane: for an event whose (time, order) is usually
  // no earlier than that of the last event pushed this way (e.g. every event of one class pushed
  // a fixed delay after the current time). One that is earlier goes to the heap, so the order is
  // push_ordered()'s in every case.
  void push_ordered_later(double time, uint32_t order, uint32_t kind, uint32_t a = 0, uint64_t b = 0) {
    const Slot s{order_bits(time), (static_cast<uint64_t>(order) << 56) | take_seq(), kind, a, b};
    if (lane_size_ > 0 && key(s) < key(lane_at(lane_size_ - 1))) {
      push_slot(s);
      return;
    }
    if (lane_size_ == lane_.size()) grow_lane();
    lane_at(lane_size_++) = s;
  }
  bool empty() const { return heap_.empty() && lane_size_ == 0; }
  size_t size() const { return heap_.size() + lane_size_; }
  Event top() const { return event(lane_first() ? lane_[lane_head_] : heap_.front()); }
  // Whether the heap's first event (not the lane's) is of `kind`, and then its payload b: a cheap
  // look ahead, e.g. to prefetch.
  bool heap_front_is(uint32_t kind, uint64_t& b) const {
    if (heap_.empty() || heap_.front().kind != kind) return false;
    b = heap_.front().b;
    return true;
  }
  // The same with the payload a as well.
  bool heap_front_is(uint32_t kind, uint32_t& a, uint64_t& b) const {
    if (heap_.empty() || heap_.front().kind != kind) return false;
    a = heap_.front().a;
    b = heap_.front().b;
    return true;
  }
  // Whether the heap's second event (the earliest child of its first) is of `kind`, and then its
  // payload a: a look further ahead, e.g. to prefetch what the next event's prefetch reads.
  bool heap_second_is(uint32_t kind, uint32_t& a) const {
    const size_t n = heap_.size();
    if (n < 2) return false;
    size_t best = 1;
    Key best_key = key(heap_[1]);
    for (size_t k = 2; k < 5 && k < n; ++k) {
      const Key kk = key(heap_[k]);
      const bool earlier = kk < best_key;
      best = earlier ? k : best;
      best_key = earlier ? kk : best_key;
    }
    if (heap_[best].kind != kind) return false;
    a = heap_[best].a;
    return true;
  }
  // Whether the lane's first event is of `kind`, and then its payload a.
  bool lane_front_is(uint32_t kind, uint32_t& a) const {
    if (lane_size_ == 0 || lane_[lane_head_].kind != kind) return false;
    a = lane_[lane_head_].a;
    return true;
  }
  Event pop() {
    if (lane_first()) {
      const Slot s = lane_[lane_head_];
      lane_head_ = (lane_head_ + 1) & (lane_.size() - 1);
      --lane_size_;
      return event(s);
    }
    const Slot s = heap_.front();
    const Slot last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) refill_top(last);
    return event(s);
  }
  void reserve(size_t n) { heap_.reserve(n); }
  void clear() { heap_.clear(); lane_.clear(); lane_head_ = lane_size_ = 0; next_seq_ = first_seq_; }
  uint64_t pushed() const { return (next_seq_ - first_seq_) / stride_; }  // events pushed so far (and skip_seq's)

 private:
  // An event as queued: its time as an unsigned integer of the same order (see order_bits), so
  // that (time, sequence) compares as one 128-bit number -- without branches, which matters:
  // which of four siblings is earliest is a coin toss to a branch predictor.
  struct Slot {
    uint64_t when;
    uint64_t seq;
    uint32_t kind, a;
    uint64_t b;
  };
  __extension__ typedef unsigned __int128 Key;
  static Key key(const Slot& s) { return (Key(s.when) << 64) | s.seq; }
  // The bits of a double, mapped so that unsigned order is numeric order (negatives reversed
  // below the positives; -0 is taken as +0, which it equals).
  static uint64_t order_bits(double t) {
    t += 0.0;  // -0 -> +0
    uint64_t u;
    std::memcpy(&u, &t, sizeof u);
    return (u >> 63) ? ~u : u | (uint64_t(1) << 63);
  }
  static Event event(const Slot& s) {
    const uint64_t u = (s.when >> 63) ? s.when & ~(uint64_t(1) << 63) : ~s.when;
    double t;
    std::memcpy(&t, &u, sizeof t);
    return Event{t, s.seq, s.kind, s.a, s.b};
  }
  bool lane_first() const {
    if (lane_size_ == 0) return false;
    return heap_.empty() || key(lane_[lane_head_]) < key(heap_.front());
  }
  // A 4-ary heap: shallower than a binary heap, so fewer cache misses per pop.
  void push_slot(const Slot& s) {
    heap_.push_back(s);
    sift_up(heap_.size() - 1, s);
  }
  void sift_up(size_t i, const Slot& s) {
    const Key k = key(s);
    while (i > 0) {
      const size_t p = (i - 1) / 4;
      if (!(k < key(heap_[p]))) break;
      heap_[i] = heap_[p];
      i = p;
    }
    heap_[i] = s;
  }
  // The top was taken: move the earliest child up into the hole, level by level to the bottom,
  // then put `last` (the old last event) in the hole and sift it up -- it belongs near the
  // bottom, so this compares less than sifting it down from the top.
  void refill_top(const Slot& last) {
    const size_t n = heap_.size();
    size_t i = 0;
    for (;;) {
      const size_t c = 4 * i + 1;
      if (c >= n) break;
      size_t best = c;
      Key best_key = key(heap_[c]);
      const size_t end = c + 4 < n ? c + 4 : n;
      for (size_t k = c + 1; k < end; ++k) {
        const Key kk = key(heap_[k]);
        const bool earlier = kk < best_key;
        best = earlier ? k : best;
        best_key = earlier ? kk : best_key;
      }
      heap_[i] = heap_[best];
      i = best;
    }
    sift_up(i, last);
  }
  std::vector<Slot> heap_;
  // push_later's events, in (time, sequence) order: a ring of lane_size_ events from lane_head_
  // (its capacity a power of two), so the lane never shifts its events
  Slot& lane_at(size_t i) { return lane_[(lane_head_ + i) & (lane_.size() - 1)]; }
  const Slot& lane_at(size_t i) const { return lane_[(lane_head_ + i) & (lane_.size() - 1)]; }
  void grow_lane() {
    std::vector<Slot> wider(lane_.empty() ? 64 : 2 * lane_.size());
    for (size_t i = 0; i < lane_size_; ++i) wider[i] = lane_at(i);
    lane_.swap(wider);
    lane_head_ = 0;
  }
  uint64_t take_seq() {
    const uint64_t s = next_seq_;
    next_seq_ += stride_;
    return s;
  }
  std::vector<Slot> lane_;
  size_t lane_head_ = 0, lane_size_ = 0;
  uint64_t next_seq_ = 0;
  uint64_t stride_ = 1, first_seq_ = 0;
};

}  // namespace schedlab

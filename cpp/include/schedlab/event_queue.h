// The simulation's event heap: plain structs ordered by (time, sequence number). The sequence
// number is assigned at push time, so simultaneous events fire in the order they were created
// and every run is deterministic.
#pragma once
#include <cstddef>
#include <cstdint>
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
    heap_.push_back(Event{time, next_seq_++, kind, a, b});
    sift_up(heap_.size() - 1);
  }
  // Like push(), but among events at the same time a lower `order` fires first (then creation
  // order). Lets an engine fix the relative order of its event classes at equal times; an
  // engine should use either this or push() for all its events.
  void push_ordered(double time, uint32_t order, uint32_t kind, uint32_t a = 0, uint64_t b = 0) {
    heap_.push_back(Event{time, (static_cast<uint64_t>(order) << 56) | next_seq_++, kind, a, b});
    sift_up(heap_.size() - 1);
  }
  // Like push(), for an event no earlier than every event pushed this way before (e.g. periodic
  // heartbeats, each pushed one interval after the one firing): such events need no heap, only
  // a FIFO lane that pop() merges with the heap by (time, sequence). The order is push()'s.
  void push_later(double time, uint32_t kind, uint32_t a = 0, uint64_t b = 0) {
    if (lane_size_ > 0 && time < lane_at(lane_size_ - 1).time) {
      push(time, kind, a, b);  // not in order after all: the heap keeps it right
      return;
    }
    if (lane_size_ == lane_.size()) grow_lane();
    lane_at(lane_size_++) = Event{time, next_seq_++, kind, a, b};
  }
  bool empty() const { return heap_.empty() && lane_size_ == 0; }
  size_t size() const { return heap_.size() + lane_size_; }
  const Event& top() const { return lane_first() ? lane_[lane_head_] : heap_.front(); }
  // The heap's first event (not the lane's), or null: a cheap look ahead, e.g. to prefetch.
  const Event* heap_front() const { return heap_.empty() ? nullptr : &heap_.front(); }
  Event pop() {
    if (lane_first()) {
      const Event e = lane_[lane_head_];
      lane_head_ = (lane_head_ + 1) & (lane_.size() - 1);
      --lane_size_;
      return e;
    }
    const Event e = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) refill_top(last);
    return e;
  }
  void reserve(size_t n) { heap_.reserve(n); }
  void clear() { heap_.clear(); lane_.clear(); lane_head_ = lane_size_ = 0; next_seq_ = 0; }
  uint64_t pushed() const { return next_seq_; }  // events pushed so far

 private:
  bool lane_first() const {
    if (lane_size_ == 0) return false;
    return heap_.empty() || before(lane_[lane_head_], heap_.front());
  }
  static bool before(const Event& x, const Event& y) {
    return x.time < y.time || (x.time == y.time && x.seq < y.seq);
  }
  // A 4-ary heap: shallower than a binary heap, so fewer cache misses per pop.
  void sift_up(size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      size_t p = (i - 1) / 4;
      if (!before(e, heap_[p])) break;
      heap_[i] = heap_[p];
      i = p;
    }
    heap_[i] = e;
  }
  // The top was taken: move the smaller child up into the hole, level by level to the bottom,
  // then put `last` (the old last event) in the hole and sift it up -- it belongs near the
  // bottom, so this compares less than sifting it down from the top.
  void refill_top(const Event& last) {
    const size_t n = heap_.size();
    size_t i = 0;
    for (;;) {
      const size_t c = 4 * i + 1;
      if (c >= n) break;
      size_t best = c;
      const size_t end = c + 4 < n ? c + 4 : n;
      for (size_t k = c + 1; k < end; ++k)
        if (before(heap_[k], heap_[best])) best = k;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
    sift_up(i);
  }
  std::vector<Event> heap_;
  // push_later's events, in (time, sequence) order: a ring of lane_size_ events from lane_head_
  // (its capacity a power of two), so the lane never shifts its events
  Event& lane_at(size_t i) { return lane_[(lane_head_ + i) & (lane_.size() - 1)]; }
  void grow_lane() {
    std::vector<Event> wider(lane_.empty() ? 64 : 2 * lane_.size());
    for (size_t i = 0; i < lane_size_; ++i) wider[i] = lane_at(i);
    lane_.swap(wider);
    lane_head_ = 0;
  }
  std::vector<Event> lane_;
  size_t lane_head_ = 0, lane_size_ = 0;
  uint64_t next_seq_ = 0;
};

}  // namespace schedlab

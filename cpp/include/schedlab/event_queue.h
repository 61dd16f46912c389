// The simulation's event queue: plain structs ordered by (time, sequence number). The sequence
// number is assigned at push time, so simultaneous events fire in the order they were created
// and every run is deterministic.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
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
    push_slot(order_bits(time), take_seq(), kind, a, b);
  }
  // Sequence numbers step by `stride` (a power of two, set before the first push; default 1),
  // leaving stride - 1 free numbers before each one: push_at_seq() puts an event there, ordered
  // among simultaneous events as if it had been pushed between two earlier pushes (the
  // MapReduce engine's sleeping heartbeats, woken where they would have been pushed).
  void set_seq_stride(uint64_t stride) { stride_ = next_seq_ = first_seq_ = stride; }
  uint64_t seq_stride() const { return stride_; }
  uint64_t next_seq() const { return next_seq_; }  // the sequence number of the next push
  void push_at_seq(double time, uint64_t seq, uint32_t kind, uint32_t a = 0, uint64_t b = 0) {
    push_slot(order_bits(time), seq, kind, a, b);
  }
  // Makes the next push's number a fresh stride ahead (numbers in between stay unused).
  void skip_seq() { next_seq_ += stride_; }
  // Like push(), but among events at the same time a lower `order` fires first (then creation
  // order). Lets an engine fix the relative order of its event classes at equal times; an
  // engine should use either this or push() for all its events.
  void push_ordered(double time, uint32_t order, uint32_t kind, uint32_t a = 0, uint64_t b = 0) {
    push_slot(order_bits(time), (static_cast<uint64_t>(order) << 56) | take_seq(), kind, a, b);
  }
  // Like push(), for an event no earlier than every event pushed this way before (e.g. periodic
  // heartbeats, each pushed one interval after the one firing): such events need no heap, only
  // a FIFO lane that pop() merges with the heap by (time, sequence). The order is push()'s.
  void push_later(double time, uint32_t kind, uint32_t a = 0, uint64_t b = 0) {
    const uint64_t when = order_bits(time), seq = take_seq();
    if (lane_size_ > 0 && when < lane_at(lane_size_ - 1).when) {
      push_slot(when, seq, kind, a, b);  // not in order after all: the heap keeps it right
      return;
    }
    if (lane_size_ == lane_.size()) grow_lane();
    lane_at(lane_size_++).set(when, seq, kind, a, b);
  }
  // push_ordered()'s order with push_later()'s lane: for an event whose (time, order) is usually
  // no earlier than that of the last event pushed this way (e.g. every event of one class pushed
  // a fixed delay after the current time). One that is earlier goes to the heap, so the order is
  // push_ordered()'s in every case.
  void push_ordered_later(double time, uint32_t order, uint32_t kind, uint32_t a = 0, uint64_t b = 0) {
    const uint64_t when = order_bits(time), seq = (static_cast<uint64_t>(order) << 56) | take_seq();
    if (lane_size_ > 0 && key(when, seq) < key(lane_at(lane_size_ - 1))) {
      push_slot(when, seq, kind, a, b);
      return;
    }
    if (lane_size_ == lane_.size()) grow_lane();
    lane_at(lane_size_++).set(when, seq, kind, a, b);
  }
  bool empty() const { return heap_empty() && lane_size_ == 0; }
  size_t size() const { return early_.size() + radix_n_ + lane_size_; }
  Event top() const { return event(lane_first() ? lane_[lane_head_] : heap_min()); }
  // Whether the heap's first event (not the lane's) is of `kind`, and then its payload b: a cheap
  // look ahead, e.g. to prefetch.
  bool heap_front_is(uint32_t kind, uint64_t& b) const {
    if (heap_empty() || heap_min().kind != kind) return false;
    b = heap_min().b;
    return true;
  }
  // The same with the payload a as well.
  bool heap_front_is(uint32_t kind, uint32_t& a, uint64_t& b) const {
    if (heap_empty()) return false;
    const Slot& s = heap_min();
    if (s.kind != kind) return false;
    a = s.a;
    b = s.b;
    return true;
  }
  // Whether the heap's second event is of `kind`, and then its payload a: a look further ahead,
  // e.g. to prefetch what the next event's prefetch reads. A hint: it may answer false when the
  // second event is not at hand (a cheap look only).
  bool heap_second_is(uint32_t kind, uint32_t& a) const {
    if (!early_.empty() || !second_valid_ || second_.kind != kind) return false;
    a = second_.a;
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
    if (!early_.empty() && (radix_n_ == 0 || key(early_.front()) < key(buckets_[0].back()))) {
      const Slot s = early_.front();
      const Slot last = early_.back();
      early_.pop_back();
      if (!early_.empty()) refill_top(last);
      return event(s);
    }
    Bucket& b0 = buckets_[0];
    const Slot s = b0.back();
    --b0.n;
    --radix_n_;
    second_valid_ = false;
    if (b0.n == 0) {
      nonempty_[0] &= ~uint64_t(1);
      if (radix_n_ > 0) pull();
    }
    return event(s);
  }
  void clear() {
    early_.clear();
    for (Bucket& b : buckets_) b.n = 0;
    for (uint64_t& m : nonempty_) m = 0;
    radix_n_ = 0;
    last_ = 0;
    second_valid_ = false;
    lane_.clear();
    lane_head_ = lane_size_ = 0;
    next_seq_ = first_seq_;
  }
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
    // A push writes its fields one by one: a Slot built on the stack and copied would be read
    // back in 16-byte halves straight after its narrower stores, which the store buffer cannot
    // forward (a stall of some 15 cycles on every push).
    void set(uint64_t when_, uint64_t seq_, uint32_t kind_, uint32_t a_, uint64_t b_) {
      when = when_;
      seq = seq_;
      kind = kind_;
      a = a_;
      b = b_;
    }
  };
  __extension__ typedef unsigned __int128 Key;
  static Key key(uint64_t when, uint64_t seq) { return (Key(when) << 64) | seq; }
  static Key key(const Slot& s) { return key(s.when, s.seq); }
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
  // The events not in the lane are kept in a radix heap [Ahuja, Mehlhorn, Orlin and Tarjan,
  // "Faster algorithms for the shortest path problem", J. ACM 37(2), 1990] with digits of
  // kDigitBits bits (the paper's buckets split by digit value): event keys only grow in a
  // simulation, so an event is filed by the highest digit in which its key differs from last_,
  // the smallest key filed, and by its own value of that digit (bucket 0 holds the event of
  // last_ itself); buckets in index order hold ever larger keys. A push appends to a bucket;
  // when bucket 0 empties, the lowest non-empty bucket's smallest key becomes last_ and its
  // events are refiled into buckets of lower digits. Each event moves at most once per digit (4.4
  // times on average at Google scale on the worker engine), through contiguous arrays, instead
  // of sifting through a heap's levels at random. Keys are unique (sequence numbers), so the
  // order is exactly (time, sequence). An event earlier than last_ (pushed at the current time
  // with a lower order, or at an earlier sequence number) goes to early_, a small 4-ary heap; a
  // pop takes the earlier of the two.
  static constexpr int kDigitBits = 4, kDigitValues = 1 << kDigitBits;
  static constexpr int kBuckets = 1 + (128 / kDigitBits) * kDigitValues;
  static constexpr int kMaskWords = (kBuckets + 63) / 64;
  // A bucket's events are its first n slots; the slots past them are spare room (so that a push
  // writes its event in place, and refiling reuses the room a pull emptied).
  struct Bucket {
    std::unique_ptr<Slot[]> slots;
    uint32_t n = 0, room = 0;
    Slot& back() { return slots[n - 1]; }
    const Slot& back() const { return slots[n - 1]; }
    Slot& append() {
      if (n == room) grow();
      return slots[n++];
    }
    void grow() {
      room = room ? 2 * room : 16;
      std::unique_ptr<Slot[]> wider(new Slot[room]);
      std::copy(slots.get(), slots.get() + n, wider.get());
      slots.swap(wider);
    }
  };
  Bucket buckets_[kBuckets];
  uint64_t nonempty_[kMaskWords] = {};  // bit i: buckets_[i] is not empty
  size_t radix_n_ = 0;
  Key last_ = 0;
  std::vector<Slot> early_;
  // The radix heap's second event, when known (a look ahead for heap_second_is): found by pull()
  // and kept up to date by pushes.
  Slot second_{};
  bool second_valid_ = false;
  bool heap_empty() const { return radix_n_ == 0 && early_.empty(); }
  // The heap's earliest event (the heap must not be empty).
  const Slot& heap_min() const {
    if (!early_.empty() && (radix_n_ == 0 || key(early_.front()) < key(buckets_[0].back()))) return early_.front();
    return buckets_[0].back();
  }
  // Bucket of key k >= last_: 0 if k == last_, else 1 + (the highest digit in which k differs
  // from last_) x kDigitValues + k's value of that digit.
  int bucket_of(Key k) const {
    const Key x = k ^ last_;
    const uint64_t hi = static_cast<uint64_t>(x >> 64), lo = static_cast<uint64_t>(x);
    if (hi) {
      const int d = (63 - __builtin_clzll(hi)) / kDigitBits;
      return 1 + (64 / kDigitBits + d) * kDigitValues +
             static_cast<int>((static_cast<uint64_t>(k >> 64) >> (d * kDigitBits)) & (kDigitValues - 1));
    }
    if (lo) {
      const int d = (63 - __builtin_clzll(lo)) / kDigitBits;
      return 1 + d * kDigitValues + static_cast<int>((static_cast<uint64_t>(k) >> (d * kDigitBits)) & (kDigitValues - 1));
    }
    return 0;
  }
  void file(const Slot& s, int i) {
    buckets_[i].append() = s;
    nonempty_[i >> 6] |= uint64_t(1) << (i & 63);
  }
  void file(int i, uint64_t when, uint64_t seq, uint32_t kind, uint32_t a, uint64_t b) {
    buckets_[i].append().set(when, seq, kind, a, b);
    nonempty_[i >> 6] |= uint64_t(1) << (i & 63);
  }
  // The lowest non-empty bucket at or above `from` (some must be).
  int lowest_bucket(int from) const {
    for (int w = from >> 6; w < kMaskWords; ++w) {
      uint64_t m = nonempty_[w];
      if (w == (from >> 6)) m &= ~uint64_t(0) << (from & 63);
      if (m) return w * 64 + __builtin_ctzll(m);
    }
    return kBuckets;
  }
  // Bucket 0 is empty and the radix heap is not: the lowest non-empty bucket's smallest key
  // becomes last_, and that bucket's events are refiled below it.
  void pull() {
    const int i = lowest_bucket(1);
    Bucket& bucket = buckets_[i];
    const Slot* b = bucket.slots.get();
    const size_t n = bucket.n;
    // the smallest key and the second smallest (every later bucket's keys are larger)
    size_t m = 0, m2 = 0;
    Key mk = key(b[0]), m2k = ~Key(0);
    for (size_t k = 1; k < n; ++k) {
      const Key kk = key(b[k]);
      if (kk < m2k) {
        if (kk < mk) {
          m2 = m;
          m2k = mk;
          m = k;
          mk = kk;
        } else {
          m2 = k;
          m2k = kk;
        }
      }
    }
    last_ = mk;
    second_valid_ = n > 1;
    if (second_valid_) second_ = b[m2];
    for (size_t k = 0; k < n; ++k) file(b[k], bucket_of(key(b[k])));  // (all below bucket i)
    bucket.n = 0;
    nonempty_[i >> 6] &= ~(uint64_t(1) << (i & 63));
    if (!second_valid_ && radix_n_ > 1) {  // the second is the least of the next bucket, if short
      const Bucket& next = buckets_[lowest_bucket(1)];
      const Slot* nb = next.slots.get();
      if (next.n <= 8) {
        const Slot* best = &nb[0];
        for (size_t k = 1; k < next.n; ++k)
          if (key(nb[k]) < key(*best)) best = &nb[k];
        second_ = *best;
        second_valid_ = true;
      }
    }
  }
  bool lane_first() const {
    if (lane_size_ == 0) return false;
    return heap_empty() || key(lane_[lane_head_]) < key(heap_min());
  }
  void push_slot(uint64_t when, uint64_t seq, uint32_t kind, uint32_t a, uint64_t b) {
    const Key k = key(when, seq);
    if (radix_n_ == 0) {
      if (!early_.empty() && k < key(early_.front())) {
        push_early(Slot{when, seq, kind, a, b});
        return;
      }
      last_ = k;  // an empty radix heap starts from any key
      file(0, when, seq, kind, a, b);
      ++radix_n_;
      return;
    }
    if (k < last_) {
      push_early(Slot{when, seq, kind, a, b});
      return;
    }
    if (second_valid_ ? k < key(second_) : radix_n_ == 1) {
      second_.set(when, seq, kind, a, b);
      second_valid_ = true;
    }
    file(bucket_of(k), when, seq, kind, a, b);
    ++radix_n_;
  }
  // early_: a 4-ary heap.
  void push_early(const Slot& s) {
    early_.push_back(s);
    sift_up(early_.size() - 1, s);
  }
  void sift_up(size_t i, const Slot& s) {
    const Key k = key(s);
    while (i > 0) {
      const size_t p = (i - 1) / 4;
      if (!(k < key(early_[p]))) break;
      early_[i] = early_[p];
      i = p;
    }
    early_[i] = s;
  }
  // The top was taken: move the earliest child up into the hole, level by level to the bottom,
  // then put `last` (the old last event) in the hole and sift it up.
  void refill_top(const Slot& last) {
    const size_t n = early_.size();
    size_t i = 0;
    for (;;) {
      const size_t c = 4 * i + 1;
      if (c >= n) break;
      size_t best = c;
      Key best_key = key(early_[c]);
      const size_t end = c + 4 < n ? c + 4 : n;
      for (size_t k = c + 1; k < end; ++k) {
        const Key kk = key(early_[k]);
        const bool earlier = kk < best_key;
        best = earlier ? k : best;
        best_key = earlier ? kk : best_key;
      }
      early_[i] = early_[best];
      i = best;
    }
    sift_up(i, last);
  }
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

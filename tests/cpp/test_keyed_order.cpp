// The fair scheduler's KeyedOrder (blocks of sorted keys) against a std::set of the same keys:
// after every insert, erase and re-key the walk from begin() gives the set's order, and find()
// lands on each key. Runs thousands of keys (many blocks, splits and merges) with many ties in
// the share, as on an overloaded cluster, and re-keys both within a block and across blocks.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "../../cpp/src/schedulers/mr_common.h"
#include "schedlab/random.h"

using namespace schedlab;
using namespace schedlab::mr;

namespace {

struct Less {
  bool operator()(const FairKey& a, const FairKey& b) const { return a < b; }
};

void expect_same(const KeyedOrder& order, const std::set<FairKey, Less>& model) {
  ASSERT_EQ(order.size(), model.size());
  auto it = model.begin();
  size_t n = 0;
  for (auto c = order.begin(); !order.done(c); order.next(c), ++it, ++n) {
    ASSERT_NE(it, model.end());
    ASSERT_FALSE(order.at(c) != *it) << "entry " << n;
    const auto f = order.find(*it);
    ASSERT_FALSE(order.at(f) != *it) << "find, entry " << n;
  }
  EXPECT_EQ(n, model.size());
}

}  // namespace

TEST(KeyedOrder, SameOrderAsASortedSetThroughInsertsErasesAndRekeys) {
  Random rng(11);
  KeyedOrder order;
  std::set<FairKey, Less> model;
  std::vector<FairKey> key_of(5000);
  std::vector<uint8_t> listed(key_of.size(), 0);
  auto draw = [&](int32_t id) {
    // few distinct shares: thousands of ties broken by start time and id
    const double running = double(rng.below(4));
    return FairKey::make(running, 10.0, rng.below(3) == 0 ? 2.0 : 0.0, 1.0 + double(rng.below(2)),
                         double(rng.below(50)), id);
  };
  int64_t far_moves = 0;
  for (int step = 0; step < 60000; ++step) {
    const auto id = static_cast<int32_t>(rng.below(key_of.size()));
    const uint64_t what = rng.below(10);
    if (!listed[id]) {
      key_of[id] = draw(id);
      order.insert(key_of[id]);
      model.insert(key_of[id]);
      listed[id] = 1;
    } else if (what < 2) {
      order.erase(key_of[id]);
      model.erase(key_of[id]);
      listed[id] = 0;
    } else {
      const FairKey k = draw(id);
      const auto c = order.find(key_of[id]);
      far_moves += c.block != order.find(k).block;
      order.rekey(c, k);
      model.erase(key_of[id]);
      model.insert(k);
      key_of[id] = k;
    }
    if (step % 997 == 0) expect_same(order, model);
  }
  expect_same(order, model);
  EXPECT_GT(model.size(), 4 * KeyedOrder::kMaxBlock);  // many blocks
  EXPECT_GT(far_moves, 1000);                          // re-keys into other blocks
  // empty it: every block goes
  for (size_t id = 0; id < key_of.size(); ++id)
    if (listed[id]) {
      order.erase(key_of[id]);
      model.erase(key_of[id]);
    }
  expect_same(order, model);
  EXPECT_TRUE(order.done(order.begin()));
}

TEST(KeyedOrder, RekeyStepsWithinItsBlock) {
  KeyedOrder order;
  for (int32_t id = 0; id < 10; ++id) order.insert(FairKey{double(id), 0.0, id, false});
  order.rekey(order.find(FairKey{2.0, 0.0, 2, false}), FairKey{7.5, 0.0, 2, false});
  order.rekey(order.find(FairKey{9.0, 0.0, 9, false}), FairKey{-1.0, 0.0, 9, false});
  std::vector<int32_t> ids;
  for (auto c = order.begin(); !order.done(c); order.next(c)) ids.push_back(order.at(c).id);
  EXPECT_EQ(ids, (std::vector<int32_t>{9, 0, 1, 3, 4, 5, 6, 7, 2, 8}));
}

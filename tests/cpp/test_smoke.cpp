#include <gtest/gtest.h>
#include "schedlab/event_queue.h"
TEST(Smoke, Builds) { schedlab::EventQueue q; q.push(1, 0); EXPECT_EQ(q.size(), 1u); }

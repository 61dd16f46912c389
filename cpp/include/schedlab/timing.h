// Wall-time accounting of scheduler callbacks, for the engines' measure_overhead option: the
// time and count of the calls a CallTimer wraps (steady clock, nanoseconds).
#pragma once
#include <chrono>
#include <cstdint>

namespace schedlab {

struct CallTimer {
  int64_t ns = 0;
  int64_t calls = 0;
  template <class F>
  auto operator()(F&& f) -> decltype(f()) {
    struct Stop {
      CallTimer* t;
      std::chrono::steady_clock::time_point t0;
      ~Stop() {
        t->ns += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
        ++t->calls;
      }
    } stop{this, std::chrono::steady_clock::now()};
    return f();
  }
};

}  // namespace schedlab

// Stopping a run from outside, e.g. Ctrl-C in a notebook while the simulation holds no GIL. The
// caller installs a check for its thread (InterruptCheck, for the run's duration); the engines'
// event loops poll it every 2^20 events (a fraction of a second: the check may be dear, the
// poll between two checks is one test) and throw Interrupted when it answers true. Runs on
// threads without a check are never interrupted.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <utility>

namespace schedlab {

struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("the simulation was interrupted") {}
};

namespace detail {
inline thread_local const std::function<bool()>* interrupt_check = nullptr;
}

// Installs `check` for this thread while it lives (and restores the one before).
class InterruptCheck {
 public:
  explicit InterruptCheck(std::function<bool()> check) : check_(std::move(check)), before_(detail::interrupt_check) {
    detail::interrupt_check = &check_;
  }
  ~InterruptCheck() { detail::interrupt_check = before_; }
  InterruptCheck(const InterruptCheck&) = delete;
  InterruptCheck& operator=(const InterruptCheck&) = delete;

 private:
  std::function<bool()> check_;
  const std::function<bool()>* before_;
};

// Called by an event loop with its event count.
inline void poll_interrupt(uint64_t events) {
  if ((events & ((uint64_t(1) << 20) - 1)) == 0 && detail::interrupt_check && (*detail::interrupt_check)())
    throw Interrupted();
}

}  // namespace schedlab

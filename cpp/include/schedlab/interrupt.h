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
inline thread_local const std::function<void(uint64_t, double)>* progress_report = nullptr;
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

// Installs `report(events, simulated_time)` for this thread while it lives: the event loops call
// it at the same polling point as the interrupt check (a progress bar rides on it).
class ProgressReport {
 public:
  explicit ProgressReport(std::function<void(uint64_t, double)> report)
      : report_(std::move(report)), before_(detail::progress_report) {
    detail::progress_report = &report_;
  }
  ~ProgressReport() { detail::progress_report = before_; }
  ProgressReport(const ProgressReport&) = delete;
  ProgressReport& operator=(const ProgressReport&) = delete;

 private:
  std::function<void(uint64_t, double)> report_;
  const std::function<void(uint64_t, double)>* before_;
};

// Called by an event loop with its event count and simulated time.
inline void poll_interrupt(uint64_t events, double now = 0.0) {
  if ((events & ((uint64_t(1) << 20) - 1)) != 0) return;
  if (detail::progress_report) (*detail::progress_report)(events, now);
  if (detail::interrupt_check && (*detail::interrupt_check)()) throw Interrupted();
}

}  // namespace schedlab

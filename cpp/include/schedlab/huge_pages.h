// Page advice for large arrays: release_memory gives a converted array's pages back while its data
// moves elsewhere; populate_memory faults in, in one call, the pages an array is about to write.
// The engine does not advise its arrays for transparent huge pages: on some machines of the
// project's kind (virtual machines whose host takes back free guest memory in 8 MB blocks) a
// fresh 2 MB page is mostly memory the host must supply again, and writing a new array cost
// several times more CPU with the advice than in 4 KB pages; where a huge page costs no more, the
// advice made no measurable difference to the runs (bench/bench_first_touch.cpp measures both;
// docs/performance.md).
#pragma once
#include <atomic>
#include <condition_variable>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace schedlab {

// Gives the whole pages inside [data, data + bytes) back to the system (their contents are lost:
// for a large array already read to the end, freed piece by piece while its data moves elsewhere).
inline void release_memory(const void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_DONTNEED)
  constexpr uintptr_t kPage = 4096;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kPage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);  // failure: kept, harmless
#else
  (void)data;
  (void)bytes;
#endif
}

// Faults in the whole pages inside [data, data + bytes) now, writable, in one call (Linux 5.14's
// MADV_POPULATE_WRITE), for an array about to be written there: cheaper than a fault per page
// taken as the writes reach them. Elsewhere, or on failure, nothing: the writes fault them in.
inline void populate_memory(const void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  constexpr uintptr_t kPage = 4096;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kPage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)data;
  (void)bytes;
#endif
}

// Faults in an array's reserved room on a thread of its own, a bounded distance ahead of the
// writer, so that the kernel's zeroing of fresh pages runs on the machine's other core instead of
// stalling the simulation. The thread touches no data: it only asks the kernel to fault pages in
// (contents and results are those of a run without it). The room is one or more arrays written
// in step, as columns of `rows` rows each (of their own row sizes; an array given by its bytes is
// a column of one-byte rows); the writer reports how many rows it has written with advance(); the
// thread stays at most `ahead` rows past that, so a run that stops early (a time limit) faults in
// little it never writes. Sizes and positions below are in rows.
class PagePopulator {
 public:
  struct Column {
    const void* base;
    size_t row_bytes;
  };
  PagePopulator() = default;
  PagePopulator(const PagePopulator&) = delete;
  PagePopulator& operator=(const PagePopulator&) = delete;
  ~PagePopulator() { stop(); }

  void start(const void* base, size_t bytes, size_t block, size_t ahead) { start({{base, 1}}, bytes, block, ahead); }
  void start(std::vector<Column> columns, size_t rows, size_t block, size_t ahead) {
    stop();
    columns_ = std::move(columns);
    rows_ = rows;
    block_ = block;
    ahead_ = ahead;
    written_.store(0, std::memory_order_relaxed);
    stop_ = false;
    thread_ = std::thread([this] { work(); });
  }
  bool running() const { return thread_.joinable(); }
  // Faults in rows [first, first + n) of every column now, one call per column (what the thread
  // does block by block; a writer without the thread calls it itself).
  static void populate_rows(const std::vector<Column>& columns, size_t first, size_t n) {
    for (const Column& c : columns) populate_memory(static_cast<const char*>(c.base) + first * c.row_bytes, n * c.row_bytes);
  }
  // The writer has written the first `rows` rows.
  void advance(size_t rows) {
    if (!running()) return;
    written_.store(rows, std::memory_order_relaxed);
    cv_.notify_one();
  }
  // Ends the thread (before the room moves or is freed, and at the end of the run).
  void stop() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }

 private:
  void work() {
    size_t done = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_ && done < rows_) {
      const size_t target = std::min(rows_, written_.load(std::memory_order_relaxed) + ahead_);
      if (done >= target) {
        cv_.wait(lock, [&] { return stop_ || written_.load(std::memory_order_relaxed) + ahead_ > done; });
        continue;
      }
      const size_t n = std::min(block_, target - done);
      lock.unlock();
      populate_rows(columns_, done, n);
      done += n;
      lock.lock();
    }
  }

  std::vector<Column> columns_;
  size_t rows_ = 0, block_ = 0, ahead_ = 0;
  std::atomic<size_t> written_{0};
  bool stop_ = false;  // (guarded by mutex_)
  std::mutex mutex_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace schedlab

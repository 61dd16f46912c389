// What fresh memory costs on this machine: the CPU time to write one byte per 4 KB page of a
// newly allocated buffer (so the kernel must supply and zero every page), first in a process
// and then again after the buffer was freed, with and without the transparent-huge-page advice
// the engine once gave its large arrays (madvise MADV_HUGEPAGE).
//
//   build/ctest/bench_first_touch [megabytes=160] [repeats=5]
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <initializer_list>

#include <sys/mman.h>

static double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

int main(int argc, char** argv) {
  const size_t mb = argc > 1 ? size_t(std::atol(argv[1])) : 160;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  const size_t bytes = mb << 20, huge = size_t(2) << 20;
  for (const bool advise : {true, false}) {
    for (int r = 0; r < repeats; ++r) {
      const double c0 = cpu_seconds();
      auto* p = static_cast<volatile char*>(std::aligned_alloc(huge, bytes));
      if (!p) return 1;
      if (advise) madvise(const_cast<char*>(p), bytes, MADV_HUGEPAGE);  // (2 MB-aligned: the whole buffer)
      for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
      const double ms = (cpu_seconds() - c0) * 1e3;
      std::free(const_cast<char*>(p));
      std::printf("%zu MB, %s, touch %d: %.1f ms of CPU (%.2f ms/MB)\n", mb,
                  advise ? "huge pages advised" : "4 KB pages", r + 1, ms, ms / double(mb));
    }
  }
  return 0;
}

// Page advice for large arrays: release_memory gives a converted array's pages back while its data
// moves elsewhere; populate_memory faults in, in one call, the pages an array is about to write.
// The engine does not advise its arrays for transparent huge pages: on the
// project machine (a virtual machine whose host takes back free guest memory in 8 MB blocks) a
// fresh 2 MB page is mostly memory the host must supply again, and writing a new array cost
// several times more CPU with the advice than in 4 KB pages (bench/bench_first_touch.cpp measures
// both; docs/performance.md).
#pragma once
#include <cstddef>
#include <cstdint>
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

}  // namespace schedlab

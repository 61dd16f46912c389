// Large arrays filled front to back (per task, per attempt, result columns): backed by huge
// pages where the kernel offers them (Linux transparent huge pages in "madvise" mode), the
// first write into them takes one page fault per 2 MB instead of one per 4 KB.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace schedlab {

inline void advise_huge_pages(const void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  if (bytes < kHuge) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // a hint: failure is harmless
#else
  (void)data;
  (void)bytes;
#endif
}

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

// v.reserve(n), the new buffer advised for huge pages before anything is written to it.
template <class T>
void reserve_huge(std::vector<T>& v, size_t n) {
  if (v.capacity() >= n) return;
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

// v.assign(n, value) into a buffer advised for huge pages.
template <class T>
void assign_huge(std::vector<T>& v, size_t n, const T& value = T()) {
  if (v.capacity() < n) {
    std::vector<T>().swap(v);
    reserve_huge(v, n);
  }
  v.assign(n, value);
}

}  // namespace schedlab

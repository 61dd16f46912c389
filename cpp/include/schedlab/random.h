// Seeded random streams with the project's own sampling code, so that results are identical
// bit for bit across compilers and standard libraries (std::*_distribution are not portable).
#pragma once
#include <cmath>
#include <cstdint>

namespace schedlab {

// SplitMix64: expands one 64-bit seed into well-mixed state words.
inline uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// xoshiro256** generator. A simulation derives independent streams from (seed, stream id), so
// adding draws to one mechanism never perturbs another's sequence.
class Random {
 public:
  explicit Random(uint64_t seed = 0, uint64_t stream = 0) { reseed(seed, stream); }

  void reseed(uint64_t seed, uint64_t stream = 0) {
    uint64_t x = seed ^ (0xd1b54a32d192ed03ULL * (stream + 1));
    for (auto& w : s_) w = splitmix64(x);
  }

  uint64_t next_u64() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform on [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

  // Uniform integer on [0, n), unbiased: a draw r is rejected when it falls in the last block
  // of n values of the 64-bit range (r >= UINT64_MAX - UINT64_MAX % n), else r % n. The test is
  // made on r's block start r - r % n, past UINT64_MAX - n exactly for that block. r % n is
  // computed by multiplications instead of a division (Lemire, Kaser and Kurz, "Faster remainder
  // by direct computation", Software: Practice and Experience 49(6), 2019: with c = ceil(2^128 / n),
  // r % n is the high 64 bits of ((c * r) mod 2^128) * n, exactly, for every 64-bit r and n);
  // c is kept for the last n asked (callers draw many values below the same n in a row).
  uint64_t below(uint64_t n) {
    if (n <= 1) return 0;
    if (n != mod_n_) {
      mod_n_ = n;
      mod_c_ = ~U128(0) / n + 1;
    }
    for (;;) {
      const uint64_t r = next_u64();
      const uint64_t m = remainder(r, n);
      if (r - m <= UINT64_MAX - n) return m;
    }
  }

  // Exponential with the given mean.
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }

  // Standard normal by the Box-Muller transform (one value per call; the pair's twin is
  // discarded to keep the stream position a pure function of the call count).
  double normal(double mean = 0.0, double sd = 1.0) {
    double u1 = uniform();
    while (u1 <= 0.0) u1 = uniform();
    const double u2 = uniform();
    return mean + sd * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  double lognormal(double mu, double sigma) { return std::exp(normal(mu, sigma)); }

  // Pareto with scale xm and shape alpha.
  double pareto(double xm, double alpha) { return xm / std::pow(1.0 - uniform(), 1.0 / alpha); }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  __extension__ typedef unsigned __int128 U128;
  // r % mod_n_ from mod_c_ (see below())
  uint64_t remainder(uint64_t r, uint64_t n) const {
    const U128 low = mod_c_ * r;  // mod 2^128
    const U128 bottom = (static_cast<U128>(static_cast<uint64_t>(low)) * n) >> 64;
    const U128 top = static_cast<U128>(static_cast<uint64_t>(low >> 64)) * n;
    return static_cast<uint64_t>((bottom + top) >> 64);
  }
  uint64_t s_[4];
  uint64_t mod_n_ = 0;  // the divisor of the last below(), 0 if none yet
  U128 mod_c_ = 0;
};

}  // namespace schedlab

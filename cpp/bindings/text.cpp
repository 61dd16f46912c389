// The Hawk/Eagle simulator's .tr files parsed in one pass into columns (schedlab._core.tr_columns):
// lines holding a variable count of numbers. Only the plain case is handled here; anything
// unusual is handed back and the reader's own NumPy or line-by-line parsing decides (its errors
// name the line).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common.h"

namespace py = pybind11;

namespace schedlab::bindings {

namespace {

inline bool blank(char c) { return c == ' ' || c == '\t' || c == '\x0b' || c == '\x0c'; }
inline bool digit(char c) { return c >= '0' && c <= '9'; }

inline bool line_end(char c) { return c == '\n' || c == '\r'; }

// The token at p -- [+-]digits[.digits][(e|E)[+-]digits], at least one digit before or after the
// point, up to a blank, a line end or the end -- as a double correctly rounded; p moves past it.
// False for anything else (inf, nan, hex, '_', ...). *all_digits: the token is digits only. The
// digits are gathered while the token is checked: when they fit in 53 bits and the power of ten
// is at most 22, both are exact doubles and one multiplication or division rounds correctly
// (Clinger's fast path, as in std::from_chars, which converts the other tokens).
bool plain_number(const char*& p, const char* end, double& out, bool* all_digits) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char* const b = p;
  const bool neg = p < end && *p == '-';
  if (p < end && (*p == '+' || *p == '-')) ++p;
  uint64_t mant = 0;
  int64_t n = 0;     // digits before and after the point
  int64_t frac = 0;  // digits after the point
  for (; p < end && digit(*p); ++p, ++n) mant = mant * 10 + uint64_t(*p - '0');
  *all_digits = p > b && !(*b == '+' || *b == '-');
  if (p < end && *p == '.') {
    ++p;
    *all_digits = false;
    for (; p < end && digit(*p); ++p, ++n, ++frac) mant = mant * 10 + uint64_t(*p - '0');
  }
  if (n == 0) return false;
  int64_t exp10 = 0;
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    *all_digits = false;
    const bool eneg = p < end && *p == '-';
    if (p < end && (*p == '+' || *p == '-')) ++p;
    const char* ex = p;
    for (; p < end && digit(*p); ++p)
      if (exp10 < 100000) exp10 = exp10 * 10 + (*p - '0');  // (past that, from_chars decides)
    if (p == ex) return false;
    if (eneg) exp10 = -exp10;
  }
  if (p < end && !blank(*p) && !line_end(*p)) return false;
  const int64_t q = exp10 - frac;
  if (n <= 19 && mant <= (uint64_t(1) << 53) && q >= -22 && q <= 22) {  // (19 digits cannot overflow)
    const double m = static_cast<double>(mant);
    const double v = q < 0 ? m / kPow10[-q] : m * kPow10[q];
    out = neg ? -v : v;
    return true;
  }
  const char* s = *b == '+' ? b + 1 : b;  // from_chars takes no '+'
  const auto r = std::from_chars(s, p, out);
  return r.ec == std::errc() && r.ptr == p;
}

// Moves a vector into a NumPy array without copying its elements.
template <class T>
py::array_t<T> to_numpy(std::vector<T>&& v) {
  auto* heap = new std::vector<T>(std::move(v));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({heap->size()}, {sizeof(T)}, heap->data(), owner);
}

// The columns of a .tr file ("submit_time n_tasks mean d_1 ... d_n" per line), or why they are
// not given: kNotPlain when a token is not a plain decimal number or a count field is not all
// digits (NumPy's conversion decides then), kNeedsLines when the numbers are plain but a line's
// count, values or mean need the line-by-line reading (which names the line).
enum class TrParse { kOk, kNotPlain, kNeedsLines };

struct TrColumns {
  std::vector<double> submit, mean, durations;
  std::vector<int64_t> counts;
};

TrParse parse_tr(std::string_view s, double mean_tolerance, TrColumns& out) {
  out.durations.reserve(s.size() / 8 + 16);
  const char* p = s.data();
  const char* const end = p + s.size();
  int64_t k = 0;  // numbers on the current line
  double count = 0, sum = 0;
  // A line's checks, at its end: the count matches the durations and is at least 1, and the
  // mean field is the durations' mean well inside the tolerance (near it, the line-by-line
  // reading decides with the mean NumPy computes).
  auto line_ok = [&]() {
    if (k < 3 || count < 1 || count != double(k - 3)) return false;
    const double m = out.mean.back();
    return std::isfinite(m) && std::fabs(sum / count - m) <= 0.5 * mean_tolerance * std::max(1.0, std::fabs(m));
  };
  while (p < end) {
    const char c = *p;
    if (blank(c)) { ++p; continue; }
    if (line_end(c)) {  // a line ends at \n or \r (bytes.splitlines); empty lines are skipped
      if (k > 0 && !line_ok()) return TrParse::kNeedsLines;
      k = 0;
      ++p;
      continue;
    }
    double v;
    bool all_digits;
    if (!plain_number(p, end, v, &all_digits) || (k == 1 && !all_digits)) return TrParse::kNotPlain;
    if (k == 0) {
      if (!(v >= 0) || !std::isfinite(v)) return TrParse::kNeedsLines;
      out.submit.push_back(v);
      sum = 0;
    } else if (k == 1) {
      if (v > 9.0e15) return TrParse::kNeedsLines;  // (past 2^53 a count is not exact as a double)
      count = v;
      out.counts.push_back(int64_t(v));
    } else if (k == 2) {
      out.mean.push_back(v);
    } else {
      if (!(v >= 0) || !std::isfinite(v)) return TrParse::kNeedsLines;
      out.durations.push_back(v);
      sum += v;
    }
    ++k;
  }
  if (k > 0 && !line_ok()) return TrParse::kNeedsLines;
  return out.submit.empty() ? TrParse::kNeedsLines : TrParse::kOk;
}

}  // namespace

void bind_text(py::module_& m) {
  m.def(
      "tr_columns",
      [](py::bytes data, double mean_tolerance) -> py::object {
        std::string_view s = data;
        TrColumns cols;
        TrParse r;
        {
          py::gil_scoped_release release;
          r = parse_tr(s, mean_tolerance, cols);
        }
        if (r == TrParse::kNotPlain) return py::none();
        if (r == TrParse::kNeedsLines) return py::bool_(false);
        return py::make_tuple(to_numpy(std::move(cols.submit)), to_numpy(std::move(cols.counts)),
                              to_numpy(std::move(cols.mean)), to_numpy(std::move(cols.durations)));
      },
      py::arg("data"), py::arg("mean_tolerance"),
      "The columns of a .tr file in one pass (lines end at \\n, \\r or \\r\\n; blanks are space, tab, \\v, \\f; "
      "empty lines skipped): (submit, counts, mean, durations) as NumPy arrays, the numbers converted as NumPy "
      "converts them. None if some token is not a plain decimal number or a count is not all digits; False if "
      "the numbers are plain but some line needs a closer look (a count that does not match, a negative value, "
      "a mean near or past half of mean_tolerance).");
}

}  // namespace schedlab::bindings

// Number parsing of whitespace-separated text traces in one pass (schedlab._core.split_numbers),
// for readers whose lines hold a variable count of numbers (the Hawk/Eagle simulator's .tr
// files). Only the plain case is handled here; anything unusual returns None and the reader's
// own NumPy or line-by-line parsing decides (its errors name the line).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <charconv>
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

}  // namespace

void bind_text(py::module_& m) {
  m.def(
      "split_numbers",
      [](py::bytes data, int64_t digits_field) -> py::object {
        std::string_view s = data;
        std::vector<double> vals;
        std::vector<int64_t> lens;
        bool plain = true;
        {
          py::gil_scoped_release release;
          vals.reserve(s.size() / 6 + 16);
          const char* p = s.data();
          const char* const end = p + s.size();
          int64_t k = 0;  // numbers on the current line
          while (p < end) {
            const char c = *p;
            if (blank(c)) { ++p; continue; }
            if (line_end(c)) {  // a line ends at \n or \r (bytes.splitlines); empty lines are skipped
              if (k > 0) lens.push_back(k);
              k = 0;
              ++p;
              continue;
            }
            double v;
            bool all_digits;
            if (!plain_number(p, end, v, &all_digits) || (k == digits_field && !all_digits)) {
              plain = false;
              break;
            }
            vals.push_back(v);
            ++k;
          }
          if (plain && k > 0) lens.push_back(k);
        }
        if (!plain) return py::none();
        py::array_t<double> v(static_cast<py::ssize_t>(vals.size()));
        std::copy(vals.begin(), vals.end(), v.mutable_data());
        py::array_t<int64_t> l(static_cast<py::ssize_t>(lens.size()));
        std::copy(lens.begin(), lens.end(), l.mutable_data());
        return py::make_tuple(v, l);
      },
      py::arg("data"), py::arg("digits_field") = -1,
      "The numbers of whitespace-separated text, line by line (lines end at \\n, \\r or \\r\\n; blanks are space, "
      "tab, \\v, \\f; empty lines skipped): (values as float64 in order, count per non-empty line), or None if any "
      "token is not a plain decimal number or field `digits_field` of a line is not all digits.");
}

}  // namespace schedlab::bindings

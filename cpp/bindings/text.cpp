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

// A token [+-]digits[.digits][(e|E)[+-]digits] (at least one digit before or after the point),
// as a double correctly rounded; false for anything else (inf, nan, hex, '_', ...).
bool plain_number(const char* b, const char* e, double& out) {
  const char* p = b;
  if (p < e && (*p == '+' || *p == '-')) ++p;
  const char* digits = p;
  while (p < e && digit(*p)) ++p;
  size_t n = static_cast<size_t>(p - digits);
  if (p < e && *p == '.') {
    ++p;
    const char* frac = p;
    while (p < e && digit(*p)) ++p;
    n += static_cast<size_t>(p - frac);
  }
  if (n == 0) return false;
  if (p < e && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < e && (*p == '+' || *p == '-')) ++p;
    const char* ex = p;
    while (p < e && digit(*p)) ++p;
    if (p == ex) return false;
  }
  if (p != e) return false;
  const char* s = *b == '+' ? b + 1 : b;  // from_chars takes no '+'
  const auto r = std::from_chars(s, e, out);
  return r.ec == std::errc() && r.ptr == e;
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
          while (p < end && plain) {
            // one line: up to \n or \r (bytes.splitlines)
            const char* eol = p;
            while (eol < end && *eol != '\n' && *eol != '\r') ++eol;
            int64_t k = 0;
            const char* q = p;
            for (;;) {
              while (q < eol && blank(*q)) ++q;
              if (q == eol) break;
              const char* t = q;
              while (q < eol && !blank(*q)) ++q;
              if (k == digits_field)
                for (const char* c = t; c < q; ++c)
                  if (!digit(*c)) plain = false;
              double v;
              if (!plain || !plain_number(t, q, v)) { plain = false; break; }
              vals.push_back(v);
              ++k;
            }
            if (k > 0) lens.push_back(k);
            p = eol + 1;  // (\r\n leaves an empty line between, skipped)
          }
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

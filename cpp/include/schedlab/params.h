// Scheduler parameters: a declared list of named, typed, range-checked values with the
// defaults the papers used. Unknown names and bad values are rejected with a clear message.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace schedlab {

struct ParamSpec {
  enum Type { Number, Integer, Boolean, Choice, Text };
  std::string name;
  Type type = Number;
  double default_number = 0;
  std::string default_choice;
  double min = -1e300, max = 1e300;
  std::vector<std::string> choices;
  std::string doc;

  static ParamSpec number(std::string name, double def, double lo, double hi, std::string doc);
  static ParamSpec integer(std::string name, int64_t def, int64_t lo, int64_t hi, std::string doc);
  static ParamSpec boolean(std::string name, bool def, std::string doc);
  static ParamSpec text(std::string name, std::string def, std::string doc);
  static ParamSpec choice(std::string name, std::string def, std::vector<std::string> choices, std::string doc);
};

// Values as given by the user; resolve() merges them with the specs' defaults.
struct ParamValues {
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> strings;
};

class Params {
 public:
  Params() = default;
  // Validates `given` against `specs` (unknown name, wrong type, out of range, unknown
  // choice -> std::invalid_argument mentioning `owner` and the parameter) and fills defaults.
  Params(const std::string& owner, const std::vector<ParamSpec>& specs, const ParamValues& given);

  double number(const std::string& name) const;
  int64_t integer(const std::string& name) const { return static_cast<int64_t>(number(name)); }
  bool boolean(const std::string& name) const { return number(name) != 0.0; }
  const std::string& choice(const std::string& name) const;
  const std::string& text(const std::string& name) const { return choice(name); }
  bool has(const std::string& name) const { return numbers_.count(name) || strings_.count(name); }

 private:
  std::string owner_;
  std::map<std::string, double> numbers_;
  std::map<std::string, std::string> strings_;
};

}  // namespace schedlab

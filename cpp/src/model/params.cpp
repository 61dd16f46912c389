#include "schedlab/params.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace schedlab {

ParamSpec ParamSpec::number(std::string name, double def, double lo, double hi, std::string doc) {
  ParamSpec s;
  s.name = std::move(name); s.type = Number; s.default_number = def; s.min = lo; s.max = hi; s.doc = std::move(doc);
  return s;
}
ParamSpec ParamSpec::integer(std::string name, int64_t def, int64_t lo, int64_t hi, std::string doc) {
  ParamSpec s = number(std::move(name), double(def), double(lo), double(hi), std::move(doc));
  s.type = Integer;
  return s;
}
ParamSpec ParamSpec::boolean(std::string name, bool def, std::string doc) {
  ParamSpec s = number(std::move(name), def ? 1 : 0, 0, 1, std::move(doc));
  s.type = Boolean;
  return s;
}
ParamSpec ParamSpec::choice(std::string name, std::string def, std::vector<std::string> choices, std::string doc) {
  ParamSpec s;
  s.name = std::move(name); s.type = Choice; s.default_choice = std::move(def); s.choices = std::move(choices); s.doc = std::move(doc);
  return s;
}

ParamSpec ParamSpec::text(std::string name, std::string def, std::string doc) {
  ParamSpec s;
  s.name = std::move(name); s.type = Text; s.default_choice = std::move(def); s.doc = std::move(doc);
  return s;
}

Params::Params(const std::string& owner, const std::vector<ParamSpec>& specs, const ParamValues& given) : owner_(owner) {
  auto known = [&](const std::string& n) -> const ParamSpec* {
    for (auto& s : specs) if (s.name == n) return &s;
    return nullptr;
  };
  auto names = [&] {
    std::ostringstream o;
    for (size_t i = 0; i < specs.size(); ++i) o << (i ? ", " : "") << specs[i].name;
    return specs.empty() ? std::string("(none)") : o.str();
  };
  for (auto& [n, v] : given.numbers) {
    const ParamSpec* s = known(n);
    if (!s) throw std::invalid_argument(owner + ": unknown parameter '" + n + "'; valid parameters: " + names());
    if (s->type == ParamSpec::Choice || s->type == ParamSpec::Text)
      throw std::invalid_argument(owner + ": parameter '" + n + "' takes a string, not a number");
    if (!std::isfinite(v) && !(std::isinf(v) && v > 0 && s->max == INFINITY))
      throw std::invalid_argument(owner + ": parameter '" + n + "' must be a finite number");
    if (v < s->min || v > s->max) {
      std::ostringstream o;
      o << owner << ": parameter '" << n << "' = " << v << " is outside [" << s->min << ", " << s->max << "]";
      throw std::invalid_argument(o.str());
    }
    if ((s->type == ParamSpec::Integer || s->type == ParamSpec::Boolean) && v != std::floor(v))
      throw std::invalid_argument(owner + ": parameter '" + n + "' must be a whole number");
    numbers_[n] = v;
  }
  for (auto& [n, v] : given.strings) {
    const ParamSpec* s = known(n);
    if (!s) throw std::invalid_argument(owner + ": unknown parameter '" + n + "'; valid parameters: " + names());
    if (s->type != ParamSpec::Choice && s->type != ParamSpec::Text)
      throw std::invalid_argument(owner + ": parameter '" + n + "' takes a number, not '" + v + "'");
    bool ok = s->type == ParamSpec::Text;
    for (auto& c : s->choices) ok |= (c == v);
    if (!ok) {
      std::ostringstream o;
      o << owner << ": parameter '" << n << "' = '" << v << "' is not one of";
      for (auto& c : s->choices) o << " '" << c << "'";
      throw std::invalid_argument(o.str());
    }
    strings_[n] = v;
  }
  for (auto& s : specs) {
    if (s.type == ParamSpec::Choice || s.type == ParamSpec::Text) { if (!strings_.count(s.name)) strings_[s.name] = s.default_choice; }
    else if (!numbers_.count(s.name)) numbers_[s.name] = s.default_number;
  }
}

double Params::number(const std::string& name) const {
  auto it = numbers_.find(name);
  if (it == numbers_.end()) throw std::logic_error(owner_ + ": parameter '" + name + "' is not declared");
  return it->second;
}

const std::string& Params::choice(const std::string& name) const {
  auto it = strings_.find(name);
  if (it == strings_.end()) throw std::logic_error(owner_ + ": parameter '" + name + "' is not declared");
  return it->second;
}

}  // namespace schedlab

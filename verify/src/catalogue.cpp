// The property catalogue: the parts concatenated, names checked unique once.
#include "qalg/verify/catalogue.hpp"

#include <set>
#include <stdexcept>

namespace qalg::verify {

const std::vector<Property>& property_catalogue() {
  static const std::vector<Property> all = [] {
    std::vector<Property> v;
    for (auto part : {algebra_properties, rank_properties, lowering_properties, fault_properties,
                      demonstration_properties})
      for (auto& p : part()) v.push_back(std::move(p));
    std::set<std::string> seen;
    for (const auto& p : v)
      if (!seen.insert(p.name).second) throw std::logic_error("duplicate property name " + p.name);
    return v;
  }();
  return all;
}

const Property* find_property(const std::string& name) {
  for (const auto& p : property_catalogue())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace qalg::verify

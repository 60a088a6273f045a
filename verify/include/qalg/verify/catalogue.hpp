#pragma once
// The catalogue of named properties covering SPEC §1–4 (issue 5). `qalg check` runs them by name;
// tests/verify runs every one with a fixed seed.
#include <string>
#include <vector>

#include "qalg/verify/property.hpp"

namespace qalg::verify {

// Every property, demonstrations (deliberately false laws) included, in a stable order.
const std::vector<Property>& property_catalogue();
// nullptr when no property has that name.
const Property* find_property(const std::string& name);

// The parts, one per SPEC area (each in its own source file).
std::vector<Property> algebra_properties();   // SPEC §1–2: Q_G and tensor products
std::vector<Property> rank_properties();      // SPEC §3: bounds, algorithms
std::vector<Property> lowering_properties();  // SPEC §4: cost identities, plan executor
std::vector<Property> fault_properties();     // fault injection (one property per fault kind)
std::vector<Property> demonstration_properties();

}  // namespace qalg::verify

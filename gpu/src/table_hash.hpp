#pragma once
// SHA-256 (hex) of the compact JSON serialisation of a table file, the same digest the exact
// core's qalg::table_hash computes for tables it wrote (table_to_json(t).dump()): nlohmann's
// objects keep keys sorted, so parse + dump reproduces the writer's bytes. Empty when the gpu
// module was built without OpenSSL (the GPU machine may lack it).
#include <string>

#include <nlohmann/json.hpp>

namespace qalg::gpu {

std::string canonical_table_hash(const nlohmann::json& table);

}  // namespace qalg::gpu

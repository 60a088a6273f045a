// The inspect report as one JSON object, shared by `qalg inspect --json` and the Python module
// so that both give the same fields by construction (issue 10).
#include "qalg/algebra/table_io.hpp"
#include "qalg/rank/rank_report.hpp"

namespace qalg {

nlohmann::json inspect_json(const StructureTensor& t, const AlgebraReport& a, const RankReport& r,
                            const std::string& description, bool with_table) {
  nlohmann::json j = to_json(t, a);
  j["algebra"] = description;
  j["table_hash"] = table_hash(t);
  j["alder_strassen_bound"] = nullptr;
  for (const auto& b : r.bounds)
    if (b.name.rfind("Alder", 0) == 0) j["alder_strassen_bound"] = b.value;
  j["explicit_length"] = r.explicit_length;
  j["rank_exact"] = r.rank_exact ? nlohmann::json(*r.rank_exact) : nlohmann::json(nullptr);
  j["rank"] = to_json(r);
  if (with_table) j["table"] = table_to_json(t);
  return j;
}

}  // namespace qalg

// Type schedules (schedule.hpp, SPEC §4).
#include "qalg/gpu/schedule.hpp"

#include <stdexcept>

namespace qalg::gpu {

static void require_q(uint32_t q) {
  if (q == 0) throw std::invalid_argument("type schedule: q must be at least 1");
}

TypeSchedule TypeSchedule::cyclic(uint32_t q) {
  require_q(q);
  return TypeSchedule(Kind::Cyclic, q, 1);
}

TypeSchedule TypeSchedule::intervals(uint32_t q, uint64_t interval_length) {
  require_q(q);
  if (interval_length == 0) throw std::invalid_argument("interval schedule: length L must be at least 1");
  if (interval_length > UINT64_MAX / q)
    throw std::invalid_argument("interval schedule: q·L overflows");
  return TypeSchedule(Kind::Intervals, q, interval_length);
}

TypeSchedule TypeSchedule::explicit_types(uint32_t q, std::vector<uint32_t> types) {
  require_q(q);
  validate_row_types(types, types.size(), q, "explicit schedule");
  TypeSchedule s(Kind::Explicit, q, 0);
  s.types_ = std::move(types);
  return s;
}

uint32_t TypeSchedule::type_of(uint64_t p) const {
  switch (kind_) {
    case Kind::Cyclic:
      return uint32_t(p % q_);
    case Kind::Intervals:
      return uint32_t((p % (q_ * length_)) / length_);
    case Kind::Explicit:
      if (p >= types_.size())
        throw std::invalid_argument("explicit schedule: row " + std::to_string(p) +
                                    " is past its " + std::to_string(types_.size()) + " rows");
      return types_[p];
  }
  return 0;
}

std::vector<uint32_t> TypeSchedule::row_types(uint64_t M) const {
  std::vector<uint32_t> out(M);
  for (uint64_t p = 0; p < M; ++p) out[p] = type_of(p);
  return out;
}

std::string TypeSchedule::describe() const {
  switch (kind_) {
    case Kind::Cyclic:
      return "cyclic (q = " + std::to_string(q_) + ")";
    case Kind::Intervals:
      return "intervals (q = " + std::to_string(q_) + ", L = " + std::to_string(length_) + ")";
    case Kind::Explicit:
      return "explicit (" + std::to_string(types_.size()) + " rows)";
  }
  return "";
}

void validate_row_types(const std::vector<uint32_t>& types, uint64_t M, uint32_t q,
                        const std::string& what) {
  if (types.size() != M)
    throw std::invalid_argument(what + ": " + std::to_string(types.size()) + " row types for " +
                                std::to_string(M) + " rows");
  for (size_t p = 0; p < types.size(); ++p)
    if (types[p] >= q)
      throw std::invalid_argument(what + ": row " + std::to_string(p) + " has type " +
                                  std::to_string(types[p]) + ", not < q = " + std::to_string(q));
}

}  // namespace qalg::gpu

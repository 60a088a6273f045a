#pragma once
// Type schedules (SPEC §4): which row type τ(p) a row (token position) p has.
//   cyclic       τ(p) = p mod q                        (kernel benchmarks)
//   intervals    τ(p) = floor((p mod (q·L)) / L)       (the paper's model: q = 4, L = 192)
//   explicit     a per-row array of types, each < q
// Executors and kernels take the materialised per-row array (row_types).
#include <cstdint>
#include <string>
#include <vector>

namespace qalg::gpu {

class TypeSchedule {
 public:
  enum class Kind { Cyclic, Intervals, Explicit };

  static TypeSchedule cyclic(uint32_t q);
  static TypeSchedule intervals(uint32_t q, uint64_t interval_length);
  // Throws std::invalid_argument naming the first row whose type is >= q.
  static TypeSchedule explicit_types(uint32_t q, std::vector<uint32_t> types);

  Kind kind() const { return kind_; }
  uint32_t q() const { return q_; }
  uint64_t interval_length() const { return length_; }
  // τ(p); for an explicit schedule p must be < the array's length (throws otherwise).
  uint32_t type_of(uint64_t p) const;
  // τ(0..M-1).
  std::vector<uint32_t> row_types(uint64_t M) const;
  std::string describe() const;

 private:
  TypeSchedule(Kind k, uint32_t q, uint64_t length) : kind_(k), q_(q), length_(length) {}
  Kind kind_;
  uint32_t q_;
  uint64_t length_;
  std::vector<uint32_t> types_;
};

// Throws std::invalid_argument unless types.size() == M and every type is < q (`what` names the
// caller's argument in the message).
void validate_row_types(const std::vector<uint32_t>& types, uint64_t M, uint32_t q,
                        const std::string& what);

}  // namespace qalg::gpu

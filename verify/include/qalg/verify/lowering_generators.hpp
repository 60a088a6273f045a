#pragma once
// Generators for the lowering (SPEC §4): group widths, type schedules and slot-compatible tables.
#include <rapidcheck.h>

#include <cstdint>
#include <vector>

#include "qalg/algebra/table_io.hpp"
#include "qalg/gpu/schedule.hpp"
#include "qalg/gpu/table_data.hpp"
#include "qalg/verify/generators.hpp"

namespace qalg::verify {

// q group widths, each in [1, max_width].
inline rc::Gen<std::vector<uint32_t>> gen_widths(uint32_t q, uint32_t max_width = 4) {
  return rc::gen::container<std::vector<uint32_t>>(q, rc::gen::inRange<uint32_t>(1, max_width + 1));
}

// One of the three schedule kinds of SPEC §4 for q types.
inline rc::Gen<gpu::TypeSchedule> gen_type_schedule(uint32_t q, uint64_t rows) {
  return rc::gen::oneOf(
      rc::gen::just(gpu::TypeSchedule::cyclic(q)),
      rc::gen::map(rc::gen::inRange<uint64_t>(1, 5),
                   [q](uint64_t L) { return gpu::TypeSchedule::intervals(q, L); }),
      rc::gen::map(rc::gen::container<std::vector<uint32_t>>(rows, rc::gen::inRange<uint32_t>(0, q)),
                   [q](std::vector<uint32_t> t) { return gpu::TypeSchedule::explicit_types(q, std::move(t)); }));
}

// Slot-compatible tables over Q (the kernels compute over the reals): Q_G for a quiver without
// loops or parallel arrows (complete or not), or a tensor power of Q_2 (SPEC §4's Q_2^{⊗L}).
inline rc::Gen<StructureTensor> gen_slot_compatible_table(size_t max_vertices) {
  QuiverShape simple{.max_vertices = std::max<size_t>(1, max_vertices), .max_arrows = 3 * max_vertices,
                     .loops = false, .parallel = false};
  return rc::gen::weightedOneOf<StructureTensor>(
      {{3, rc::gen::map(gen_quiver(simple), [](const Quiver& q) { return graph_algebra(q, Field::rationals()); })},
       {1, rc::gen::map(rc::gen::inRange(1, 3), [](int L) {
          return tensor_power(graph_algebra(quiver_family("complete:2"), Field::rationals()), unsigned(L));
        })}});
}

// The gpu module's FLINT-free view of a table, through the shared table file format.
inline gpu::TableData to_table_data(const StructureTensor& t) {
  return gpu::table_data_from_json(table_to_json(t), "generated table");
}

}  // namespace qalg::verify

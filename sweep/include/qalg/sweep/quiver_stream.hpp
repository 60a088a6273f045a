#pragma once
// Every quiver on n vertices up to isomorphism, read from nauty's generators (Debian nauty):
//   loopless:   geng -q n | directg -q -T            (OEIS A000273: 1, 3, 16, 218, 9608, ...)
//   with loops: geng -q n | directg -q | vcolg -q -m2 -T
// A loop at v is a vertex colour: two digraphs with loop sets are isomorphic exactly when the
// loopless parts are isomorphic by a map that carries one loop set onto the other, which is
// isomorphism of 2-coloured digraphs, and vcolg emits one colouring per such class
// (OEIS A000595: 2, 10, 104, 3044, 291968, ...). The order of the stream is nauty's, fixed for a
// given (n, options), so a quiver's index in it names it across runs and across MPI ranks.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "qalg/algebra/quiver.hpp"

namespace qalg::sweep {

struct QuiverRange {
  unsigned vertices = 1;
  std::optional<unsigned> max_arrows;  // arrows counted with loops
  bool loops = false;
  std::optional<std::pair<unsigned, unsigned>> part;  // nauty's res/mod: underlying graphs k of M
};

// The shell pipeline for a range (nauty's Debian names nauty-geng etc., or plain geng on PATH).
// Throws InputError when n is outside [1, 10] or nauty is not installed.
std::string nauty_pipeline(const QuiverRange& range);

// One line of nauty's -T output ("n m [colours] u v u v ...") as a Quiver: vertices v1..vn,
// arrows a1.. in nauty's order, then one loop per colour-1 vertex. Throws InputError on bad text.
Quiver parse_nauty_line(const std::string& line, bool coloured);

class QuiverStream {
 public:
  explicit QuiverStream(const QuiverRange& range);
  ~QuiverStream();
  QuiverStream(const QuiverStream&) = delete;
  QuiverStream& operator=(const QuiverStream&) = delete;
  // Advances to the next quiver in range; false at the end. index() is its position (from 0).
  bool next();
  uint64_t index() const { return index_ - 1; }
  // The current quiver (parsed on demand, so ranks skip other ranks' quivers cheaply).
  Quiver quiver() const;
  // Closes the pipeline; throws InputError when nauty failed.
  void finish();

 private:
  bool read_line();
  QuiverRange range_;
  std::FILE* pipe_ = nullptr;
  std::string line_;
  uint64_t index_ = 0;
};

}  // namespace qalg::sweep

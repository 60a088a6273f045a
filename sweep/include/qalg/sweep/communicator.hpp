#pragma once
// The sweep's only contact with MPI: who am I, how many are we, and gather one string per rank
// on rank 0. Built without MPI (or started without mpirun) it is a world of one process.
#include <memory>
#include <string>
#include <vector>

namespace qalg::sweep {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Ranks on this rank's machine (shared memory), this one included: they share its cores.
  virtual int ranks_on_this_node() const = 0;
  // Rank 0 receives every rank's string, in rank order; other ranks receive {}.
  virtual std::vector<std::string> gather_to_root(const std::string& mine) = 0;
  // Every rank receives rank 0's string.
  virtual std::string broadcast_from_root(const std::string& root_value) = 0;
  // Ends every rank with this exit code (a rank-local input error must not leave the others
  // waiting in a collective).
  [[noreturn]] virtual void abort(int code) = 0;
};

// MPI_COMM_WORLD when qalg was built with MPI and started by mpirun (MPI is initialised here and
// finalised when the object dies); otherwise one process.
std::unique_ptr<Communicator> world_communicator();
bool built_with_mpi();

}  // namespace qalg::sweep

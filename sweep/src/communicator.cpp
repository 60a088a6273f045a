// world_communicator(): OpenMPI when built with it and launched by mpirun, else one process.
#include "qalg/sweep/communicator.hpp"

#include <cstdlib>

#ifdef QALG_WITH_MPI
#include <mpi.h>
#endif

namespace qalg::sweep {
namespace {

class SingleProcess final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int ranks_on_this_node() const override { return 1; }
  std::vector<std::string> gather_to_root(const std::string& mine) override { return {mine}; }
  std::string broadcast_from_root(const std::string& root_value) override { return root_value; }
  [[noreturn]] void abort(int code) override { std::exit(code); }
};

#ifdef QALG_WITH_MPI
class MpiWorld final : public Communicator {
 public:
  MpiWorld() {
    // Only this thread calls MPI; the search's worker threads never do (FUNNELED).
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size_);
    MPI_Comm_free(&node);
  }
  ~MpiWorld() override { MPI_Finalize(); }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int ranks_on_this_node() const override { return node_size_; }
  std::vector<std::string> gather_to_root(const std::string& mine) override {
    const int length = int(mine.size());
    std::vector<int> lengths(size_t(size_), 0), offsets(size_t(size_), 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string all;
    if (rank_ == 0) {
      size_t total = 0;
      for (int r = 0; r < size_; ++r) offsets[size_t(r)] = int(total), total += size_t(lengths[size_t(r)]);
      all.resize(total);
    }
    MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    std::vector<std::string> out;
    if (rank_ == 0)
      for (int r = 0; r < size_; ++r) out.push_back(all.substr(size_t(offsets[size_t(r)]), size_t(lengths[size_t(r)])));
    return out;
  }
  std::string broadcast_from_root(const std::string& root_value) override {
    unsigned long long length = root_value.size();
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    std::string out = rank_ == 0 ? root_value : std::string(length, '\0');
    MPI_Bcast(out.data(), int(length), MPI_CHAR, 0, MPI_COMM_WORLD);
    return out;
  }
  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
  }

 private:
  int rank_ = 0, size_ = 1, node_size_ = 1;
};

// mpirun (OpenMPI's, or a PMI/PMIx launcher) sets these; a plain `qalg sweep` stays MPI-free, so
// it needs no MPI daemon and behaves like a build without MPI.
bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}
#endif

}  // namespace

bool built_with_mpi() {
#ifdef QALG_WITH_MPI
  return true;
#else
  return false;
#endif
}

std::unique_ptr<Communicator> world_communicator() {
#ifdef QALG_WITH_MPI
  if (launched_by_mpirun()) return std::make_unique<MpiWorld>();
#endif
  return std::make_unique<SingleProcess>();
}

}  // namespace qalg::sweep

#include "experiments/trials/cluster.h"

#include <mpi.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace attnlab {

Cluster& Cluster::Get() {
  static Cluster* cluster = new Cluster();  // lives until exit; MPI_Finalize via atexit
  return *cluster;
}

Cluster::Cluster() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr && std::getenv("PMI_SIZE") == nullptr) {
    return;  // not launched by mpirun
  }
  MPI_Init(nullptr, nullptr);
  mpi_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  std::atexit([] {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  });
}

Cluster::~Cluster() = default;

void Cluster::Barrier() const {
  if (mpi_) MPI_Barrier(MPI_COMM_WORLD);
}

std::vector<std::string> Cluster::GatherToRoot(const std::string& mine) const {
  if (!mpi_) return {mine};
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(size_);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(size_, 0);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string all(rank_ == 0 ? total : 0, '\0');
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  if (rank_ != 0) return out;
  for (int r = 0; r < size_; ++r) out.push_back(all.substr(offsets[r], lengths[r]));
  return out;
}

std::string Cluster::BroadcastFromRoot(const std::string& root) const {
  if (!mpi_) return root;
  int length = rank_ == 0 ? static_cast<int>(root.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string out = rank_ == 0 ? root : std::string(length, '\0');
  MPI_Bcast(out.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  return out;
}

absl::Status ShareRootStatus(const Cluster* cluster, const absl::Status& status) {
  if (cluster == nullptr || cluster->size() == 1) return status;
  const std::string shared = cluster->BroadcastFromRoot(
      status.ok() ? "" : absl::StrCat(static_cast<int>(status.code()), "\t", status.message()));
  if (shared.empty()) return absl::OkStatus();
  const size_t tab = shared.find('\t');
  return absl::Status(static_cast<absl::StatusCode>(std::stoi(shared.substr(0, tab))),
                      shared.substr(tab + 1));
}

}  // namespace attnlab

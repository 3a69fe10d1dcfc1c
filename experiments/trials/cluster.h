// The processes of one run: a single process, or the ranks of `mpirun -np K`. MPI is started
// only when the process was launched by mpirun, so the runner works the same without it.
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_CLUSTER_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_CLUSTER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace attnlab {

class Cluster {
 public:
  // Joins the MPI world when launched by mpirun (Open MPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE),
  // else a cluster of one. Call once, early in main.
  static Cluster& Get();

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }

  void Barrier() const;
  // On rank 0: every rank's string, in rank order. On the others: empty.
  std::vector<std::string> GatherToRoot(const std::string& mine) const;
  // Rank 0's string, on every rank (the others' argument is ignored).
  std::string BroadcastFromRoot(const std::string& root) const;

  ~Cluster();

 private:
  Cluster();
  bool mpi_ = false;
  int rank_ = 0, size_ = 1;
};

// Rank 0's status (code and message) on every rank, so that all ranks go on, or stop, together:
// a rank that went on alone would wait forever for the others. `status` itself without a
// cluster (null) or with one rank.
absl::Status ShareRootStatus(const Cluster* cluster, const absl::Status& status);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_CLUSTER_H_

// The attention zoo: each mechanism (rows) on each task (columns: a task's metrics), a cell
// holding the final metric over seeds, "n/a: <why>" where the task's model cannot take the
// mechanism (its one-line spec error), or "failed: <why>" where every trial failed.
#ifndef ATTNLAB_EXPERIMENTS_ZOO_H_
#define ATTNLAB_EXPERIMENTS_ZOO_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/trials/runner.h"
#include "experiments/zoo.pb.h"

namespace attnlab {

struct ZooCell {
  std::string task, metric, mechanism;
  // Mean and sample std over the seeds that finished (seeds = their count).
  double mean = 0, stddev = 0;
  int seeds = 0;
  // Empty when the cell has a value; else "n/a: ..." or "failed: ...".
  std::string note;
};

struct ZooOptions {
  // Each (task, mechanism) keeps its results store in <out_dir>/<task>/<mechanism>: a rerun
  // reuses finished trials.
  std::string out_dir;
  int threads = 1;
  // > 0: every task trains this many steps (shortened runs).
  int64_t steps = 0;
  bool progress = true;
  std::function<bool()> stop;
  CodeVersion code = UnversionedBuild();
  Reuse reuse = Reuse::kSameCode;
};

// `zoo_path`: the zoo spec's file, for its tasks' relative paths. A zoo spec error (a task's
// file missing or unparsable, a bad override, an unknown metric or mechanism) is an error;
// a mechanism a task's model refuses is an n/a cell.
absl::StatusOr<std::vector<ZooCell>> RunZoo(const ZooSpec& zoo, const std::string& zoo_path,
                                            const ZooOptions& options);

// Keeps the tasks of `zoo` labeled in `labels` (comma-separated, in the spec's order; empty:
// all); InvalidArgument naming the known labels for one it does not have.
absl::Status KeepTasks(absl::string_view labels, ZooSpec* zoo);

// Rows: mechanisms; columns: "<task> <metric>"; notes in full below the table.
std::string ZooTable(const std::vector<ZooCell>& cells);

// One row per cell: task,metric,mechanism,mean,std,seeds,note.
absl::Status WriteZooCsv(const std::vector<ZooCell>& cells, const std::string& path);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_ZOO_H_

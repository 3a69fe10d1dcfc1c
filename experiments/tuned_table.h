// A tuned comparison as one table: each model at its best value of a tuning axis (the learning
// rate), judged by the mean over seeds of a metric, beside reference models that are not tuned
// (paper 3's FC nets against the transformer and predicting 0: //experiments:fc_vs_transformer).
#ifndef ATTNLAB_EXPERIMENTS_TUNED_TABLE_H_
#define ATTNLAB_EXPERIMENTS_TUNED_TABLE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/trials/runner.h"

namespace attnlab {

struct TunedRow {
  // The model's label on `model_axis`; the tuning axis's best label ("" for a reference).
  std::string model, best;
  double params = 0, mean = 0, stddev = 0;
  int seeds = 0;
  // How many values of the tuning axis were tried.
  int tried = 0;
};

// One row per label of `model_axis` in `tuned` (in sweep order), at the label of `tuning_axis`
// with the lowest mean `metric` over seeds, then one per label of `model_axis` in `references`
// that `tuned` does not tune (their untuned trials of a tuned model are left out).
// `params` is read from the metric of that name. InvalidArgument names a missing axis or
// metric; a failed trial is FailedPrecondition naming it.
absl::StatusOr<std::vector<TunedRow>> TunedRows(const ExperimentResult& tuned,
                                                const ExperimentResult& references,
                                                const std::string& model_axis,
                                                const std::string& tuning_axis,
                                                const std::string& metric,
                                                const std::string& params);

// The rows as an aligned text table (with each row's error over `baseline`'s, the reference
// row of that label, when it has one) and as CSV (model,best,tried,params,mean,sd,seeds).
std::string TunedTableText(const std::vector<TunedRow>& rows, const std::string& tuning_axis,
                           const std::string& metric, const std::string& baseline);
std::string TunedTableCsv(const std::vector<TunedRow>& rows);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TUNED_TABLE_H_

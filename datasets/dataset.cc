#include "datasets/dataset.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "attention/kernels/parallel.h"
#include "datasets/dataset_plugin.h"

namespace attnlab {

template <typename T>
void Dataset<T>::Next(int batch_size, ExecContext& ctx, Batch<T>* out) const {
  const Batch<T>& all = *train();
  const int n = all.inputs.batch();
  batch_size = std::min(batch_size, n);
  // Partial Fisher-Yates: the first batch_size entries become a uniform random subset.
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  for (int i = 0; i < batch_size; ++i) {
    std::uniform_int_distribution<int> pick(i, n - 1);
    std::swap(order[i], order[pick(ctx.rng())]);
  }
  const Shape in = all.inputs.shape(), target = all.targets.shape();
  out->inputs.Resize({batch_size, in.rows, in.cols});
  out->targets.Resize({batch_size, target.rows, target.cols});
  ParallelFor(ctx, batch_size, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      out->inputs.sample(i) = all.inputs.sample(order[i]);
      out->targets.sample(i) = all.targets.sample(order[i]);
    }
  }, GrainFor(in.rows * in.cols));
}

template <typename T>
absl::StatusOr<std::unique_ptr<Dataset<T>>> CreateDataset(const DatasetSpec& spec,
                                                          const std::string& base_dir) {
  if (spec.plugin().empty()) {
    return FieldError("plugin",
                      absl::StrCat("missing: name a dataset plugin (",
                                   absl::StrJoin(DatasetRegistry<T>().Names(), ", "), ")"));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<DatasetPlugin<T>> dataset,
                   DatasetRegistry<T>().CreateAt(spec.plugin(), spec.config()));
  if (absl::Status status = dataset->Setup({base_dir, spec.seed()}); !status.ok()) {
    return PrefixErrorField("config", status);
  }
  return std::unique_ptr<Dataset<T>>(std::move(dataset));
}

template class Dataset<float>;
template class Dataset<double>;
template absl::StatusOr<std::unique_ptr<Dataset<float>>> CreateDataset(const DatasetSpec&,
                                                                       const std::string&);
template absl::StatusOr<std::unique_ptr<Dataset<double>>> CreateDataset(const DatasetSpec&,
                                                                        const std::string&);

}  // namespace attnlab

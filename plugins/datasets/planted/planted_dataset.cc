#include "plugins/datasets/planted/planted_dataset.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "datasets/fixed_dataset.h"

namespace attnlab {
namespace {

template <typename T>
absl::StatusOr<std::unique_ptr<Dataset<T>>> DrawPlanted(const plugins::PlantedConfig& spec,
                                                        uint64_t seed) {
  const int n = spec.num_sequences(), seq_len = spec.seq_len(), dim = spec.dim();
  if (n <= 0) return FieldError("num_sequences", "must be > 0");
  if (seq_len <= 0) return FieldError("seq_len", "must be > 0");
  if (dim <= 0) return FieldError("dim", "must be > 0");
  if (spec.noise_std() < 0) return FieldError("noise_std", "must be >= 0");
  if (spec.random_labels() && spec.label_size() != 0) {
    return FieldError("random_labels", "excludes label");
  }
  if (spec.label_size() != 0 && spec.label_size() != n) {
    return FieldError("label", absl::StrCat("has ", spec.label_size(),
                                            " entries; give none (all +1) or num_sequences = ", n));
  }
  if (spec.score_coordinate() < 0 || spec.score_coordinate() >= dim) {
    return FieldError("score_coordinate", absl::StrCat("must be in [0, dim = ", dim, ")"));
  }
  for (int g = 0; g < spec.group_size(); ++g) {
    const plugins::PlantedConfig::Group& group = spec.group(g);
    const std::string path = absl::StrCat("group[", g, "]");
    if (group.first() < 0 || group.count() <= 0 || group.first() + group.count() > seq_len) {
      return FieldError(
          path, absl::StrCat("tokens ", group.first(), "..", group.first() + group.count() - 1,
                             " are not within 0..", seq_len - 1));
    }
    if (group.shift_size() != 0 && group.shift_size() != dim) {
      return FieldError(absl::StrCat(path, ".shift"),
                        absl::StrCat("has ", group.shift_size(), " entries, expected dim = ", dim));
    }
  }
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  const int first = spec.query_row() ? 1 : 0;  // the row of token 0
  Batch<T> batch;
  batch.inputs.Resize({n, first + seq_len, dim});
  batch.targets.Resize({n, 1, 1});
  for (Eigen::Index i = 0; i < batch.inputs.size(); ++i) {
    batch.inputs.data()[i] = static_cast<T>(spec.noise_std() * normal(rng));
  }
  for (int i = 0; i < n; ++i) {
    auto x = batch.inputs.sample(i);
    for (const plugins::PlantedConfig::Group& group : spec.group()) {
      for (int t = first + group.first(); t < first + group.first() + group.count(); ++t) {
        for (int j = 0; j < group.shift_size(); ++j) x(t, j) += static_cast<T>(group.shift(j));
        if (group.has_score()) x(t, spec.score_coordinate()) = static_cast<T>(group.score());
      }
    }
    if (spec.unit_norm()) {
      for (int t = 0; t < x.rows(); ++t) {
        const T norm = x.row(t).norm();
        if (!(norm > 0)) {
          return FieldError("unit_norm", absl::StrCat("row ", t, " of sequence ", i,
                                                      " is 0 (noise_std 0 and no shift?)"));
        }
        x.row(t) /= norm;
      }
    }
    batch.targets.data()[i] = static_cast<T>(spec.label_size() ? spec.label(i) : 1.0);
  }
  if (spec.random_labels()) {
    for (int i = 0; i < n; ++i) batch.targets.data()[i] = static_cast<T>(normal(rng) > 0 ? 1 : -1);
  }
  return std::unique_ptr<Dataset<T>>(new FixedDataset<T>(std::move(batch)));
}

}  // namespace

template <typename T>
absl::StatusOr<std::unique_ptr<Dataset<T>>> PlantedDataset<T>::Build(
    const DatasetContext& context) {
  return DrawPlanted<T>(config_, context.seed);
}

template class PlantedDataset<float>;
template class PlantedDataset<double>;

ATTNLAB_REGISTER_DATASET("planted", plugins::PlantedConfig, PlantedDataset,
                         "random Gaussian sequences with planted token groups and scores (paper "
                         "1, setup 1c)",
                         {"num_sequences: 4 seq_len: 3 dim: 2 noise_std: 0.5 "
                          "group { first: 0 count: 1 shift: [1, 0] score: 2 }"});

}  // namespace attnlab

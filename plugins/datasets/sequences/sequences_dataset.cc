#include "plugins/datasets/sequences/sequences_dataset.h"

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "datasets/fixed_dataset.h"

namespace attnlab {
namespace {

template <typename T>
absl::StatusOr<std::unique_ptr<Dataset<T>>> ReadSequences(const plugins::SequencesConfig& spec) {
  const int n = spec.sequence_size();
  if (n == 0) return FieldError("sequence", "list at least one sequence");
  const int seq_len = spec.sequence(0).token_size();
  if (seq_len == 0) return FieldError("sequence[0].token", "a sequence needs at least one token");
  const int dim = spec.sequence(0).token(0).x_size();
  if (dim == 0) return FieldError("sequence[0].token[0].x", "a token needs at least one entry");
  Batch<T> batch;
  batch.inputs.Resize({n, seq_len, dim});
  batch.targets.Resize({n, 1, 1});
  for (int i = 0; i < n; ++i) {
    const plugins::SequencesConfig::Sequence& sequence = spec.sequence(i);
    if (sequence.token_size() != seq_len) {
      return FieldError(absl::StrCat("sequence[", i, "].token"),
                        absl::StrCat("has ", sequence.token_size(), " tokens, sequence[0] has ",
                                     seq_len, " (all sequences need the same length)"));
    }
    for (int t = 0; t < seq_len; ++t) {
      const plugins::SequencesConfig::Token& token = sequence.token(t);
      if (token.x_size() != dim) {
        return FieldError(absl::StrCat("sequence[", i, "].token[", t, "].x"),
                          absl::StrCat("has ", token.x_size(), " entries, expected ", dim));
      }
      for (int j = 0; j < dim; ++j) batch.inputs.sample(i)(t, j) = static_cast<T>(token.x(j));
    }
    batch.targets.data()[i] = static_cast<T>(sequence.has_label() ? sequence.label() : 1.0);
  }
  return std::unique_ptr<Dataset<T>>(new FixedDataset<T>(std::move(batch)));
}

}  // namespace

template <typename T>
absl::StatusOr<std::unique_ptr<Dataset<T>>> SequencesDataset<T>::Build(const DatasetContext&) {
  return ReadSequences<T>(config_);
}

template class SequencesDataset<float>;
template class SequencesDataset<double>;

ATTNLAB_REGISTER_DATASET("sequences", plugins::SequencesConfig, SequencesDataset,
                         "sequences written out in the spec, token by token, with labels (paper 1)",
                         {"sequence { token { x: [1, 0] } token { x: [0, 1] } } "
                          "sequence { label: -1 token { x: [1, 1] } token { x: [0, -1] } }"});

}  // namespace attnlab

#include "plugins/datasets/sparse_selection/sparse_selection_stream.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/kernels/gaussian.h"
#include "attention/kernels/parallel.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<SparseSelectionStream<T>>> SparseSelectionStream<T>::Create(
    const plugins::SparseSelectionConfig& spec) {
  if (spec.seq_len() <= 0) return FieldError("seq_len", "must be > 0");
  if (spec.dim() <= 0) return FieldError("dim", "must be > 0");
  if (spec.q() <= 0 || spec.q() > spec.seq_len()) {
    return FieldError("q", absl::StrCat("must be in 1..seq_len = ", spec.seq_len()));
  }
  if (spec.validation_size() < 0) return FieldError("validation_size", "must be >= 0");
  if (spec.validation_seq_len_size() > 0 && spec.validation_size() == 0) {
    return FieldError("validation_size", "validation_seq_len needs validation_size > 0");
  }
  for (int k = 0; k < spec.validation_seq_len_size(); ++k) {
    const int len = spec.validation_seq_len(k);
    if (len < spec.q()) {
      return FieldError("validation_seq_len", absl::StrCat("length ", len, " is shorter than q"));
    }
    for (int other = 0; other < k; ++other) {
      if (spec.validation_seq_len(other) == len) {
        return FieldError("validation_seq_len", absl::StrCat("length ", len, " is listed twice"));
      }
    }
  }
  return std::unique_ptr<SparseSelectionStream<T>>(new SparseSelectionStream<T>(spec));
}

template <typename T>
absl::Status SparseSelectionStream<T>::Setup(const DatasetContext& context) {
  ExecContext one_thread(context.seed);
  validation_.clear();
  for (int k = 0; k < spec_.validation_seq_len_size(); ++k) {
    const int len = spec_.validation_seq_len(k);
    NamedBatch<T> set;
    set.name = absl::StrCat("T", len);
    Draw(spec_.validation_size(), len, StreamSeed(context.seed, k), one_thread, &set.batch);
    validation_.push_back(std::move(set));
  }
  return absl::OkStatus();
}

template <typename T>
void SparseSelectionStream<T>::Draw(int batch_size, int seq_len, uint64_t seed, ExecContext& ctx,
                                    Batch<T>* out) const {
  const int d = spec_.dim(), q = spec_.q();
  out->inputs.Resize({batch_size, seq_len, d + 1});
  out->targets.Resize({batch_size, 1, d});
  ParallelFor(
      ctx, batch_size,
      [&](int begin, int end) {
        std::vector<int> positions(seq_len);
        for (int b = begin; b < end; ++b) {
          uint64_t state = StreamSeed(seed, b);
          // Row t: token t, then its mark (0 until y is drawn). The marks' column is drawn too
          // and then zeroed: one pass of whole-vector stores into the batch, where copying
          // d-entry tokens into (d + 1)-entry rows stalled on the stores.
          auto sample = out->inputs.sample(b);
          GaussianStream(SplitMix64(state)).Fill(sample.data(), sample.size());
          sample.col(d).setZero();
          // y: the first q entries of a partial Fisher-Yates shuffle.
          std::iota(positions.begin(), positions.end(), 0);
          auto target = out->targets.sample(b);
          target.setZero();
          for (int i = 0; i < q; ++i) {
            const int j =
                i + static_cast<int>(SplitMix64(state) % static_cast<uint64_t>(seq_len - i));
            std::swap(positions[i], positions[j]);
            sample(positions[i], d) = 1;
            target += sample.row(positions[i]).leftCols(d);
          }
          target /= static_cast<T>(q);
        }
      },
      GrainFor(int64_t{seq_len} * (d + 1)));
}

template <typename T>
void SparseSelectionStream<T>::Next(int batch_size, ExecContext& ctx, Batch<T>* out) const {
  Draw(batch_size, spec_.seq_len(), ctx.rng()(), ctx, out);
}

template class SparseSelectionStream<float>;
template class SparseSelectionStream<double>;

ATTNLAB_REGISTER_DATASET(
    "sparse_selection", plugins::SparseSelectionConfig, SparseSelectionStream,
    "paper 3's q-sparse averaging stream STS_q: Gaussian tokens, a marked "
    "q-subset y, target its mean; validation sets at other lengths",
    {"seq_len: 12 q: 3 dim: 4 validation_size: 8 validation_seq_len: [12, 20]"});

}  // namespace attnlab

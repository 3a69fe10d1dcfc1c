#include "plugins/datasets/max_token_retrieval/max_token_retrieval.h"

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/kernels/gaussian.h"
#include "attention/kernels/parallel.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<MaxTokenRetrieval<T>>> MaxTokenRetrieval<T>::Create(
    const plugins::MaxTokenRetrievalConfig& config) {
  if (config.seq_len() <= 0) return FieldError("seq_len", "must be > 0");
  if (config.dim() <= 0) return FieldError("dim", "must be > 0");
  if (config.validation_size() < 0) return FieldError("validation_size", "must be >= 0");
  return std::unique_ptr<MaxTokenRetrieval<T>>(new MaxTokenRetrieval<T>(config));
}

template <typename T>
absl::Status MaxTokenRetrieval<T>::Setup(const DatasetContext& context) {
  // u from the seed's first stream, the validation set from its second.
  direction_.resize(config_.dim());
  GaussianStream(StreamSeed(context.seed, 0)).Fill(direction_.data(), direction_.size());
  direction_.normalize();
  validation_.clear();
  if (config_.validation_size() > 0) {
    NamedBatch<T> set{"test", {}};
    ExecContext one_thread(context.seed);
    Draw(config_.validation_size(), StreamSeed(context.seed, 1), one_thread, &set.batch);
    validation_.push_back(std::move(set));
  }
  return absl::OkStatus();
}

template <typename T>
void MaxTokenRetrieval<T>::Next(int batch_size, ExecContext& ctx, Batch<T>* out) const {
  Draw(batch_size, ctx.rng()(), ctx, out);
}

template <typename T>
void MaxTokenRetrieval<T>::Draw(int batch_size, uint64_t seed, ExecContext& ctx,
                                Batch<T>* out) const {
  const int seq_len = config_.seq_len(), d = config_.dim();
  out->inputs.Resize({batch_size, seq_len, d});
  out->targets.Resize({batch_size, 1, d});
  ParallelFor(
      ctx, batch_size,
      [&](int begin, int end) {
        Vector<T> scores(seq_len);
        for (int b = begin; b < end; ++b) {
          auto tokens = out->inputs.sample(b);
          GaussianStream(StreamSeed(seed, b)).Fill(tokens.data(), tokens.size());
          scores.noalias() = tokens * direction_;
          Eigen::Index best;
          scores.maxCoeff(&best);
          out->targets.sample(b) = tokens.row(best);
        }
      },
      GrainFor(int64_t{seq_len} * d));
}

template class MaxTokenRetrieval<float>;
template class MaxTokenRetrieval<double>;

ATTNLAB_REGISTER_DATASET("max_token_retrieval", plugins::MaxTokenRetrievalConfig, MaxTokenRetrieval,
                         "a stream of Gaussian tokens; the target is the token scoring highest "
                         "on a hidden direction",
                         {"seq_len: 5 dim: 3 validation_size: 4"});

}  // namespace attnlab

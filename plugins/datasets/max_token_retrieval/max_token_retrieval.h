// The `max_token_retrieval` dataset: retrieve the token that scores highest on a hidden
// direction. The template for a new dataset: a config message, a class with Create, Setup and
// the Dataset interface, and one ATTNLAB_REGISTER_DATASET line in the .cc.
#ifndef ATTNLAB_PLUGINS_MAX_TOKEN_RETRIEVAL_MAX_TOKEN_RETRIEVAL_H_
#define ATTNLAB_PLUGINS_MAX_TOKEN_RETRIEVAL_MAX_TOKEN_RETRIEVAL_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "datasets/dataset_plugin.h"
#include "plugins/datasets/max_token_retrieval/max_token_retrieval.pb.h"

namespace attnlab {

template <typename T>
class MaxTokenRetrieval : public DatasetPlugin<T> {
 public:
  static absl::StatusOr<std::unique_ptr<MaxTokenRetrieval<T>>> Create(
      const plugins::MaxTokenRetrievalConfig& config);

  absl::Status Setup(const DatasetContext& context) override;

  Shape input_shape() const override { return {1, config_.seq_len(), config_.dim()}; }
  Shape target_shape() const override { return {1, 1, config_.dim()}; }
  const Batch<T>* train() const override { return nullptr; }  // a stream
  void Next(int batch_size, ExecContext& ctx, Batch<T>* out) const override;
  const std::vector<NamedBatch<T>>& validation() const override { return validation_; }

  // The hidden direction u (unit norm).
  const Vector<T>& direction() const { return direction_; }

 private:
  explicit MaxTokenRetrieval(plugins::MaxTokenRetrievalConfig config)
      : config_(std::move(config)) {}

  // `batch_size` samples, sample i drawn from StreamSeed(seed, i), on ctx's threads.
  void Draw(int batch_size, uint64_t seed, ExecContext& ctx, Batch<T>* out) const;

  plugins::MaxTokenRetrievalConfig config_;
  Vector<T> direction_;
  std::vector<NamedBatch<T>> validation_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_MAX_TOKEN_RETRIEVAL_MAX_TOKEN_RETRIEVAL_H_

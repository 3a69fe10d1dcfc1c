// The `embedding` plugin (config: embedding.proto).
#ifndef ATTNLAB_PLUGINS_EMBEDDING_EMBEDDING_H_
#define ATTNLAB_PLUGINS_EMBEDDING_EMBEDDING_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/layer.h"
#include "plugins/layers/embedding/embedding.pb.h"

namespace attnlab {

template <typename T>
class Embedding : public Layer<T> {
 public:
  using Config = plugins::EmbeddingConfig;

  static absl::StatusOr<std::unique_ptr<Embedding<T>>> Create(const Config& config);

  absl::StatusOr<Shape> Setup(const Shape& input, ExecContext& ctx) override;
  absl::StatusOr<Shape> OutputShape(const Shape& input) const override;
  absl::Status CheckInputValues(const Tensor<T>& input) const override;
  void Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) override;
  // Token ids are not differentiable: grad_in, if asked for, is zero.
  void Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) override;
  std::vector<Parameter<T>*> parameters() override;

 private:
  explicit Embedding(const Config& config) : config_(config) {}

  Config config_;
  Parameter<T> tokens_, positions_;
  const Tensor<T>* input_ = nullptr;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_EMBEDDING_EMBEDDING_H_

// The `patch_embedding` plugin (config: PatchEmbeddingConfig in vision.proto).
#ifndef ATTNLAB_PLUGINS_VISION_PATCH_EMBEDDING_H_
#define ATTNLAB_PLUGINS_VISION_PATCH_EMBEDDING_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/layer.h"
#include "plugins/layers/vision/vision.pb.h"

namespace attnlab {

template <typename T>
class PatchEmbedding : public Layer<T> {
 public:
  using Config = plugins::PatchEmbeddingConfig;

  static absl::StatusOr<std::unique_ptr<PatchEmbedding<T>>> Create(const Config& config);

  absl::StatusOr<Shape> Setup(const Shape& input, ExecContext& ctx) override;
  absl::StatusOr<Shape> OutputShape(const Shape& input) const override;
  void Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) override;
  void Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) override;
  std::vector<Parameter<T>*> parameters() override;

 private:
  explicit PatchEmbedding(const Config& config) : config_(config) {}

  // Row p of patches: patch p of each image, flattened: (batch * patches) x (patch^2 channels).
  void Gather(const Tensor<T>& in, Matrix<T>* patches, ExecContext& ctx) const;

  Config config_;
  int height_ = 0, width_ = 0, patches_ = 0, first_ = 0;  // first_: 1 with a class token
  Parameter<T> w_, b_, class_token_, positions_;
  Shape input_shape_;
  Matrix<T> patch_rows_, projected_, grad_projected_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_VISION_PATCH_EMBEDDING_H_

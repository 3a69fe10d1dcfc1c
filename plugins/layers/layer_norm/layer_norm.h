// The `layer_norm` plugin (config: layer_norm.proto).
#ifndef ATTNLAB_PLUGINS_LAYER_NORM_LAYER_NORM_H_
#define ATTNLAB_PLUGINS_LAYER_NORM_LAYER_NORM_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/layer.h"
#include "plugins/layers/layer_norm/layer_norm.pb.h"

namespace attnlab {

template <typename T>
class LayerNorm : public Layer<T> {
 public:
  using Config = plugins::LayerNormConfig;

  static absl::StatusOr<std::unique_ptr<LayerNorm<T>>> Create(const Config& config);

  absl::StatusOr<Shape> Setup(const Shape& input, ExecContext& ctx) override;
  absl::StatusOr<Shape> OutputShape(const Shape& input) const override;
  void Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) override;
  void Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) override;
  void BackwardAdd(const Tensor<T>& grad_out, const Tensor<T>& grad_residual, Tensor<T>* grad_in,
                   ExecContext& ctx) override;
  std::vector<Parameter<T>*> parameters() override { return {&gamma_, &beta_}; }

 private:
  // Backward, with grad_residual (unless null) added to dL/dx as it is written.
  void BackwardWithResidual(const Tensor<T>& grad_out, const Tensor<T>* grad_residual,
                            Tensor<T>* grad_in, ExecContext& ctx);
  explicit LayerNorm(const Config& config) : config_(config) {}

  Config config_;
  int dim_ = 0;
  Parameter<T> gamma_, beta_;
  // Forward caches: the input, and its mean and 1 / sqrt(var + eps) per token. Backward
  // normalizes the input again rather than Forward storing it normalized (a pass over the
  // tokens' memory less).
  const Tensor<T>* input_ = nullptr;
  Vector<T> mean_, inv_std_;
  Matrix<T> gamma_partials_, beta_partials_;  // the backward's, one row per block of rows
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_LAYER_NORM_LAYER_NORM_H_

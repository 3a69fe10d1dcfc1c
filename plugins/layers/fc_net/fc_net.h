// The `fc_net` plugin (config: fc_net.proto).
#ifndef ATTNLAB_PLUGINS_FC_NET_FC_NET_H_
#define ATTNLAB_PLUGINS_FC_NET_FC_NET_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/kernels/activations.h"
#include "attention/layer.h"
#include "plugins/layers/fc_net/fc_net.pb.h"

namespace attnlab {

template <typename T>
class FcNet : public Layer<T> {
 public:
  using Config = plugins::FcNetConfig;

  static absl::StatusOr<std::unique_ptr<FcNet<T>>> Create(const Config& config);

  absl::StatusOr<Shape> Setup(const Shape& input, ExecContext& ctx) override;
  absl::StatusOr<Shape> OutputShape(const Shape& input) const override;
  void Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) override;
  void ForwardAdd(const Tensor<T>& in, const Tensor<T>& residual, Tensor<T>* out,
                  ExecContext& ctx) override;
  void Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) override;
  std::vector<Parameter<T>*> parameters() override;

 private:
  // Forward, with `residual` (unless null) added by the last affine map.
  void ForwardWithResidual(const Tensor<T>& in, const Tensor<T>* residual, Tensor<T>* out,
                           ExecContext& ctx);
  explicit FcNet(const Config& config) : config_(config) {}
  Activation activation() const {
    return config_.activation() == Config::GELU   ? Activation::kGelu
           : config_.activation() == Config::TANH ? Activation::kTanh
                                                  : Activation::kRelu;
  }

  // Rows the net maps, each of inputs_ entries: samples, or tokens with per_token.
  int Rows(const Tensor<T>& in) const {
    return config_.per_token() ? in.batch() * in.rows() : in.batch();
  }

  Config config_;
  int inputs_ = 0;  // T * C (or C, per token) of the inputs it was set up for
  // weights_[k]: fan_in x fan_out; biases_[k]: 1 x fan_out.
  std::vector<Parameter<T>> weights_, biases_;

  // Forward caches: post_[k] = the activation of hidden layer k, derivative_[k] = the
  // activation's derivative at its input (the affine map's output, overwritten).
  const Tensor<T>* input_ = nullptr;
  std::vector<Matrix<T>> derivative_, post_;
  // Backward: grad_[k] = dL/d(output of affine map k) for the hidden layers.
  std::vector<Matrix<T>> grad_;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_FC_NET_FC_NET_H_

// A model assembled from a ModelSpec: registered layers applied in order, then a registered loss.
#ifndef ATTNLAB_ATTENTION_MODEL_H_
#define ATTNLAB_ATTENTION_MODEL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/exec_context.h"
#include "attention/layer.h"
#include "attention/loss.h"
#include "attention/model.pb.h"
#include "attention/regularizer.h"
#include "attention/tensor.h"

namespace attnlab {

template <typename T>
class Model {
 public:
  // Builds the layers and the loss of `spec` and sets them up for inputs of `input_shape` and
  // targets of `target_shape`. Errors are FieldErrors relative to the ModelSpec
  // ("layer[0].config.p.value").
  static absl::StatusOr<std::unique_ptr<Model<T>>> Create(const ModelSpec& spec,
                                                          const Shape& input_shape,
                                                          const Shape& target_shape,
                                                          ExecContext& ctx);

  // The prediction for `input`, which must stay alive until Backward.
  const Tensor<T>& Forward(const Tensor<T>& input, ExecContext& ctx);
  // The loss of the last prediction against `target` plus the regularizers' penalties; keeps
  // everything Backward needs.
  T ComputeLoss(const Tensor<T>& target, ExecContext& ctx);
  // The data loss alone, without gradients (validation).
  T EvaluateLoss(const Tensor<T>& target, ExecContext& ctx);
  // Sets every parameter's gradient for the last ComputeLoss.
  void Backward(ExecContext& ctx);
  // The regularizers' part of the last ComputeLoss.
  T last_penalty() const { return last_penalty_; }
  // Forward, ComputeLoss, Backward; returns the loss.
  T TrainStep(const Tensor<T>& input, const Tensor<T>& target, ExecContext& ctx);

  // *grad = d(data loss)/d(input) at `input` (adversarial attacks), from its own forward and
  // backward pass; every parameter's gradient is left as it was.
  void InputGradient(const Tensor<T>& input, const Tensor<T>& target, Tensor<T>* grad,
                     ExecContext& ctx);

  // OK if the model takes inputs and targets of these shapes (the layers were set up for one
  // shape; a validation set may have another sequence length).
  absl::Status CheckShapes(const Shape& input, const Shape& target) const;

  // The first layer's CheckInputValues and the loss's CheckTargetValues; errors are
  // FieldErrors relative to the ModelSpec.
  absl::Status CheckValues(const Tensor<T>& input, const Tensor<T>& target) const;

  // Trainable scalars (frozen parameters excluded).
  int64_t parameter_count() const;

  // Named "<layer>/<param>", in layer order.
  const std::vector<Parameter<T>*>& parameters() const { return parameters_; }
  Parameter<T>* FindParameter(const std::string& name) const;
  // A layer by name, or a sublayer by path ("block0/attn").
  Layer<T>* FindLayer(const std::string& name) const;
  // Every layer's path, sublayers included, for messages.
  std::vector<std::string> LayerPaths() const;
  const std::vector<std::string>& layer_names() const { return layer_names_; }
  const Tensor<T>& prediction() const { return activations_.back(); }

  // Where a diverged step first went non-finite, for its error message: "parameter
  // 'block0/attn/k'" (a NaN or Inf value), else "output of layer 'block0'" (the first layer
  // whose last output has one), else "gradient of 'block0/attn/k'"; "" when all are finite.
  std::string NonFiniteSource() const;

 private:
  Model() = default;

  std::vector<std::string> layer_names_;
  std::vector<std::unique_ptr<Layer<T>>> layers_;
  std::unique_ptr<Loss<T>> loss_;
  // One regularizer applied to one attention layer; grads_ holds dPenalty/dM per head from
  // the last ComputeLoss.
  struct Penalty {
    std::shared_ptr<Regularizer<T>> regularizer;
    AttentionLayer<T>* layer;
    std::vector<Matrix<T>> grads;
  };
  std::vector<Penalty> penalties_;
  T last_penalty_ = 0;
  std::vector<Parameter<T>*> parameters_;
  // activations_[i] is layer i's output; grads_[i] is dL/d(activations_[i]).
  std::vector<Tensor<T>> activations_;
  std::vector<Tensor<T>> grads_;
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_MODEL_H_

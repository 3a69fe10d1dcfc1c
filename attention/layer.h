// The Layer interface: explicit Forward and Backward over batched tensors.
#ifndef ATTNLAB_ATTENTION_LAYER_H_
#define ATTNLAB_ATTENTION_LAYER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/exec_context.h"
#include "attention/parameter.h"
#include "attention/tensor.h"

namespace attnlab {

template <typename T>
class AttentionLayer;

template <typename T>
class Layer {
 public:
  virtual ~Layer() = default;

  // Called once, before the first Forward, with the input shape (later batches may differ in
  // size, not in rows or cols). Checks the config against the shape, allocates and initializes
  // the parameters (random inits draw from ctx) and returns the output shape. Config errors are
  // FieldErrors relative to the layer's config.
  virtual absl::StatusOr<Shape> Setup(const Shape& input, ExecContext& ctx) = 0;

  // The output shape for `input` after Setup: batches and, where the layer allows, sequence
  // lengths may differ from Setup's (validation at longer T); an error says why not.
  virtual absl::StatusOr<Shape> OutputShape(const Shape& input) const = 0;

  // *out = layer(in). Caches what Backward needs; `in` must stay alive and unchanged until then.
  virtual void Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) = 0;

  // Given dL/d(out) for the last Forward, sets every parameter's grad to dL/d(param) and writes
  // dL/d(in) to *grad_in unless grad_in is null (the first layer needs no input gradient).
  virtual void Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) = 0;

  // *out = residual + layer(in) (residual of the output's shape, not *out): a residual
  // connection's sum.
  // Layers that end in a product add the residual as they write their output; the default
  // adds it in a pass of its own. Backward is unchanged (the sum's gradient is the caller's).
  virtual void ForwardAdd(const Tensor<T>& in, const Tensor<T>& residual, Tensor<T>* out,
                          ExecContext& ctx) {
    Forward(in, out, ctx);
    out->flat() += residual.flat();
  }

  // Backward with *grad_in = grad_residual + dL/d(in) (grad_residual of the input's shape, not
  // *grad_in): the gradient reaching a residual connection's input both ways. Layers add it as
  // they write dL/d(in) where they can; the default adds it in a pass of its own.
  virtual void BackwardAdd(const Tensor<T>& grad_out, const Tensor<T>& grad_residual,
                           Tensor<T>* grad_in, ExecContext& ctx) {
    Backward(grad_out, grad_in, ctx);
    grad_in->flat() += grad_residual.flat();
  }

  virtual std::vector<Parameter<T>*> parameters() { return {}; }

  // Layers built from other layers (a transformer block) name them, so metrics can reach an
  // attention layer inside a block as "block0/attn".
  virtual std::vector<std::pair<std::string, Layer<T>*>> sublayers() { return {}; }

  // Checks input values the shape cannot express (token ids in range, say) on data the
  // runner holds before training: errors there beat garbage later.
  virtual absl::Status CheckInputValues(const Tensor<T>& /*input*/) const {
    return absl::OkStatus();
  }

  // Attention mechanisms return themselves, so metrics can introspect any plugin.
  virtual AttentionLayer<T>* AsAttention() { return nullptr; }
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_LAYER_H_

// Finite-difference gradient checks (testonly): central differences in double, errors relative
// to max(1, |analytic|, |numeric|).
#ifndef ATTNLAB_ATTENTION_GRADIENT_CHECK_H_
#define ATTNLAB_ATTENTION_GRADIENT_CHECK_H_

#include <cstdint>

#include "absl/status/status.h"
#include "attention/layer.h"
#include "attention/loss.h"
#include "attention/model.h"

namespace attnlab {

struct GradientCheckOptions {
  double step = 1e-6;
  double tolerance = 1e-6;
  // The layer's ExecContext is reseeded with this before every Forward, so a stochastic layer
  // sees the same random draws in each evaluation.
  uint64_t seed = 1;
};

// Checks dL/d(input) and dL/d(each parameter that is not frozen) of `layer` (already Setup for
// `input`'s shape) for the loss L = sum(R .* layer(input)), R a fixed random tensor; the
// parameter gradients also from a Backward that asks for no input gradient (as a first layer's
// does). OK, or an error naming the worst entry.
absl::Status CheckLayerGradients(Layer<double>& layer, const Tensor<double>& input,
                                 const GradientCheckOptions& options = {});

// Checks d(loss)/d(prediction) and d(loss)/d(each parameter of the loss), for a loss already
// Setup for these shapes.
absl::Status CheckLossGradient(Loss<double>& loss, const Tensor<double>& prediction,
                               const Tensor<double>& target,
                               const GradientCheckOptions& options = {});

// Checks d(loss)/d(each parameter) of a whole model.
absl::Status CheckModelGradients(Model<double>& model, const Tensor<double>& input,
                                 const Tensor<double>& target,
                                 const GradientCheckOptions& options = {});

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_GRADIENT_CHECK_H_

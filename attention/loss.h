// The Loss interface. Losses are registered plugins like layers (plugins/losses/sample_losses/). A
// loss may own parameters: the language model's output head is part of its loss, so that the
// vocabulary-sized logits are never held whole.
#ifndef ATTNLAB_ATTENTION_LOSS_H_
#define ATTNLAB_ATTENTION_LOSS_H_

#include <vector>

#include "absl/status/status.h"
#include "attention/exec_context.h"
#include "attention/parameter.h"
#include "attention/tensor.h"

namespace attnlab {

template <typename T>
class Loss {
 public:
  virtual ~Loss() = default;

  // Whether predictions and targets of these shapes fit this loss (after Setup).
  virtual absl::Status Check(const Shape& prediction, const Shape& target) const = 0;

  // Called once before use; losses with parameters allocate them here.
  virtual absl::Status Setup(const Shape& prediction, const Shape& target, ExecContext& ctx) {
    return Check(prediction, target);
  }

  // Mean over the batch of the per-sample loss. Unless grad is null, also sets
  // *grad = d(mean loss)/d(prediction) and every parameter's gradient.
  virtual T Compute(const Tensor<T>& prediction, const Tensor<T>& target, Tensor<T>* grad,
                    ExecContext& ctx) = 0;

  virtual std::vector<Parameter<T>*> parameters() { return {}; }

  // Checks target values the shape cannot express (class ids in range), on data the runner
  // holds before training.
  virtual absl::Status CheckTargetValues(const Tensor<T>& /*target*/) const {
    return absl::OkStatus();
  }
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_LOSS_H_

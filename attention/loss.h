// The Loss interface. Losses are registered plugins like layers (plugins/losses/).
#ifndef ATTNLAB_ATTENTION_LOSS_H_
#define ATTNLAB_ATTENTION_LOSS_H_

#include "absl/status/status.h"
#include "attention/tensor.h"

namespace attnlab {

template <typename T>
class Loss {
 public:
  virtual ~Loss() = default;

  // Whether predictions and targets of these shapes fit this loss.
  virtual absl::Status Check(const Shape& prediction, const Shape& target) const = 0;

  // Mean over the batch of the per-sample loss; *grad = d(mean loss)/d(prediction).
  virtual T Compute(const Tensor<T>& prediction, const Tensor<T>& target,
                    Tensor<T>* grad) const = 0;
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_LOSS_H_

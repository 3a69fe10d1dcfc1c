// A batch of samples, the unit of data every layer, loss and metric sees: inputs [batch, T, d]
// and targets [batch, ...].
#ifndef ATTNLAB_ATTENTION_BATCH_H_
#define ATTNLAB_ATTENTION_BATCH_H_

#include <string>

#include "attention/tensor.h"

namespace attnlab {

template <typename T>
struct Batch {
  Tensor<T> inputs;   // [batch, T, d]
  Tensor<T> targets;  // [batch, ...], what the loss compares predictions with
};

// A held-out set: metrics name it ("T400", "test").
template <typename T>
struct NamedBatch {
  std::string name;
  Batch<T> batch;
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_BATCH_H_

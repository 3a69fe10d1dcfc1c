// The `softmax1` mechanism (config: softmax1.proto): softmax with one more, zero, score.
#ifndef ATTNLAB_PLUGINS_SOFTMAX1_SOFTMAX1_MECHANISM_H_
#define ATTNLAB_PLUGINS_SOFTMAX1_SOFTMAX1_MECHANISM_H_

#include <memory>

#include "absl/status/statusor.h"
#include "attention/mechanism.h"
#include "plugins/mechanisms/softmax1/softmax1.pb.h"

namespace attnlab {

template <typename T>
class Softmax1Mechanism : public WeightsMap<T> {
 public:
  using Config = plugins::Softmax1Config;

  static absl::StatusOr<std::unique_ptr<Softmax1Mechanism<T>>> Create(const Config&) {
    return std::make_unique<Softmax1Mechanism<T>>();
  }

  void Map(HeadBlock<T> scores, HeadBlock<T>) const override;
  // As softmax's: dL/ds_j = w_j (g_j - sum_k w_k g_k) (the extra score has no output).
  void MapBackward(ConstHeadBlock<T> weights, ConstHeadBlock<T>, HeadBlock<T> grad) const override;
  bool SoftmaxJacobian() const override { return true; }
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_SOFTMAX1_SOFTMAX1_MECHANISM_H_

// The `relu` mechanism (config: relu.proto): weights relu(scale Q K^T) / (keys seen).
#ifndef ATTNLAB_PLUGINS_RELU_RELU_MECHANISM_H_
#define ATTNLAB_PLUGINS_RELU_RELU_MECHANISM_H_

#include <memory>

#include "absl/status/statusor.h"
#include "attention/mechanism.h"
#include "plugins/mechanisms/relu/relu.pb.h"

namespace attnlab {

template <typename T>
class ReluMechanism : public WeightsMap<T> {
 public:
  using Config = plugins::ReluConfig;

  static absl::StatusOr<std::unique_ptr<ReluMechanism<T>>> Create(const Config&) {
    return std::make_unique<ReluMechanism<T>>();
  }

  void Map(HeadBlock<T> scores, HeadBlock<T>) const override;
  void MapBackward(ConstHeadBlock<T> weights, ConstHeadBlock<T>, HeadBlock<T> grad) const override;

 private:
  // 1 / the number of keys query `row` sees.
  T Normalizer(Eigen::Index row, Eigen::Index keys) const {
    return T(1) / static_cast<T>(this->shape_.causal ? row + 1 : keys);
  }
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_RELU_RELU_MECHANISM_H_

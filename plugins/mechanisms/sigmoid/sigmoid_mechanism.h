// The `sigmoid` mechanism (config: sigmoid.proto): weights sigmoid(scale Q K^T + b).
#ifndef ATTNLAB_PLUGINS_SIGMOID_SIGMOID_MECHANISM_H_
#define ATTNLAB_PLUGINS_SIGMOID_SIGMOID_MECHANISM_H_

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "attention/mechanism.h"
#include "plugins/mechanisms/sigmoid/sigmoid.pb.h"

namespace attnlab {

template <typename T>
class SigmoidMechanism : public WeightsMap<T> {
 public:
  using Config = plugins::SigmoidConfig;

  static absl::StatusOr<std::unique_ptr<SigmoidMechanism<T>>> Create(const Config& config);

  void Map(HeadBlock<T> scores, HeadBlock<T>) const override;
  void MapBackward(ConstHeadBlock<T> weights, ConstHeadBlock<T>, HeadBlock<T> grad) const override;

 private:
  std::optional<T> bias_;  // absent: -log(number of keys)
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_SIGMOID_SIGMOID_MECHANISM_H_

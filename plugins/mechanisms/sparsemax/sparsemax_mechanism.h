// The `sparsemax` mechanism (config: sparsemax.proto): each query's weights are the projection
// of its scores onto the simplex; rows sum to 1 with exact zeros.
#ifndef ATTNLAB_PLUGINS_SPARSEMAX_SPARSEMAX_MECHANISM_H_
#define ATTNLAB_PLUGINS_SPARSEMAX_SPARSEMAX_MECHANISM_H_

#include <memory>

#include "absl/status/statusor.h"
#include "attention/mechanism.h"
#include "plugins/mechanisms/sparsemax/sparsemax.pb.h"

namespace attnlab {

template <typename T>
class SparsemaxMechanism : public WeightsMap<T> {
 public:
  using Config = plugins::SparsemaxConfig;

  static absl::StatusOr<std::unique_ptr<SparsemaxMechanism<T>>> Create(const Config&) {
    return std::make_unique<SparsemaxMechanism<T>>();
  }

  void Map(HeadBlock<T> scores, HeadBlock<T>) const override;
  // On the support S: dL/dz = g - mean_S(g); zero elsewhere.
  void MapBackward(ConstHeadBlock<T> weights, ConstHeadBlock<T>, HeadBlock<T> grad) const override;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_SPARSEMAX_SPARSEMAX_MECHANISM_H_

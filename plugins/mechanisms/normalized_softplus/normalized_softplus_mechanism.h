// The `normalized_softplus` mechanism (config: normalized_softplus.proto): weights
// softplus(s_j) / Z, Z = sum_k softplus(s_k) over the row's scores. Its backward needs Z, which
// the weights alone lose: Map keeps it as the row's state (WeightsMap's backward contract).
#ifndef ATTNLAB_PLUGINS_NORMALIZED_SOFTPLUS_NORMALIZED_SOFTPLUS_MECHANISM_H_
#define ATTNLAB_PLUGINS_NORMALIZED_SOFTPLUS_NORMALIZED_SOFTPLUS_MECHANISM_H_

#include <memory>

#include "absl/status/statusor.h"
#include "attention/mechanism.h"
#include "plugins/mechanisms/normalized_softplus/normalized_softplus.pb.h"

namespace attnlab {

template <typename T>
class NormalizedSoftplusMechanism : public WeightsMap<T> {
 public:
  using Config = plugins::NormalizedSoftplusConfig;

  static absl::StatusOr<std::unique_ptr<NormalizedSoftplusMechanism<T>>> Create(const Config&) {
    return std::make_unique<NormalizedSoftplusMechanism<T>>();
  }

  int RowStateSize() const override { return 1; }  // Z
  // A row whose every softplus underflows to 0 (all scores below about -745 in double, -103 in
  // float) gets weights 0 and Z = 0.
  void Map(HeadBlock<T> scores, HeadBlock<T> state) const override;
  // softplus' = sigmoid = 1 - e^-softplus, and softplus(s_j) = w_j Z: dL/ds_j =
  // (1 - e^(-w_j Z)) / Z (g_j - <w, g>).
  void MapBackward(ConstHeadBlock<T> weights, ConstHeadBlock<T> state,
                   HeadBlock<T> grad) const override;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_NORMALIZED_SOFTPLUS_NORMALIZED_SOFTPLUS_MECHANISM_H_

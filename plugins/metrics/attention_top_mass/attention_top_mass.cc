#include "plugins/metrics/attention_top_mass/attention_top_mass.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "attention/base/field_error.h"
#include "attention/metric_lookups.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<AttentionTopMass<T>>> AttentionTopMass<T>::Create(
    const plugins::AttentionTopMassConfig& config) {
  if (config.layer().empty()) return FieldError("layer", "missing: name an attention layer");
  if (config.has_k() && config.k() < 1) {
    return FieldError("k", absl::StrCat("must be >= 1, got ", config.k()));
  }
  return std::unique_ptr<AttentionTopMass<T>>(new AttentionTopMass<T>(config));
}

template <typename T>
absl::Status AttentionTopMass<T>::Setup(const MetricContext<T>& context) {
  ASSIGN_OR_RETURN(layer_, FindAttentionLayer(context.model, config_.layer()));
  return absl::OkStatus();
}

template <typename T>
absl::StatusOr<double> AttentionTopMass<T>::Evaluate(Model<T>&, const Batch<T>&) {
  const Tensor<T>& weights = layer_->attention();
  const int k = config_.has_k() ? config_.k() : 1;
  std::vector<double> row(weights.cols());
  double total = 0;
  for (int s = 0; s < weights.batch(); ++s) {
    const auto a = weights.sample(s);
    for (Eigen::Index r = 0; r < a.rows(); ++r) {
      for (Eigen::Index t = 0; t < a.cols(); ++t) row[t] = static_cast<double>(a(r, t));
      double sum = 0;
      for (double w : row) sum += w;
      if (!(sum > 0)) continue;  // a fully masked row holds nothing
      const auto top = row.begin() + std::min<Eigen::Index>(k, a.cols());
      std::partial_sort(row.begin(), top, row.end(), std::greater<double>());
      double mass = 0;
      for (auto it = row.begin(); it != top; ++it) mass += *it;
      total += mass / sum;
    }
  }
  return total / (static_cast<double>(weights.batch()) * weights.rows());
}

template class AttentionTopMass<float>;
template class AttentionTopMass<double>;

ATTNLAB_REGISTER_METRIC("attention_top_mass", plugins::AttentionTopMassConfig, AttentionTopMass,
                        "mean attention mass on each row's k largest weights (k = 1: the mean "
                        "largest weight)",
                        {"layer: 'attn' k: 2"});

}  // namespace attnlab

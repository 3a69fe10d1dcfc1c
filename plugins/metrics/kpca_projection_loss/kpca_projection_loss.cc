#include "plugins/metrics/kpca_projection_loss/kpca_projection_loss.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/metric_lookups.h"

namespace attnlab {

double KpcaProjectionLoss(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                          const Eigen::MatrixXd& v, const Eigen::MatrixXd& a, double scale) {
  const Eigen::MatrixXd scores = scale * q * k.transpose();
  const Eigen::MatrixXd outputs = a * v;
  double total = 0;
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    const double top = scores.row(i).maxCoeff();
    const double log_normalizer = top + std::log((scores.row(i).array() - top).exp().sum());
    const double feature_norm = std::exp(scale * q.row(i).squaredNorm() - 2 * log_normalizer);
    total += feature_norm - outputs.row(i).squaredNorm();
  }
  return total / static_cast<double>(q.rows());
}

template <typename T>
absl::StatusOr<std::unique_ptr<KpcaProjectionLossMetric<T>>> KpcaProjectionLossMetric<T>::Create(
    const plugins::KpcaProjectionLossConfig& config) {
  if (config.layer().empty()) return FieldError("layer", "missing: name an attention layer");
  return std::unique_ptr<KpcaProjectionLossMetric<T>>(new KpcaProjectionLossMetric<T>(config));
}

template <typename T>
absl::Status KpcaProjectionLossMetric<T>::Setup(const MetricContext<T>& context) {
  ASSIGN_OR_RETURN(layer_, FindAttentionLayer(context.model, config_.layer()));
  if (!layer_->head_projections().has_value()) {
    return FieldError(
        "layer", absl::StrCat("'", config_.layer(), "' keeps no queries, keys and values to read"));
  }
  return absl::OkStatus();
}

template <typename T>
absl::StatusOr<double> KpcaProjectionLossMetric<T>::Evaluate(Model<T>&, const Batch<T>&) {
  const auto heads = *layer_->head_projections();
  const Tensor<T>& weights = layer_->attention();
  const int n = static_cast<int>(weights.rows());
  const int per_sample = layer_->heads();
  double total = 0;
  for (int s = 0; s < weights.batch(); ++s) {
    const int b = s / per_sample, h = s % per_sample;
    const auto rows = [&](const Matrix<T>* m, int width) {
      return m->block(int64_t(b) * n, int64_t(h) * width, n, width).template cast<double>().eval();
    };
    total += KpcaProjectionLoss(
        rows(heads.queries, heads.qk_width), rows(heads.keys, heads.qk_width),
        rows(heads.values, heads.value_width), weights.sample(s).template cast<double>(),
        static_cast<double>(heads.scale));
  }
  return total / weights.batch();
}

template class KpcaProjectionLossMetric<float>;
template class KpcaProjectionLossMetric<double>;

ATTNLAB_REGISTER_METRIC("kpca_projection_loss", plugins::KpcaProjectionLossConfig,
                        KpcaProjectionLossMetric,
                        "paper 4's kernel-PCA projection loss ||phi(q)||^2 - ||h||^2 of an "
                        "attention layer's softmax heads, mean over queries",
                        {"layer: 'attn'"});

}  // namespace attnlab

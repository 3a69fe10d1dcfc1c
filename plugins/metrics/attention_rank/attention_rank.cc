#include "plugins/metrics/attention_rank/attention_rank.h"

#include <cmath>

#include "Eigen/Eigenvalues"
#include "attention/base/field_error.h"
#include "attention/metric_lookups.h"

namespace attnlab {

double EffectiveRank(const Eigen::MatrixXd& a) {
  // The singular values from the eigenvalues of the smaller Gram matrix.
  const Eigen::MatrixXd gram = a.rows() <= a.cols() ? Eigen::MatrixXd(a * a.transpose())
                                                    : Eigen::MatrixXd(a.transpose() * a);
  const Eigen::VectorXd eigenvalues =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(gram, Eigen::EigenvaluesOnly).eigenvalues();
  const Eigen::VectorXd sigma = eigenvalues.cwiseMax(0).cwiseSqrt();
  const double total = sigma.sum();
  if (!(total > 0)) return 0;
  double entropy = 0;
  for (Eigen::Index i = 0; i < sigma.size(); ++i) {
    const double p = sigma(i) / total;
    if (p > 0) entropy -= p * std::log(p);
  }
  return std::exp(entropy);
}

template <typename T>
absl::StatusOr<std::unique_ptr<AttentionRank<T>>> AttentionRank<T>::Create(
    const plugins::AttentionRankConfig& config) {
  if (config.layer().empty()) return FieldError("layer", "missing: name an attention layer");
  return std::unique_ptr<AttentionRank<T>>(new AttentionRank<T>(config));
}

template <typename T>
absl::Status AttentionRank<T>::Setup(const MetricContext<T>& context) {
  ASSIGN_OR_RETURN(layer_, FindAttentionLayer(context.model, config_.layer()));
  return absl::OkStatus();
}

template <typename T>
absl::StatusOr<double> AttentionRank<T>::Evaluate(Model<T>&, const Batch<T>&) {
  const Tensor<T>& weights = layer_->attention();
  double total = 0;
  for (int s = 0; s < weights.batch(); ++s) {
    total += EffectiveRank(weights.sample(s).template cast<double>());
  }
  return total / weights.batch();
}

template class AttentionRank<float>;
template class AttentionRank<double>;

ATTNLAB_REGISTER_METRIC("attention_rank", plugins::AttentionRankConfig, AttentionRank,
                        "mean effective rank (exp of the singular values' entropy) of an "
                        "attention layer's weight matrices (paper 2's rank collapse)",
                        {"layer: 'attn'"});

}  // namespace attnlab

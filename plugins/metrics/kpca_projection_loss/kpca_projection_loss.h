// The `kpca_projection_loss` metric: paper 4's kernel-PCA projection loss of an attention layer.
#ifndef ATTNLAB_PLUGINS_METRICS_KPCA_PROJECTION_LOSS_KPCA_PROJECTION_LOSS_H_
#define ATTNLAB_PLUGINS_METRICS_KPCA_PROJECTION_LOSS_KPCA_PROJECTION_LOSS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "attention/attention_layer.h"
#include "attention/metric.h"
#include "plugins/metrics/kpca_projection_loss/kpca_projection_loss.pb.h"

namespace attnlab {

// One head of one sample: queries q (n x m), keys k (n x m), values v (n x dv), its attention
// weights a (n x n) and the score scale: the mean over queries of
// exp(scale q_i^T q_i - 2 log sum_j exp(scale q_i^T k_j)) - ||sum_j a_ij v_j||^2.
double KpcaProjectionLoss(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                          const Eigen::MatrixXd& v, const Eigen::MatrixXd& a, double scale);

template <typename T>
class KpcaProjectionLossMetric : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<KpcaProjectionLossMetric<T>>> Create(
      const plugins::KpcaProjectionLossConfig& config);

  absl::Status Setup(const MetricContext<T>& context) override;
  absl::StatusOr<double> Evaluate(Model<T>& model, const Batch<T>& batch) override;

 private:
  explicit KpcaProjectionLossMetric(plugins::KpcaProjectionLossConfig config)
      : config_(std::move(config)) {}

  plugins::KpcaProjectionLossConfig config_;
  AttentionLayer<T>* layer_ = nullptr;
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_METRICS_KPCA_PROJECTION_LOSS_KPCA_PROJECTION_LOSS_H_

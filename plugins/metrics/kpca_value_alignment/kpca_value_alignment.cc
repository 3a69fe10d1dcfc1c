#include "plugins/metrics/kpca_value_alignment/kpca_value_alignment.h"

#include <algorithm>

#include "Eigen/Eigenvalues"
#include "Eigen/QR"
#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/metric.h"
#include "attention/metric_lookups.h"
#include "plugins/metrics/kpca_value_alignment/kpca_value_alignment.pb.h"

namespace attnlab {

double KpcaValueAlignment(const Eigen::MatrixXd& k, const Eigen::MatrixXd& v, double scale) {
  const Eigen::Index n = k.rows(), dv = std::min<Eigen::Index>(v.cols(), n);
  const Eigen::MatrixXd gram = (scale * k * k.transpose()).array().exp().matrix();
  // Eigenvalues ascending: the top dv eigenvectors are the last columns.
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(gram);
  const Eigen::MatrixXd top = eigen.eigenvectors().rightCols(dv);
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(v);
  const Eigen::MatrixXd basis =
      (qr.householderQ() * Eigen::MatrixXd::Identity(n, qr.rank())).eval();
  return (top.transpose() * basis).squaredNorm() / static_cast<double>(dv);
}

namespace {

template <typename T>
class KpcaValueAlignmentMetric : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<KpcaValueAlignmentMetric<T>>> Create(
      const plugins::KpcaValueAlignmentConfig& config) {
    if (config.layer().empty()) return FieldError("layer", "missing: name an attention layer");
    return std::unique_ptr<KpcaValueAlignmentMetric<T>>(new KpcaValueAlignmentMetric<T>(config));
  }
  absl::Status Setup(const MetricContext<T>& context) override {
    ASSIGN_OR_RETURN(layer_, FindAttentionLayer(context.model, config_.layer()));
    if (!layer_->head_projections().has_value()) {
      return FieldError("layer", absl::StrCat("'", config_.layer(),
                                              "' keeps no queries, keys and values to read"));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    const auto heads = *layer_->head_projections();
    const Tensor<T>& weights = layer_->attention();
    const int n = static_cast<int>(weights.rows()), per_sample = layer_->heads();
    double total = 0;
    for (int s = 0; s < weights.batch(); ++s) {
      const int b = s / per_sample, h = s % per_sample;
      total += KpcaValueAlignment(
          heads.keys->block(int64_t(b) * n, int64_t(h) * heads.qk_width, n, heads.qk_width)
              .template cast<double>(),
          heads.values->block(int64_t(b) * n, int64_t(h) * heads.value_width, n, heads.value_width)
              .template cast<double>(),
          static_cast<double>(heads.scale));
    }
    return total / weights.batch();
  }

 private:
  explicit KpcaValueAlignmentMetric(plugins::KpcaValueAlignmentConfig config)
      : config_(std::move(config)) {}
  plugins::KpcaValueAlignmentConfig config_;
  AttentionLayer<T>* layer_ = nullptr;
};

}  // namespace

ATTNLAB_REGISTER_METRIC("kpca_value_alignment", plugins::KpcaValueAlignmentConfig,
                        KpcaValueAlignmentMetric,
                        "how much of the leading eigenspace of the keys' Gram matrix "
                        "exp(scale K K^T) an attention head's values span (paper 4)",
                        {"layer: 'attn'"});

}  // namespace attnlab

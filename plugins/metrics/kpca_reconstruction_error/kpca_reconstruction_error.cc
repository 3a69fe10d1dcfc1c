#include "plugins/metrics/kpca_reconstruction_error/kpca_reconstruction_error.h"

#include <cmath>
#include <memory>

#include "absl/strings/str_cat.h"
#include "attention/attention_layer.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "attention/metric.h"
#include "attention/metric_lookups.h"
#include "plugins/metrics/kpca_reconstruction_error/kpca_reconstruction_error.pb.h"

namespace attnlab {
namespace {

// Each row centred and divided by its sample standard deviation (as torch.std): the model's
// own standardization, which standardized_softmax applies inside its heads.
Eigen::MatrixXd Standardized(const Eigen::MatrixXd& x) {
  const Eigen::MatrixXd centred = x.colwise() - x.rowwise().mean();
  const Eigen::VectorXd sd =
      (centred.rowwise().squaredNorm() / static_cast<double>(x.cols() - 1)).cwiseSqrt();
  return sd.cwiseInverse().asDiagonal() * centred;
}

constexpr double kMismatchTolerance = 1e-4;  // float weights against double recomputation

}  // namespace

double KpcaReconstructionErrorSum(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                                  const Eigen::MatrixXd& v, const Eigen::MatrixXd& a) {
  const Eigen::MatrixXd q_hat = Standardized(q), k_hat = Standardized(k);
  const Eigen::MatrixXd outputs = a * v;
  double total = 0;
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    const double log_feature_norm =
        q_hat.row(i).squaredNorm() + 2 * std::log(a(i, 0)) - 2 * q_hat.row(i).dot(k_hat.row(0));
    total += std::exp(log_feature_norm) - outputs.row(i).squaredNorm();
  }
  return total;
}

double StandardizedSoftmaxMismatch(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                                   const Eigen::MatrixXd& a, double scale) {
  Eigen::MatrixXd expected = scale * Standardized(q) * Standardized(k).transpose();
  for (Eigen::Index i = 0; i < expected.rows(); ++i) {
    expected.row(i) = (expected.row(i).array() - expected.row(i).maxCoeff()).exp();
    expected.row(i) /= expected.row(i).sum();
  }
  return (expected - a).cwiseAbs().maxCoeff();
}

template <typename T>
class KpcaReconstructionErrorMetric : public Metric<T> {
 public:
  using Config = plugins::KpcaReconstructionErrorConfig;

  static absl::StatusOr<std::unique_ptr<KpcaReconstructionErrorMetric<T>>> Create(
      const Config& config) {
    if (config.layer().empty()) return FieldError("layer", "missing: name an attention layer");
    if (config.fixed_samples() < 0) return FieldError("fixed_samples", "must be >= 0");
    return std::unique_ptr<KpcaReconstructionErrorMetric<T>>(
        new KpcaReconstructionErrorMetric<T>(config));
  }

  absl::Status Setup(const MetricContext<T>& context) override {
    ASSIGN_OR_RETURN(layer_, FindAttentionLayer(context.model, config_.layer()));
    if (!layer_->head_projections().has_value()) {
      return FieldError("layer", absl::StrCat("'", config_.layer(),
                                              "' keeps no queries, keys and values to read"));
    }
    if (const int count = config_.fixed_samples(); count > 0) {
      const Batch<T>* train = context.data.train;
      if (train == nullptr) {
        return FieldError("fixed_samples", "needs a fixed training set; this data is a stream");
      }
      if (count > train->inputs.batch()) {
        return FieldError("fixed_samples", absl::StrCat(count, " is more than the training set's ",
                                                        train->inputs.batch(), " samples"));
      }
      Shape shape = train->inputs.shape();
      shape.batch = count;
      fixed_.Resize(shape);
      for (int b = 0; b < count; ++b) fixed_.sample(b) = train->inputs.sample(b);
      ctx_ = std::make_unique<ExecContext>(context.seed, context.threads);
    }
    return absl::OkStatus();
  }

  // With fixed samples, after the step: a pass of its own, whose caches the next step replaces.
  bool reads_training_forward() const override { return config_.fixed_samples() == 0; }

  absl::StatusOr<double> Evaluate(Model<T>& model, const Batch<T>&) override {
    if (ctx_ != nullptr) model.Forward(fixed_, *ctx_);
    const auto heads = *layer_->head_projections();
    const Tensor<T>& weights = layer_->attention();
    const int n = static_cast<int>(weights.rows());
    const int per_sample = layer_->heads();
    double total = 0;
    for (int s = 0; s < weights.batch(); ++s) {
      const int b = s / per_sample, h = s % per_sample;
      const auto rows = [&](const Matrix<T>* m, int width) {
        return m->block(int64_t(b) * n, int64_t(h) * width, n, width)
            .template cast<double>()
            .eval();
      };
      const Eigen::MatrixXd q = rows(heads.queries, heads.qk_width),
                            k = rows(heads.keys, heads.qk_width);
      const Eigen::MatrixXd a = weights.sample(s).template cast<double>();
      if (StandardizedSoftmaxMismatch(q, k, a, static_cast<double>(heads.scale)) >
          kMismatchTolerance) {
        // Not this metric's kind of layer: a precondition, which the registry's conformance
        // test also reads as the model's refusal.
        return absl::FailedPreconditionError(absl::StrCat(
            "layer: '", config_.layer(),
            "': its weights are not the softmax of its standardized queries and keys (the "
            "authors' measure reads mechanism: 'standardized_softmax')"));
      }
      total += KpcaReconstructionErrorSum(q, k, rows(heads.values, heads.value_width), a);
    }
    return total / (double(weights.batch()) * n);
  }

 private:
  explicit KpcaReconstructionErrorMetric(Config config) : config_(std::move(config)) {}

  Config config_;
  AttentionLayer<T>* layer_ = nullptr;
  Tensor<T> fixed_;                   // the fixed samples' inputs, with fixed_samples > 0
  std::unique_ptr<ExecContext> ctx_;  // their passes' threads
};

ATTNLAB_REGISTER_METRIC("kpca_reconstruction_error", plugins::KpcaReconstructionErrorConfig,
                        KpcaReconstructionErrorMetric,
                        "paper 4's kernel-PCA reconstruction error as the authors' code measures "
                        "it: mean ||phi(q)||^2 - ||h||^2 over a standardized_softmax layer's "
                        "queries",
                        {"layer: 'attn'", "layer: 'attn' fixed_samples: 2"});

}  // namespace attnlab

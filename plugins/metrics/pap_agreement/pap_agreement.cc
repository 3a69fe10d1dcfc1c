// The `pap_agreement` metric (pap_agreement.proto says what it measures).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/metric.h"
#include "attention/metric_lookups.h"
#include "plugins/metrics/pap_agreement/pap_agreement.pb.h"
#include "plugins/metrics/pap_agreement/pap_reference.h"

namespace attnlab {
namespace {

template <typename T>
class PapAgreement : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<PapAgreement<T>>> Create(
      const plugins::PapAgreementConfig& config) {
    if (config.layer().empty()) return FieldError("layer", "missing: name an attention layer");
    if (config.iterations() < 1) {
      return FieldError("iterations", absl::StrCat("must be >= 1, got ", config.iterations()));
    }
    if (config.embed_width() < 1) {
      return FieldError("embed_width", absl::StrCat("must be >= 1 (the layer's input width), got ",
                                                    config.embed_width()));
    }
    return std::unique_ptr<PapAgreement<T>>(new PapAgreement<T>(config));
  }
  absl::Status Setup(const MetricContext<T>& context) override {
    ASSIGN_OR_RETURN(layer_, FindAttentionLayer(context.model, config_.layer()));
    const auto heads = layer_->head_projections();
    if (!heads.has_value() || heads->queries != heads->keys) {
      return FieldError("layer", absl::StrCat("'", config_.layer(),
                                              "' has no symmetric heads (queries = keys) to read"));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    const auto heads = *layer_->head_projections();
    const Tensor<T>& weights = layer_->attention();
    const int n = static_cast<int>(weights.rows()), per_sample = layer_->heads();
    double largest = 0;
    for (int s = 0; s < weights.batch(); ++s) {
      const int b = s / per_sample, h = s % per_sample;
      const Eigen::MatrixXd k =
          heads.keys->block(int64_t(b) * n, int64_t(h) * heads.qk_width, n, heads.qk_width)
              .template cast<double>();
      const Eigen::MatrixXd v =
          heads.values->block(int64_t(b) * n, int64_t(h) * heads.value_width, n, heads.value_width)
              .template cast<double>();
      const PapReference reference =
          DirectPap(k, v, config_.iterations(), config_.lambda(), config_.embed_width(),
                    config_.threshold_over_mu(), static_cast<double>(heads.scale));
      largest = std::max(
          largest,
          (weights.sample(s).template cast<double>() - reference.attention).cwiseAbs().maxCoeff());
    }
    return largest;
  }

 private:
  explicit PapAgreement(plugins::PapAgreementConfig config) : config_(std::move(config)) {}
  plugins::PapAgreementConfig config_;
  AttentionLayer<T>* layer_ = nullptr;
};

}  // namespace

ATTNLAB_REGISTER_METRIC("pap_agreement", plugins::PapAgreementConfig, PapAgreement,
                        "largest difference between an attention layer's weights and Principal "
                        "Attention Pursuit transcribed line by line on its keys and values "
                        "(TARGETS 4a)",
                        {"layer: 'attn' iterations: 2 lambda: 4 embed_width: 8"});

}  // namespace attnlab

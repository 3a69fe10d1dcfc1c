// The `qk_spectrum` metric: the eigenvalues of W_Q W_K^T, summarized (mean over heads).
#include "attention/analysis/metrics.h"
#include "attention/metric_lookups.h"
#include "plugins/metrics/qk_spectrum/qk_spectrum.pb.h"

namespace attnlab {
namespace {

template <typename T>
class QkSpectrum : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<QkSpectrum<T>>> Create(
      const plugins::QkSpectrumConfig& config) {
    return std::unique_ptr<QkSpectrum<T>>(new QkSpectrum<T>(config));
  }
  absl::Status Setup(const MetricContext<T>& context) override {
    ASSIGN_OR_RETURN(layer_, FindAttentionLayer(context.model, config_.layer()));
    return absl::OkStatus();
  }
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    double total = 0;
    for (int h = 0; h < layer_->heads(); ++h) {
      const Spectrum s = EigenSpectrum(layer_->QueryKeyMatrix(h).template cast<double>().eval());
      total += config_.statistic() == plugins::QkSpectrumConfig::MEAN       ? s.mean
               : config_.statistic() == plugins::QkSpectrumConfig::VARIANCE ? s.variance
                                                                            : s.spread;
    }
    return total / layer_->heads();
  }

 private:
  explicit QkSpectrum(plugins::QkSpectrumConfig config) : config_(std::move(config)) {}
  plugins::QkSpectrumConfig config_;
  AttentionLayer<T>* layer_ = nullptr;
};

}  // namespace

ATTNLAB_REGISTER_METRIC("qk_spectrum", plugins::QkSpectrumConfig, QkSpectrum,
                        "the mean, variance or spread of W_Q W_K^T's eigenvalues, mean over heads "
                        "(paper 2)",
                        {"layer: 'attn' statistic: VARIANCE", "layer: 'attn' statistic: SPREAD"});

}  // namespace attnlab

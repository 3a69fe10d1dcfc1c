// The `qk_norm` metric: ||W_Q W_K^T||_F, mean over heads.
#include "attention/metric_lookups.h"
#include "plugins/metrics/qk_norm/qk_norm.pb.h"

namespace attnlab {
namespace {

template <typename T>
class QkNorm : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<QkNorm<T>>> Create(const plugins::QkNormConfig& config) {
    return std::unique_ptr<QkNorm<T>>(new QkNorm<T>(config));
  }
  absl::Status Setup(const MetricContext<T>& context) override {
    ASSIGN_OR_RETURN(layer_, FindAttentionLayer(context.model, config_.layer()));
    return absl::OkStatus();
  }
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    double total = 0;
    for (int h = 0; h < layer_->heads(); ++h) {
      total += static_cast<double>(layer_->QueryKeyMatrix(h).norm());
    }
    return total / layer_->heads();
  }

 private:
  explicit QkNorm(plugins::QkNormConfig config) : config_(std::move(config)) {}
  plugins::QkNormConfig config_;
  AttentionLayer<T>* layer_ = nullptr;
};

}  // namespace

ATTNLAB_REGISTER_METRIC("qk_norm", plugins::QkNormConfig, QkNorm,
                        "||W_Q W_K^T||_F of an attention layer, mean over heads",
                        {"layer: 'attn'"});

}  // namespace attnlab

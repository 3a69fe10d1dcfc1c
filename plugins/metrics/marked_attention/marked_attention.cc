// The `marked_attention` metric: attention mass on the marked tokens (paper 3's set y).
#include "attention/metric_lookups.h"
#include "plugins/metrics/marked_attention/marked_attention.pb.h"

namespace attnlab {
namespace {

template <typename T>
class MarkedAttention : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<MarkedAttention<T>>> Create(
      const plugins::MarkedAttentionConfig& config) {
    return std::unique_ptr<MarkedAttention<T>>(new MarkedAttention<T>(config));
  }
  absl::Status Setup(const MetricContext<T>& context) override {
    ASSIGN_OR_RETURN(layer_, FindAttentionLayer(context.model, config_.layer()));
    marker_ = context.data.marked_column;
    if (marker_ < 0) {
      return FieldError("layer",
                        "needs a dataset whose inputs mark tokens (sparse_selection "
                        "marks the set y)");
    }
    return absl::OkStatus();
  }
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>& batch) override {
    const Tensor<T>& probs = layer_->attention();
    const int heads = layer_->heads();
    double total = 0;
    for (int s = 0; s < probs.batch(); ++s) {
      const auto marks = batch.inputs.sample(s / heads).col(marker_);
      const auto a = probs.sample(s);
      for (Eigen::Index r = 0; r < a.rows(); ++r) {  // each row as a distribution (metrics.h)
        const double sum = a.row(r).template cast<double>().sum();
        if (!(sum > 0)) continue;
        for (int t = 0; t < a.cols(); ++t) {
          if (marks[t] > T(0.5)) total += a(r, t) / sum;
        }
      }
    }
    return total / (static_cast<double>(probs.batch()) * probs.rows());
  }

 private:
  explicit MarkedAttention(plugins::MarkedAttentionConfig config) : config_(std::move(config)) {}
  plugins::MarkedAttentionConfig config_;
  AttentionLayer<T>* layer_ = nullptr;
  int marker_ = -1;
};

}  // namespace

ATTNLAB_REGISTER_METRIC("marked_attention", plugins::MarkedAttentionConfig, MarkedAttention,
                        "attention mass on the tokens the input marks (paper 3's set y)",
                        {"layer: 'attn'"});

}  // namespace attnlab

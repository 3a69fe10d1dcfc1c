// The `param_norm` metric: ||parameter||_F.
#include "attention/metric_lookups.h"
#include "plugins/metrics/param_norm/param_norm.pb.h"

namespace attnlab {
namespace {

template <typename T>
class ParamNorm : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<ParamNorm<T>>> Create(
      const plugins::ParamNormConfig& config) {
    return std::unique_ptr<ParamNorm<T>>(new ParamNorm<T>(config));
  }
  absl::Status Setup(const MetricContext<T>& context) override {
    ASSIGN_OR_RETURN(param_, FindModelParameter(context.model, config_.param()));
    return absl::OkStatus();
  }
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    return static_cast<double>(param_->value.norm());
  }

 private:
  explicit ParamNorm(plugins::ParamNormConfig config) : config_(std::move(config)) {}
  plugins::ParamNormConfig config_;
  const Parameter<T>* param_ = nullptr;
};

}  // namespace

ATTNLAB_REGISTER_METRIC("param_norm", plugins::ParamNormConfig, ParamNorm,
                        "Frobenius norm of a parameter", {"param: 'attn/q'"});

}  // namespace attnlab

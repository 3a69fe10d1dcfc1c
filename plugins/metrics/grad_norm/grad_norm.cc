// The `grad_norm` metric: ||dL/dparameter||_F, after the backward pass.
#include "attention/metric_lookups.h"
#include "plugins/metrics/grad_norm/grad_norm.pb.h"

namespace attnlab {
namespace {

template <typename T>
class GradNorm : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<GradNorm<T>>> Create(
      const plugins::GradNormConfig& config) {
    return std::unique_ptr<GradNorm<T>>(new GradNorm<T>(config));
  }
  absl::Status Setup(const MetricContext<T>& context) override {
    ASSIGN_OR_RETURN(param_, FindModelParameter(context.model, config_.param()));
    if (param_->frozen) {  // layers may skip a frozen parameter's gradient (Parameter::grad)
      return FieldError("param",
                        absl::StrCat("'", param_->name, "' is frozen: it has no gradient"));
    }
    return absl::OkStatus();
  }
  bool reads_training_forward() const override { return false; }  // after the backward pass
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    return static_cast<double>(param_->grad.norm());
  }

 private:
  explicit GradNorm(plugins::GradNormConfig config) : config_(std::move(config)) {}
  plugins::GradNormConfig config_;
  const Parameter<T>* param_ = nullptr;
};

}  // namespace

ATTNLAB_REGISTER_METRIC("grad_norm", plugins::GradNormConfig, GradNorm,
                        "Frobenius norm of a parameter's gradient at this step",
                        {"param: 'attn/q'"});

}  // namespace attnlab

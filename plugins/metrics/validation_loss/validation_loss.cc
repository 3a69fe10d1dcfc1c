// The `validation_loss` metric: the loss (or perplexity) on a validation set.
#include <cmath>
#include <limits>

#include "attention/metric_lookups.h"
#include "plugins/metrics/validation_loss/validation_loss.pb.h"

namespace attnlab {
namespace {

template <typename T>
class ValidationLoss : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<ValidationLoss<T>>> Create(
      const plugins::ValidationLossConfig& config) {
    return std::unique_ptr<ValidationLoss<T>>(new ValidationLoss<T>(config));
  }
  absl::Status Setup(const MetricContext<T>& context) override {
    ASSIGN_OR_RETURN(set_, FindValidationSet(context.data, config_.set()));
    supported_ = context.model.CheckShapes(set_->inputs.shape(), set_->targets.shape()).ok();
    seed_ = context.seed;
    ctx_ = std::make_unique<ExecContext>(context.seed, context.threads);
    return absl::OkStatus();
  }
  bool reads_training_forward() const override { return false; }  // runs its own pass
  absl::StatusOr<double> Evaluate(Model<T>& model, const Batch<T>&) override {
    if (!supported_) return std::numeric_limits<double>::quiet_NaN();
    ctx_->Reseed(seed_);  // the same random stream at every evaluation
    ctx_->set_training(false);
    model.Forward(set_->inputs, *ctx_);
    const double loss = static_cast<double>(model.EvaluateLoss(set_->targets, *ctx_));
    return config_.perplexity() ? std::exp(loss) : loss;
  }

 private:
  explicit ValidationLoss(plugins::ValidationLossConfig config) : config_(std::move(config)) {}
  plugins::ValidationLossConfig config_;
  const Batch<T>* set_ = nullptr;
  bool supported_ = false;
  uint64_t seed_ = 0;
  std::unique_ptr<ExecContext> ctx_;
};

}  // namespace

ATTNLAB_REGISTER_METRIC("validation_loss", plugins::ValidationLossConfig, ValidationLoss,
                        "the loss (or perplexity) on a validation set, with a fixed random stream",
                        {"set: 'valid'", "set: 'valid' perplexity: true"});

}  // namespace attnlab

// The `accuracy` metric: classification accuracy on a validation set or the training batch,
// clean or under Gaussian noise, FGSM or PGD (attention/analysis/robustness.h does the math).
#include <memory>

#include "attention/analysis/robustness.h"
#include "attention/metric_lookups.h"
#include "plugins/metrics/accuracy/accuracy.pb.h"

namespace attnlab {
namespace {

using Config = plugins::AccuracyConfig;

// The perturbation the config asks for, or a FieldError.
absl::StatusOr<Perturbation> PerturbationOf(const Config& spec, uint64_t seed) {
  Perturbation p;
  p.seed = seed;
  switch (spec.perturbation_case()) {
    case Config::kGaussian:
      p.kind = Perturbation::kGaussian;
      p.size = spec.gaussian().std();
      if (!(p.size > 0)) return FieldError("gaussian.std", "must be > 0");
      break;
    case Config::kFgsm:
      p.kind = Perturbation::kFgsm;
      p.size = spec.fgsm().epsilon();
      if (!(p.size > 0)) return FieldError("fgsm.epsilon", "must be > 0");
      break;
    case Config::kPgd:
      p.kind = Perturbation::kPgd;
      p.size = spec.pgd().epsilon();
      if (spec.pgd().has_steps()) p.steps = spec.pgd().steps();
      p.step_size = spec.pgd().step_size();  // absent: 0, Perturb's default
      if (!(p.size > 0)) return FieldError("pgd.epsilon", "must be > 0");
      if (p.steps <= 0) return FieldError("pgd.steps", "must be > 0");
      if (spec.pgd().has_step_size() && !(p.step_size > 0)) {
        return FieldError("pgd.step_size", "must be > 0");
      }
      p.random_start = spec.pgd().random_start();
      break;
    case Config::PERTURBATION_NOT_SET:
      break;
  }
  p.predicted_labels = spec.attack_labels() == Config::PREDICTED_LABELS;
  if (p.predicted_labels && p.kind != Perturbation::kFgsm && p.kind != Perturbation::kPgd) {
    return FieldError("attack_labels", "only for the attacks (fgsm, pgd)");
  }
  return p;
}

template <typename T>
class AccuracyMetric : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<AccuracyMetric<T>>> Create(const Config& config) {
    if (config.max_samples() < 0) return FieldError("max_samples", "must be >= 0");
    RETURN_IF_ERROR(PerturbationOf(config, 0).status());
    return std::unique_ptr<AccuracyMetric<T>>(new AccuracyMetric<T>(config));
  }

  absl::Status Setup(const MetricContext<T>& context) override {
    ASSIGN_OR_RETURN(perturbation_, PerturbationOf(config_, context.seed));
    set_ = nullptr;
    if (!config_.set().empty()) {
      ASSIGN_OR_RETURN(set_, FindValidationSet(context.data, config_.set()));
    }
    const Shape target = set_ != nullptr ? set_->targets.shape() : context.data.target_shape;
    const Shape input = set_ != nullptr ? set_->inputs.shape() : context.data.input_shape;
    if (target.cols != 1 || !context.model.CheckShapes(input, target).ok()) {
      return FieldError("set",
                        "needs a classifier: class scores per sample and class ids as "
                        "targets (loss cross_entropy)");
    }
    ctx_ = std::make_unique<ExecContext>(perturbation_.seed, context.threads);
    return absl::OkStatus();
  }

  bool reads_training_forward() const override { return false; }  // runs its own passes

  absl::StatusOr<double> Evaluate(Model<T>& model, const Batch<T>& batch) override {
    const Batch<T>& data = set_ != nullptr ? *set_ : batch;
    ctx_->Reseed(perturbation_.seed);  // the same random stream at every evaluation
    return Accuracy(model, data.inputs, data.targets, perturbation_, *ctx_, config_.max_samples());
  }

 private:
  explicit AccuracyMetric(Config config) : config_(std::move(config)) {}

  Config config_;
  Perturbation perturbation_;
  const Batch<T>* set_ = nullptr;
  std::unique_ptr<ExecContext> ctx_;
};

}  // namespace

ATTNLAB_REGISTER_METRIC("accuracy", plugins::AccuracyConfig, AccuracyMetric,
                        "classification accuracy, clean or under Gaussian noise, FGSM or PGD "
                        "(paper 4's robustness table)",
                        {"set: 'valid'", "set: 'valid' gaussian { std: 0.1 }",
                         "set: 'valid' fgsm { epsilon: 0.05 } attack_labels: PREDICTED_LABELS",
                         "set: 'valid' pgd { epsilon: 0.05 steps: 3 random_start: true }"});

}  // namespace attnlab

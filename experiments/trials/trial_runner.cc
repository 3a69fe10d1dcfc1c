#include "experiments/trials/trial_runner.h"


#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "attention/base/field_error.h"
#include "attention/base/files.h"
#include "attention/base/state_io.h"
#include "attention/base/status_macros.h"
#include "attention/kernels/gaussian.h"
#include "attention/kernels/subnormal_mode.h"
#include "attention/metric.h"
#include "attention/model.h"
#include "datasets/dataset.h"
#include "datasets/shared_dataset.h"
#include "experiments/spec/spec_loader.h"
#include "experiments/trials/checkpoint.h"
#include "experiments/trials/test_hooks.h"
#include "solvers/optimizer.h"

namespace attnlab {

namespace {

// The model's first layer and its loss check the values of a data set.
// Errors name the model field that rejects the data ("model.layer[0].config.vocab_size").
template <typename T>
absl::Status CheckDataValues(const Model<T>& model, const Batch<T>& data, const std::string& what) {
  absl::Status status = model.CheckValues(data.inputs, data.targets);
  if (status.ok()) return status;
  const std::string field = ErrorField(status);
  const std::string message = absl::StrCat(ErrorMessageWithoutField(status), " (in ", what, ")");
  if (field.empty()) return absl::Status(status.code(), message);
  return FieldError(absl::StrCat("model.", field), message);
}

template <typename T>
class TypedTrialRunner : public TrialRunner {
 public:
  static absl::StatusOr<std::unique_ptr<TrialRunner>> Create(const ExperimentSpec& spec,
                                                             int threads,
                                                             const std::string& base_dir) {
    std::unique_ptr<TypedTrialRunner<T>> runner(new TypedTrialRunner<T>(spec, threads));
    for (const char* part : {"model", "dataset", "optimizer"}) {
      if (!spec.GetReflection()->HasField(spec, spec.GetDescriptor()->FindFieldByName(part))) {
        return FieldError(part, absl::StrCat("missing required field '", part, "'"));
      }
    }
    auto dataset = SharedDataset<T>(spec.dataset(), base_dir);
    if (!dataset.ok()) return PrefixErrorField("dataset", dataset.status());
    runner->dataset_ = std::move(*dataset);
    RETURN_IF_ERROR(ValidateTraining(spec, runner->dataset_->train() == nullptr));

    const Shape inputs = runner->dataset_->input_shape();
    const Shape targets = runner->dataset_->target_shape();
    const int batch = spec.training().batch_size() > 0 ? spec.training().batch_size() : inputs.batch;
    RETURN_IF_ERROR(CheckBatchFits(batch, inputs, sizeof(T)));
    auto model = Model<T>::Create(spec.model(), {batch, inputs.rows, inputs.cols},
                                  {batch, targets.rows, targets.cols}, runner->ctx_);
    if (!model.ok()) return PrefixErrorField("model", model.status());
    runner->model_ = std::move(*model);
    // Data values a shape cannot vouch for (token ids against the vocabulary), now rather than
    // as garbage halfway through training.
    if (const Batch<T>* train = runner->dataset_->train()) {
      RETURN_IF_ERROR(CheckDataValues(*runner->model_, *train, "the training set"));
    }
    for (const NamedBatch<T>& set : runner->dataset_->validation()) {
      RETURN_IF_ERROR(
          CheckDataValues(*runner->model_, set.batch, absl::StrCat("validation set '", set.name, "'")));
    }

    auto optimizer = CreateOptimizer<T>(spec.optimizer());
    if (!optimizer.ok()) return PrefixErrorField("optimizer", optimizer.status());
    runner->optimizer_ = std::move(*optimizer);

    runner->names_.push_back("loss");
    for (const MetricSpec& metric : spec.metric()) runner->names_.push_back(metric.name());
    for (int i = 0; i < spec.metric_size(); ++i) {
      auto metric = runner->CreateMetric(spec.metric(i), i, threads);
      if (!metric.ok()) return PrefixErrorField(absl::StrCat("metric[", i, "]"), metric.status());
      runner->metrics_.push_back(std::move(*metric));
      runner->final_only_.push_back(spec.metric(i).final_only());
    }
    return std::unique_ptr<TrialRunner>(std::move(runner));
  }

  absl::StatusOr<TrialResult> Run(const std::function<void(const Progress&)>& progress,
                                  const std::string& checkpoint,
                                  const std::function<bool()>& stop) override {
    // On this thread, and through ParallelFor on every thread working for it.
    const ScopedSubnormalMode subnormals(spec_.model().subnormals() == ModelSpec::FLUSH_TO_ZERO);
    const TrainingSpec& training = spec_.training();
    const std::set<int64_t> log_steps = LoggedSteps(training);
    const std::set<int64_t> snapshot_steps = SnapshotSteps(spec_);
    TrialResult result;
    Batch<T> minibatch;
    double last_loss = std::numeric_limits<double>::quiet_NaN();
    // What a checkpoint must match: this trial's spec, printed once per run.
    const std::string spec_text =
        checkpoint.empty() ? "" : PrintSpec(ResultDeterminingSpec(spec_));
    if (!checkpoint.empty()) {
      absl::StatusOr<int64_t> resumed = Restore(checkpoint, spec_text, &result, &last_loss);
      if (!resumed.ok()) {
        return absl::Status(resumed.status().code(),
                            absl::StrCat(resumed.status().message(),
                                         " (delete the checkpoint to start the trial over)"));
      }
      result.resumed_at_step = *resumed;
    }
    const std::chrono::duration<double> checkpoint_interval(
        training.has_checkpoint_seconds() ? training.checkpoint_seconds() : 60.0);
    auto last_report = std::chrono::steady_clock::now(), last_checkpoint = last_report;
    for (int64_t step = result.resumed_at_step;; ++step) {
      TestHookBeforeStep(step);
      if (stop && stop()) {
        if (!checkpoint.empty() && step > 0) {
          RETURN_IF_ERROR(Save(checkpoint, spec_text, step, result, last_loss));
        }
        return absl::CancelledError(absl::StrCat("interrupted before step ", step));
      }
      const Batch<T>* batch = dataset_->train();
      if (training.batch_size() > 0) {
        dataset_->Next(training.batch_size(), ctx_, &minibatch);
        batch = &minibatch;
      }
      const bool log = log_steps.count(step) > 0;
      const int micro_batch = training.micro_batch_size();
      const bool micro_batched = micro_batch > 0 && micro_batch < batch->inputs.batch();
      double loss;
      if (micro_batched) {
        loss = ForwardAndBackwardInMicroBatches(*batch, micro_batch);
      } else {
        model_->Forward(batch->inputs, ctx_);
        loss = static_cast<double>(model_->ComputeLoss(batch->targets, ctx_));
      }
      if (!std::isfinite(loss)) return Diverged(step, absl::StrCat("loss is ", loss));
      last_loss = loss;
      if (log) {
        result.points.push_back({step, "loss", loss});
        if (micro_batched && ReadsTrainingForward()) ForwardForMetrics(batch->inputs);
        RETURN_IF_ERROR(EvaluateMetrics(step, /*training_forward=*/true, *batch, &result));
      }
      const auto now = std::chrono::steady_clock::now();
      if (progress && (step == training.steps() || now - last_report > std::chrono::milliseconds(250))) {
        progress({step, training.steps(), last_loss});
        last_report = now;
      }
      if (!micro_batched) model_->Backward(ctx_);  // at the last step too, for gradient metrics
      for (const Parameter<T>* param : model_->parameters()) {
        // 0 * g is 0 for finite g and NaN for NaN or Inf; the sum is one vectorized pass
        // (Eigen's allFinite() took a quarter of an FC net's step).
        if (std::isnan((param->grad.array() * T(0)).sum())) {
          return Diverged(step, "a gradient is not finite");
        }
      }
      if (log) RETURN_IF_ERROR(EvaluateMetrics(step, /*training_forward=*/false, *batch, &result));
      if (log && snapshot_steps.count(step)) RETURN_IF_ERROR(Snapshot(step, &result));
      if (step == training.steps()) break;
      optimizer_->Step(model_->parameters(), step, ctx_);
      if (!checkpoint.empty() &&
          std::chrono::steady_clock::now() - last_checkpoint >= checkpoint_interval) {
        RETURN_IF_ERROR(Save(checkpoint, spec_text, step + 1, result, last_loss));
        last_checkpoint = std::chrono::steady_clock::now();
      }
    }
    return result;
  }

  const std::vector<std::string>& metric_names() const override { return names_; }

 private:
  // A checkpoint (checkpoint.h) of this trial's state after `next_step - 1` steps.
  absl::Status Save(const std::string& path, const std::string& spec_text, int64_t next_step,
                    const TrialResult& result, double last_loss) const {
    const CheckpointContent content{spec_text, next_step, last_loss, result.points,
                                    result.arrays, ctx_.RandomState()};
    return WriteCheckpoint(path, content, [&](StateWriter* out) {
      for (const Parameter<T>* param : model_->parameters()) out->Write(param->value);
      optimizer_->SaveState(out);
    });
  }

  // Restores a checkpoint Save wrote; returns the step to go on with (0 when there is none).
  absl::StatusOr<int64_t> Restore(const std::string& path, const std::string& spec_text,
                                  TrialResult* result, double* last_loss) {
    ASSIGN_OR_RETURN(
        std::optional<CheckpointContent> content,
        ReadCheckpoint(path, spec_text, spec_.training().steps(), [&](StateReader* in) {
          for (Parameter<T>* param : model_->parameters()) {
            RETURN_IF_ERROR(in->Read(param->name, &param->value));
          }
          return optimizer_->RestoreState(model_->parameters(), in);
        }));
    if (!content.has_value()) return 0;
    if (!ctx_.SetRandomState(content->random_state)) {
      return absl::DataLossError(absl::StrCat("checkpoint ", path, ": unreadable random state"));
    }
    *last_loss = content->last_loss;
    result->points = std::move(content->points);
    result->arrays = std::move(content->arrays);
    return content->next_step;
  }

  // The parameters and every metric's arrays at `step`, appended to the result's snapshots.
  absl::Status Snapshot(int64_t step, TrialResult* result) const {
    const NpyArray step_array = NpyArray::Of<int64_t>({}, &step);
    RETURN_IF_ERROR(AppendSnapshot("params/steps", step_array, &result->arrays));
    for (const Parameter<T>* param : model_->parameters()) {
      RETURN_IF_ERROR(AppendSnapshot(
          "params/" + param->name,
          NpyArray::Of<T>({param->value.rows(), param->value.cols()}, param->value.data()),
          &result->arrays));
    }
    for (size_t m = 0; m < metrics_.size(); ++m) {
      if (final_only_[m] && step != spec_.training().steps()) continue;
      const NpyArrays arrays = metrics_[m]->Arrays();
      if (arrays.empty()) continue;
      const std::string dir = "solutions/" + names_[m + 1] + "/";
      RETURN_IF_ERROR(AppendSnapshot(dir + "steps", step_array, &result->arrays));
      for (const auto& [name, array] : arrays) {
        RETURN_IF_ERROR(AppendSnapshot(dir + name, array, &result->arrays));
      }
    }
    return absl::OkStatus();
  }

  // The batch's forward and backward passes, micro_batch samples at a time: every parameter's
  // gradient is left as the sum of the micro-batches' gradients weighted by their share of the
  // batch (the batch's gradient, as every loss is a mean over samples); returns the loss,
  // weighted the same way.
  double ForwardAndBackwardInMicroBatches(const Batch<T>& batch, int micro_batch) {
    const int samples = batch.inputs.batch();
    const std::vector<Parameter<T>*> params = model_->parameters();
    grad_sums_.resize(params.size());
    double loss = 0;
    for (int first = 0; first < samples; first += micro_batch) {
      const int count = std::min(micro_batch, samples - first);
      CopySamples(batch.inputs, first, count, &micro_batch_.inputs);
      CopySamples(batch.targets, first, count, &micro_batch_.targets);
      model_->Forward(micro_batch_.inputs, ctx_);
      const T weight = T(count) / T(samples);
      loss += double(weight) * double(model_->ComputeLoss(micro_batch_.targets, ctx_));
      model_->Backward(ctx_);
      for (size_t i = 0; i < params.size(); ++i) {
        if (first == 0) {
          grad_sums_[i] = weight * params[i]->grad;
        } else {
          grad_sums_[i] += weight * params[i]->grad;
        }
      }
    }
    for (size_t i = 0; i < params.size(); ++i) params[i]->grad.swap(grad_sums_[i]);
    return loss;
  }

  // Whether a metric reads the training batch's forward pass.
  bool ReadsTrainingForward() const {
    for (const auto& metric : metrics_) {
      if (metric->inputs().empty() && metric->reads_training_forward()) return true;
    }
    return false;
  }

  // The whole batch's forward pass for the metrics that read it, after micro-batched passes;
  // the random stream is left as it was, so logging does not change the training.
  void ForwardForMetrics(const Tensor<T>& inputs) {
    const std::string random_state = ctx_.RandomState();
    model_->Forward(inputs, ctx_);
    ctx_.SetRandomState(random_state);
  }

  // *part = samples [first, first + count) of `all`.
  static void CopySamples(const Tensor<T>& all, int first, int count, Tensor<T>* part) {
    part->Resize({count, all.rows(), all.cols()});
    part->flat() = all.flat().middleRows(static_cast<Eigen::Index>(first) * all.rows(),
                                         static_cast<Eigen::Index>(count) * all.rows());
  }

  // The divergence guard's error: the trial stops (and is recorded as failed) at the step
  // where the loss or a gradient went NaN or Inf, naming where it started.
  absl::Status Diverged(int64_t step, const std::string& what) const {
    const std::string source = model_->NonFiniteSource();
    return absl::InternalError(absl::StrCat("diverged at step ", step, ": ", what,
                                            source.empty() ? "" : "; first non-finite: ", source));
  }

  // The metrics that read the training forward pass (or the others), appended in spec order
  // within each group.
  absl::Status EvaluateMetrics(int64_t step, bool training_forward, const Batch<T>& batch,
                               TrialResult* result) {
    for (size_t m = 0; m < metrics_.size(); ++m) {
      if (!metrics_[m]->inputs().empty()) continue;  // a metric of metrics, below
      if (metrics_[m]->reads_training_forward() != training_forward) continue;
      if (final_only_[m] && step != spec_.training().steps()) continue;
      absl::StatusOr<double> value = metrics_[m]->Evaluate(*model_, batch);
      if (!value.ok()) {
        return absl::Status(value.status().code(),
                            absl::StrCat("metric '", names_[m + 1], "' at step ", step, ": ",
                                         value.status().message()));
      }
      result->points.push_back({step, names_[m + 1], *value});
    }
    if (training_forward) return absl::OkStatus();
    // Metrics of metrics last (in spec order, so one may read another): where all their inputs
    // are logged.
    for (size_t m = 0; m < metrics_.size(); ++m) {
      const std::vector<std::string> inputs = metrics_[m]->inputs();
      if (inputs.empty()) continue;
      std::vector<double> values;
      for (const std::string& input : inputs) {
        const std::optional<double> value = AtStep(*result, step, input);
        if (!value) break;
        values.push_back(*value);
      }
      if (values.size() != inputs.size()) continue;
      result->points.push_back({step, names_[m + 1], metrics_[m]->Combine(values)});
    }
    return absl::OkStatus();
  }

  // The value of `metric` logged at `step` (among the result's last points), if it was.
  static std::optional<double> AtStep(const TrialResult& result, int64_t step,
                                      const std::string& metric) {
    for (auto it = result.points.rbegin(); it != result.points.rend() && it->step == step; ++it) {
      if (it->metric == metric) return it->value;
    }
    return std::nullopt;
  }

  TypedTrialRunner(const ExperimentSpec& spec, int threads)
      : spec_(spec), ctx_(spec.training().seed(), threads) {}

  // The metric plugin `spec` (the spec's metric[index]) names, set up on this trial's model and
  // data. Errors are FieldErrors relative to the MetricSpec.
  absl::StatusOr<std::unique_ptr<Metric<T>>> CreateMetric(const MetricSpec& spec, int index,
                                                          int threads) const {
    if (spec.plugin().empty()) {
      return FieldError("plugin",
                        absl::StrCat("missing: name a metric plugin (",
                                     absl::StrJoin(MetricRegistry<T>().Names(), ", "), ")"));
    }
    ASSIGN_OR_RETURN(std::unique_ptr<Metric<T>> metric,
                     MetricRegistry<T>().CreateAt(spec.plugin(), spec.config()));
    // Validation passes and attacks get their own stream, fixed per trial.
    MetricContext<T> context{*model_};
    context.data.input_shape = dataset_->input_shape();
    context.data.target_shape = dataset_->target_shape();
    context.data.train = dataset_->train();
    for (const NamedBatch<T>& set : dataset_->validation()) context.data.validation.push_back(&set);
    context.data.marked_column = dataset_->marked_column();
    context.seed = StreamSeed(spec_.training().seed(), 0x5eed);
    context.threads = threads;
    for (size_t k = 0; k < names_.size(); ++k) {
      if (k != static_cast<size_t>(index) + 1) context.metrics.push_back(names_[k]);
    }
    if (absl::Status status = metric->Setup(context); !status.ok()) {
      return PrefixErrorField("config", status);
    }
    return metric;
  }

  ExperimentSpec spec_;
  ExecContext ctx_;
  std::shared_ptr<const Dataset<T>> dataset_;
  std::unique_ptr<Model<T>> model_;
  std::unique_ptr<Optimizer<T>> optimizer_;
  std::vector<std::unique_ptr<Metric<T>>> metrics_;
  Batch<T> micro_batch_;             // training.micro_batch_size: the samples of one pass
  std::vector<Matrix<T>> grad_sums_;  // and the gradients summed over the passes so far
  std::vector<std::string> names_;
  std::vector<bool> final_only_;  // per metric
};

}  // namespace

absl::StatusOr<std::unique_ptr<TrialRunner>> TrialRunner::Create(const ExperimentSpec& spec,
                                                                 int threads,
                                                                 const std::string& base_dir) {
  if (spec.model().dtype() == ModelSpec::FLOAT) {
    return TypedTrialRunner<float>::Create(spec, threads, base_dir);
  }
  return TypedTrialRunner<double>::Create(spec, threads, base_dir);
}

}  // namespace attnlab

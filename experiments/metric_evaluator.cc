#include "experiments/metric_evaluator.h"

#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "attention/analysis/max_margin_reference.h"
#include "attention/analysis/metrics.h"
#include "attention/analysis/robustness.h"
#include "attention/analysis/token_selection.h"
#include "attention/attention_layer.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "attention/metric.h"
#include "solvers/att_svm.h"

namespace attnlab {
namespace {

template <typename T>
Eigen::MatrixXd ToDouble(const Matrix<T>& m) {
  return m.template cast<double>();
}

// The attention layer called `name`, or a FieldError at `field`.
template <typename T>
absl::StatusOr<AttentionLayer<T>*> FindAttention(const Model<T>& model, const std::string& name,
                                                 const std::string& field) {
  Layer<T>* layer = model.FindLayer(name);
  if (layer == nullptr) {
    return FieldError(field, absl::StrCat("no layer '", name, "'; layers: ",
                                          absl::StrJoin(model.LayerPaths(), ", ")));
  }
  if (layer->AsAttention() == nullptr) {
    return FieldError(field, absl::StrCat("layer '", name, "' is not an attention layer"));
  }
  return layer->AsAttention();
}

// Each sample's tokens and label; with `queries` (a prompt layer's query: FIRST_ROW), each
// sample's first row is its query, kept there and left out of its tokens.
template <typename T>
void SplitBatch(const Batch<T>& batch, std::vector<Eigen::MatrixXd>* tokens,
                Eigen::VectorXd* labels, Eigen::MatrixXd* queries = nullptr) {
  tokens->clear();
  const int n = batch.inputs.batch(), first = queries != nullptr ? 1 : 0;
  if (queries != nullptr) queries->resize(n, batch.inputs.cols());
  for (int i = 0; i < n; ++i) {
    const Eigen::MatrixXd sample = batch.inputs.sample(i).template cast<double>();
    if (queries != nullptr) queries->row(i) = sample.row(0);
    tokens->push_back(sample.bottomRows(sample.rows() - first));
  }
  *labels = Eigen::Map<const Matrix<T>>(batch.targets.data(), batch.targets.batch(), 1)
                .template cast<double>();
}

// Paper 1's prompt form of an attention layer (attention/prompt_form.h), with one value column,
// or a FieldError saying what the metric needs. `softmax_only`: ATT-SVM is the limit of softmax
// attention, so the max-margin correlations refuse other weights.
template <typename T>
absl::StatusOr<PromptForm<T>*> PromptOf(AttentionLayer<T>* layer, const std::string& name,
                                        const std::string& field, bool softmax_only) {
  PromptForm<T>* prompt = layer->AsPromptForm();
  if (prompt == nullptr || prompt->value().value.cols() != 1) {
    return FieldError(field, absl::StrCat("layer '", name, "' is not paper 1's prompt attention "
                                          "f(X) = v^T X^T softmax(X W p) (plugin prompt, "
                                          "value_dim 1)"));
  }
  if (softmax_only && !prompt->softmax_weights()) {
    return FieldError(field, absl::StrCat("ATT-SVM is the limit of softmax attention; layer '",
                                          name, "' runs mechanism '", prompt->mechanism(),
                                          "', whose weights are not softmax(scores)"));
  }
  return prompt;
}

// corr(p or v, max-margin direction). The SVM is re-solved only when W, v or the selection
// changed since the last evaluation.
template <typename T>
class MaxMarginEvaluator : public MetricEvaluator<T> {
 public:
  MaxMarginEvaluator(const MaxMarginCorrelation& spec, AttentionLayer<T>* layer,
                     PromptForm<T>& prompt, TokenSelection selection, const Batch<T>& train)
      : spec_(spec),
        layer_(layer),
        p_(prompt.query()),
        v_(&prompt.value()),
        query_row_(prompt.query_row()),
        selection_(std::move(selection)) {
    SplitBatch(train, &tokens_, &labels_, query_row_ ? &queries_ : nullptr);
  }

  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    const Eigen::VectorXd v = ToDouble(v_->value);
    // Paper 1 scores token x by x^T W p; the layer's query-key form M has u^T M x, so W = M^T.
    const Eigen::MatrixXd w = ToDouble(layer_->QueryKeyMatrix(0)).transpose();
    if (!query_row_) queries_ = ToDouble(p_->value).transpose().replicate(tokens_.size(), 1);
    const std::vector<int> selected = spec_.select_attended()
                                          ? AttendedTokens(tokens_, w, queries_)
                                          : selection_.Select(tokens_, labels_, v);
    if (spec_.reference() == MaxMarginCorrelation::W_SVM) {
      // W_mm depends on the queries and the selection only.
      if (!cached_ || selected != selected_ || queries_ != solved_queries_) {
        ASSIGN_OR_RETURN(w_qp_, SolveWSvm(tokens_, queries_, selected));
        selected_ = selected;
        solved_queries_ = queries_;
        cached_ = true;
      }
      const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = w;
      return Correlation(Eigen::Map<const Eigen::VectorXd>(rows.data(), rows.size()), w_qp_.x);
    }
    // The reference depends on W and the selection only (v enters through the selection).
    if (!cached_ || selected != selected_ || w != w_) {
      RETURN_IF_ERROR(Solve(w, selected));
      w_ = w;
      selected_ = selected;
      cached_ = true;
    }
    return Correlate();
  }

  NpyArrays Arrays() const override {
    NpyArrays arrays;
    const int n = static_cast<int>(tokens_.size());
    std::vector<int64_t> selected(selected_.begin(), selected_.end());
    arrays["selected"] = NpyArray::Of<int64_t>({n}, selected.data());
    if (spec_.reference() == MaxMarginCorrelation::W_SVM) {
      AddQp("w_mm", w_qp_, true, &arrays);
      return arrays;
    }
    if (spec_.reference() != MaxMarginCorrelation::ATT_SVM) AddQp("v_mm", v_mm_, false, &arrays);
    if (spec_.reference() != MaxMarginCorrelation::VALUE_SVM) {
      AddQp(spec_.reference() == MaxMarginCorrelation::ATT_SVM ? "p_mm" : "p_relaxed", p_qp_,
            true, &arrays);
    }
    if (spec_.reference() == MaxMarginCorrelation::RELAXED_ATT_SVM) {
      arrays["margins"] = NpyArray::Of<double>({n}, margins_.data());
    }
    return arrays;
  }

 private:
  double Correlate() const {
    const Parameter<T>* target = spec_.reference() == MaxMarginCorrelation::VALUE_SVM ? v_ : p_;
    const Eigen::MatrixXd value = ToDouble(target->value);
    const Eigen::VectorXd& direction =
        spec_.reference() == MaxMarginCorrelation::VALUE_SVM ? v_mm_.x : p_qp_.x;
    return Correlation(Eigen::Map<const Eigen::VectorXd>(value.data(), value.size()), direction);
  }

  // Solves v_mm (for VALUE_SVM and the relaxed ATT-SVM) and the ATT-SVM or its relaxation.
  absl::Status Solve(const Eigen::MatrixXd& w, const std::vector<int>& selected) {
    const MaxMarginKind kind =
        spec_.reference() == MaxMarginCorrelation::ATT_SVM     ? MaxMarginKind::kAttSvm
        : spec_.reference() == MaxMarginCorrelation::VALUE_SVM ? MaxMarginKind::kValueSvm
                                                               : MaxMarginKind::kRelaxedAttSvm;
    ASSIGN_OR_RETURN(MaxMarginReference reference,
                     SolveMaxMarginReference(kind, tokens_, labels_, w, selected));
    v_mm_ = std::move(reference.v_mm);
    p_qp_ = std::move(reference.p);
    margins_ = std::move(reference.margins);
    return absl::OkStatus();
  }

  // A QP's solution, its multipliers and support (one per sequence for the SVM of v; per token,
  // 0 at the selected one, for the ATT-SVMs, whose constraints run over i, then t != s_i) and
  // its KKT residuals (stationarity, primal, dual, complementarity).
  void AddQp(const std::string& name, const QpSolution& qp, bool per_token,
             NpyArrays* arrays) const {
    const int n = static_cast<int>(tokens_.size());
    const int tokens = per_token ? static_cast<int>(tokens_[0].rows()) : 1;
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> multipliers =
        Eigen::MatrixXd::Zero(n, tokens);
    for (int i = 0, row = 0; i < n; ++i) {
      for (int t = 0; t < tokens; ++t) {
        if (!per_token || t != selected_[i]) multipliers(i, t) = qp.multipliers[row++];
      }
    }
    const Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> support =
        (multipliers.array() > 0);
    const std::vector<int64_t> shape =
        per_token ? std::vector<int64_t>{n, tokens} : std::vector<int64_t>{n};
    const double kkt[4] = {qp.kkt.stationarity, qp.kkt.primal, qp.kkt.dual,
                           qp.kkt.complementarity};
    (*arrays)[name] = NpyArray::Of<double>({qp.x.size()}, qp.x.data());
    (*arrays)[name + "_multipliers"] = NpyArray::Of<double>(shape, multipliers.data());
    (*arrays)[name + "_support"] = NpyArray::Of<bool>(shape, support.data());
    (*arrays)[name + "_kkt"] = NpyArray::Of<double>({4}, kkt);
  }

  MaxMarginCorrelation spec_;
  AttentionLayer<T>* layer_;
  Parameter<T>* p_;  // null with query_row_
  Parameter<T>* v_;
  bool query_row_;
  TokenSelection selection_;
  std::vector<Eigen::MatrixXd> tokens_;
  Eigen::VectorXd labels_;
  Eigen::MatrixXd queries_;  // n x d: each sequence's query (p's, replicated, without query_row_)

  bool cached_ = false;
  Eigen::MatrixXd w_;
  std::vector<int> selected_;
  Eigen::VectorXd margins_;
  QpSolution v_mm_;  // VALUE_SVM and RELAXED_ATT_SVM
  QpSolution p_qp_;  // the ATT-SVM or its relaxation
  QpSolution w_qp_;  // W_SVM
  Eigen::MatrixXd solved_queries_;  // the queries w_qp_ was solved for
};

template <typename T>
class SelectedProbabilityEvaluator : public MetricEvaluator<T> {
 public:
  SelectedProbabilityEvaluator(AttentionLayer<T>* layer, Parameter<T>* v,
                               TokenSelection selection, bool query_row)
      : layer_(layer), v_(v), selection_(std::move(selection)), query_row_(query_row) {}

  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>& batch) override {
    std::vector<Eigen::MatrixXd> tokens;
    Eigen::VectorXd labels;
    Eigen::MatrixXd queries;
    SplitBatch(batch, &tokens, &labels, query_row_ ? &queries : nullptr);
    const Eigen::VectorXd v =
        v_ != nullptr ? Eigen::VectorXd(ToDouble(v_->value)) : Eigen::VectorXd();
    return SelectedTokenProbability(layer_->attention(), selection_.Select(tokens, labels, v),
                                    layer_->heads());
  }

 private:
  AttentionLayer<T>* layer_;
  Parameter<T>* v_;
  TokenSelection selection_;
  bool query_row_;
};

template <typename T>
class AttentionStatisticEvaluator : public MetricEvaluator<T> {
 public:
  AttentionStatisticEvaluator(AttentionLayer<T>* layer, bool entropy)
      : layer_(layer), entropy_(entropy) {}
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    return entropy_ ? AttentionEntropy(layer_->attention()) : MaxSoftmax(layer_->attention());
  }

 private:
  AttentionLayer<T>* layer_;
  bool entropy_;
};

template <typename T>
class ParameterNormEvaluator : public MetricEvaluator<T> {
 public:
  explicit ParameterNormEvaluator(const Parameter<T>* param) : param_(param) {}
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    return static_cast<double>(param_->value.norm());
  }

 private:
  const Parameter<T>* param_;
};

template <typename T>
class CosineToIdentityEvaluator : public MetricEvaluator<T> {
 public:
  explicit CosineToIdentityEvaluator(const Parameter<T>* param) : param_(param) {}
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    const Matrix<T>& w = param_->value;
    const double norm = static_cast<double>(w.norm());
    return norm > 0 ? static_cast<double>(w.trace()) / (norm * std::sqrt(double(w.rows()))) : 0.0;
  }

 private:
  const Parameter<T>* param_;
};

template <typename T>
class MarkedAttentionEvaluator : public MetricEvaluator<T> {
 public:
  MarkedAttentionEvaluator(AttentionLayer<T>* layer, int marker)
      : layer_(layer), marker_(marker) {}
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
  AttentionLayer<T>* layer_;
  int marker_;
};

template <typename T>
class ValidationLossEvaluator : public MetricEvaluator<T> {
 public:
  ValidationLossEvaluator(const Batch<T>* set, bool supported, bool perplexity, uint64_t seed,
                          int threads)
      : set_(set), supported_(supported), perplexity_(perplexity), seed_(seed),
        ctx_(seed, threads) {}
  bool reads_training_forward() const override { return false; }
  absl::StatusOr<double> Evaluate(Model<T>& model, const Batch<T>&) override {
    if (!supported_) return std::numeric_limits<double>::quiet_NaN();
    ctx_.Reseed(seed_);  // the same random stream at every evaluation
    ctx_.set_training(false);
    model.Forward(set_->inputs, ctx_);
    const double loss = static_cast<double>(model.EvaluateLoss(set_->targets, ctx_));
    return perplexity_ ? std::exp(loss) : loss;
  }

 private:
  const Batch<T>* set_;
  bool supported_;
  bool perplexity_;
  uint64_t seed_;
  ExecContext ctx_;
};

template <typename T>
class GradientNormEvaluator : public MetricEvaluator<T> {
 public:
  explicit GradientNormEvaluator(const Parameter<T>* param) : param_(param) {}
  bool reads_training_forward() const override { return false; }  // after the backward pass
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    return static_cast<double>(param_->grad.norm());
  }

 private:
  const Parameter<T>* param_;
};

template <typename T>
class SpectrumEvaluator : public MetricEvaluator<T> {
 public:
  SpectrumEvaluator(AttentionLayer<T>* layer, QueryKeySpectrum::Statistic statistic)
      : layer_(layer), statistic_(statistic) {}
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    double total = 0;
    for (int h = 0; h < layer_->heads(); ++h) {
      const Spectrum s = EigenSpectrum(ToDouble(layer_->QueryKeyMatrix(h)));
      total += statistic_ == QueryKeySpectrum::MEAN       ? s.mean
               : statistic_ == QueryKeySpectrum::VARIANCE ? s.variance
                                                          : s.spread;
    }
    return total / layer_->heads();
  }

 private:
  AttentionLayer<T>* layer_;
  QueryKeySpectrum::Statistic statistic_;
};

template <typename T>
class QueryKeyNormEvaluator : public MetricEvaluator<T> {
 public:
  explicit QueryKeyNormEvaluator(AttentionLayer<T>* layer) : layer_(layer) {}
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    double total = 0;
    for (int h = 0; h < layer_->heads(); ++h) {
      total += static_cast<double>(layer_->QueryKeyMatrix(h).norm());
    }
    return total / layer_->heads();
  }

 private:
  AttentionLayer<T>* layer_;
};

// Accuracy on a validation set (its first `samples`) or on the training batch.
template <typename T>
class AccuracyEvaluator : public MetricEvaluator<T> {
 public:
  AccuracyEvaluator(const Batch<T>* set, int samples, Perturbation perturbation, int threads)
      : set_(set), samples_(samples), perturbation_(perturbation),
        ctx_(perturbation.seed, threads) {}
  bool reads_training_forward() const override { return false; }  // runs its own passes
  absl::StatusOr<double> Evaluate(Model<T>& model, const Batch<T>& batch) override {
    const Batch<T>& data = set_ != nullptr ? *set_ : batch;
    ctx_.Reseed(perturbation_.seed);  // the same random stream at every evaluation
    return Accuracy(model, data.inputs, data.targets, perturbation_, ctx_, samples_);
  }

 private:
  const Batch<T>* set_;
  int samples_;
  Perturbation perturbation_;
  ExecContext ctx_;
};

// The perturbation a ClassificationAccuracy asks for, or a FieldError.
absl::StatusOr<Perturbation> PerturbationOf(const ClassificationAccuracy& spec, uint64_t seed) {
  Perturbation p;
  p.seed = seed;
  switch (spec.perturbation_case()) {
    case ClassificationAccuracy::kGaussian:
      p.kind = Perturbation::kGaussian;
      p.size = spec.gaussian().std();
      if (!(p.size > 0)) return FieldError("accuracy.gaussian.std", "must be > 0");
      break;
    case ClassificationAccuracy::kFgsm:
      p.kind = Perturbation::kFgsm;
      p.size = spec.fgsm().epsilon();
      if (!(p.size > 0)) return FieldError("accuracy.fgsm.epsilon", "must be > 0");
      break;
    case ClassificationAccuracy::kPgd:
      p.kind = Perturbation::kPgd;
      p.size = spec.pgd().epsilon();
      if (spec.pgd().has_steps()) p.steps = spec.pgd().steps();
      p.step_size = spec.pgd().step_size();  // absent: 0, Perturb's default
      if (!(p.size > 0)) return FieldError("accuracy.pgd.epsilon", "must be > 0");
      if (p.steps <= 0) return FieldError("accuracy.pgd.steps", "must be > 0");
      if (spec.pgd().has_step_size() && !(p.step_size > 0)) {
        return FieldError("accuracy.pgd.step_size", "must be > 0");
      }
      p.random_start = spec.pgd().random_start();
      break;
    case ClassificationAccuracy::PERTURBATION_NOT_SET:
      break;
  }
  p.predicted_labels = spec.attack_labels() == ClassificationAccuracy::PREDICTED_LABELS;
  if (p.predicted_labels && p.kind != Perturbation::kFgsm && p.kind != Perturbation::kPgd) {
    return FieldError("accuracy.attack_labels", "only for the attacks (fgsm, pgd)");
  }
  return p;
}

template <typename T>
class ParameterCountEvaluator : public MetricEvaluator<T> {
 public:
  absl::StatusOr<double> Evaluate(Model<T>& model, const Batch<T>&) override {
    return static_cast<double>(model.parameter_count());
  }
};

template <typename T>
absl::StatusOr<const Parameter<T>*> FindParameter(const Model<T>& model, const std::string& name,
                                                  const std::string& field) {
  const Parameter<T>* param = model.FindParameter(name);
  if (param != nullptr) return param;
  std::string known;
  for (const Parameter<T>* p : model.parameters()) {
    absl::StrAppend(&known, known.empty() ? "" : ", ", p->name);
  }
  return FieldError(field, absl::StrCat("no parameter '", name, "'; parameters: ", known));
}

template <typename T>
absl::StatusOr<const Batch<T>*> FindValidationSet(const Dataset<T>& dataset,
                                                  const std::string& name,
                                                  const std::string& field) {
  std::string known;
  for (const NamedBatch<T>& set : dataset.validation()) {
    if (set.name == name) return &set.batch;
    absl::StrAppend(&known, known.empty() ? "" : ", ", set.name);
  }
  return FieldError(field, absl::StrCat("the dataset has no validation set '", name, "'; sets: ",
                                        known.empty() ? "none" : known));
}

// A metric plugin (attention/metric.h) as an evaluator.
template <typename T>
class PluginEvaluator : public MetricEvaluator<T> {
 public:
  explicit PluginEvaluator(std::unique_ptr<Metric<T>> metric) : metric_(std::move(metric)) {}
  bool reads_training_forward() const override { return metric_->reads_training_forward(); }
  absl::StatusOr<double> Evaluate(Model<T>& model, const Batch<T>& batch) override {
    return metric_->Evaluate(model, batch);
  }

 private:
  std::unique_ptr<Metric<T>> metric_;
};

template <typename T>
absl::StatusOr<std::unique_ptr<MetricEvaluator<T>>> CreatePluginEvaluator(
    const MetricSpec& spec, const Model<T>& model, const Dataset<T>& dataset, uint64_t seed,
    int threads) {
  if (spec.kind_case() != MetricSpec::KIND_NOT_SET) {
    return FieldError("plugin", "give a metric plugin or one of the built-in kinds, not both");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Metric<T>> metric,
                   MetricRegistry<T>().CreateAt(spec.plugin(), spec.config()));
  const MetricContext<T> context{model, dataset, seed, threads};
  if (absl::Status status = metric->Setup(context); !status.ok()) {
    return PrefixErrorField("config", status);
  }
  return std::unique_ptr<MetricEvaluator<T>>(new PluginEvaluator<T>(std::move(metric)));
}

}  // namespace

template <typename T>
absl::StatusOr<std::unique_ptr<MetricEvaluator<T>>> CreateMetricEvaluator(
    const MetricSpec& spec, const Model<T>& model, const Dataset<T>& dataset, uint64_t seed,
    int threads) {
  using Result = std::unique_ptr<MetricEvaluator<T>>;
  if (!spec.plugin().empty()) return CreatePluginEvaluator(spec, model, dataset, seed, threads);
  const Shape inputs = dataset.input_shape();
  switch (spec.kind_case()) {
    case MetricSpec::kMaxMargin: {
      const MaxMarginCorrelation& mm = spec.max_margin();
      ASSIGN_OR_RETURN(AttentionLayer<T>* layer, FindAttention(model, mm.layer(), "max_margin.layer"));
      ASSIGN_OR_RETURN(PromptForm<T> * prompt,
                       PromptOf(layer, mm.layer(), "max_margin.layer", /*softmax_only=*/true));
      if (prompt->query_row() && mm.reference() != MaxMarginCorrelation::W_SVM) {
        return FieldError("max_margin.reference",
                          absl::StrCat("layer '", mm.layer(), "' takes each sample's first row "
                                       "as its query (query: FIRST_ROW): only W_SVM applies"));
      }
      if (mm.select_attended() && !mm.selected_token().empty()) {
        return FieldError("max_margin.select_attended", "excludes selected_token");
      }
      if (dataset.train() == nullptr) {
        return FieldError("max_margin", "needs a fixed training set, not a stream");
      }
      ASSIGN_OR_RETURN(TokenSelection selection,
                       TokenSelection::Create(mm.selected_token(), inputs.batch,
                                              inputs.rows - (prompt->query_row() ? 1 : 0),
                                              "max_margin.selected_token"));
      return Result(
          new MaxMarginEvaluator<T>(mm, layer, *prompt, std::move(selection), *dataset.train()));
    }
    case MetricSpec::kSelectedProbability: {
      const SelectedTokenMetric& sp = spec.selected_probability();
      ASSIGN_OR_RETURN(AttentionLayer<T>* layer,
                       FindAttention(model, sp.layer(), "selected_probability.layer"));
      // A prompt layer with query: FIRST_ROW attends over each sample's rows after the first.
      const PromptForm<T>* form = layer->AsPromptForm();
      const bool query_row = form != nullptr && form->query_row();
      ASSIGN_OR_RETURN(TokenSelection selection,
                       TokenSelection::Create(sp.selected_token(), inputs.batch,
                                              inputs.rows - (query_row ? 1 : 0),
                                              "selected_probability.selected_token"));
      Parameter<T>* v = nullptr;
      if (selection.by_score()) {
        // Without explicit tokens, selection is by score under the layer's v.
        ASSIGN_OR_RETURN(PromptForm<T> * prompt,
                         PromptOf(layer, sp.layer(), "selected_probability.selected_token",
                                  /*softmax_only=*/false));
        v = &prompt->value();
      }
      return Result(new SelectedProbabilityEvaluator<T>(layer, v, std::move(selection), query_row));
    }
    case MetricSpec::kAttentionEntropy:
    case MetricSpec::kMaxSoftmax: {
      const bool entropy = spec.kind_case() == MetricSpec::kAttentionEntropy;
      const AttentionStatistic& stat = entropy ? spec.attention_entropy() : spec.max_softmax();
      ASSIGN_OR_RETURN(AttentionLayer<T>* layer,
                       FindAttention(model, stat.layer(),
                                     entropy ? "attention_entropy.layer" : "max_softmax.layer"));
      return Result(new AttentionStatisticEvaluator<T>(layer, entropy));
    }
    case MetricSpec::kParamNorm: {
      ASSIGN_OR_RETURN(const Parameter<T>* param,
                       FindParameter(model, spec.param_norm().param(), "param_norm.param"));
      return Result(new ParameterNormEvaluator<T>(param));
    }
    case MetricSpec::kCosineToIdentity: {
      ASSIGN_OR_RETURN(const Parameter<T>* param,
                       FindParameter(model, spec.cosine_to_identity().param(),
                                     "cosine_to_identity.param"));
      if (param->value.rows() != param->value.cols()) {
        return FieldError("cosine_to_identity.param",
                          absl::StrCat("'", param->name, "' is not square"));
      }
      return Result(new CosineToIdentityEvaluator<T>(param));
    }
    case MetricSpec::kMarkedAttention: {
      ASSIGN_OR_RETURN(AttentionLayer<T>* layer,
                       FindAttention(model, spec.marked_attention().layer(),
                                     "marked_attention.layer"));
      if (dataset.marked_column() < 0) {
        return FieldError("marked_attention", "needs a dataset whose inputs mark tokens "
                                              "(sparse_selection marks the set y)");
      }
      return Result(new MarkedAttentionEvaluator<T>(layer, dataset.marked_column()));
    }
    case MetricSpec::kValidationLoss: {
      ASSIGN_OR_RETURN(const Batch<T>* set, FindValidationSet(dataset, spec.validation_loss().set(),
                                                              "validation_loss.set"));
      const bool supported = model.CheckShapes(set->inputs.shape(), set->targets.shape()).ok();
      return Result(new ValidationLossEvaluator<T>(set, supported,
                                                   spec.validation_loss().perplexity(), seed,
                                                   threads));
    }
    case MetricSpec::kParamCount:
      return Result(new ParameterCountEvaluator<T>());
    case MetricSpec::kQkSpectrum: {
      ASSIGN_OR_RETURN(AttentionLayer<T>* layer,
                       FindAttention(model, spec.qk_spectrum().layer(), "qk_spectrum.layer"));
      return Result(new SpectrumEvaluator<T>(layer, spec.qk_spectrum().statistic()));
    }
    case MetricSpec::kQkNorm: {
      ASSIGN_OR_RETURN(AttentionLayer<T>* layer,
                       FindAttention(model, spec.qk_norm().layer(), "qk_norm.layer"));
      return Result(new QueryKeyNormEvaluator<T>(layer));
    }
    case MetricSpec::kAccuracy: {
      const ClassificationAccuracy& acc = spec.accuracy();
      if (acc.max_samples() < 0) return FieldError("accuracy.max_samples", "must be >= 0");
      ASSIGN_OR_RETURN(const Perturbation perturbation, PerturbationOf(acc, seed));
      const Batch<T>* set = nullptr;
      if (!acc.set().empty()) {
        ASSIGN_OR_RETURN(set, FindValidationSet(dataset, acc.set(), "accuracy.set"));
      }
      const Shape target = set != nullptr ? set->targets.shape() : dataset.target_shape();
      const Shape input = set != nullptr ? set->inputs.shape() : dataset.input_shape();
      if (target.cols != 1 || !model.CheckShapes(input, target).ok()) {
        return FieldError("accuracy", "needs a classifier: class scores per sample and class "
                                      "ids as targets (loss cross_entropy)");
      }
      return Result(new AccuracyEvaluator<T>(set, acc.max_samples(), perturbation, threads));
    }
    case MetricSpec::kGradNorm: {
      ASSIGN_OR_RETURN(const Parameter<T>* param,
                       FindParameter(model, spec.grad_norm().param(), "grad_norm.param"));
      if (param->frozen) {  // layers may skip a frozen parameter's gradient (Parameter::grad)
        return FieldError("grad_norm.param",
                          absl::StrCat("'", param->name, "' is frozen: it has no gradient"));
      }
      return Result(new GradientNormEvaluator<T>(param));
    }
    case MetricSpec::kRatio:  // of other metrics' values: TrialRunner computes it
      return absl::InternalError("a ratio of metrics has no evaluator of its own");
    case MetricSpec::KIND_NOT_SET:
      break;
  }
  return FieldError("kind",
                    "missing required field: one of max_margin, selected_probability, "
                    "attention_entropy, max_softmax, param_norm, cosine_to_identity, "
                    "marked_attention, validation_loss, param_count, grad_norm, qk_spectrum, "
                    "accuracy, qk_norm, ratio, or a metric plugin (plugin)");
}

template absl::StatusOr<std::unique_ptr<MetricEvaluator<float>>> CreateMetricEvaluator(
    const MetricSpec&, const Model<float>&, const Dataset<float>&, uint64_t, int);
template absl::StatusOr<std::unique_ptr<MetricEvaluator<double>>> CreateMetricEvaluator(
    const MetricSpec&, const Model<double>&, const Dataset<double>&, uint64_t, int);

}  // namespace attnlab

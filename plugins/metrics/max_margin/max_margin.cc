// The `max_margin` metric: corr(p, v or W, a max-margin direction of paper 1), the direction
// solved from the training data (solvers/max_margin_reference.h) whenever W, v or the selection
// changed; the solution and its multipliers, support and KKT residuals are its arrays.
#include <optional>
#include <vector>

#include "attention/analysis/metrics.h"
#include "attention/analysis/prompt_samples.h"
#include "attention/analysis/token_selection.h"
#include "attention/metric_lookups.h"
#include "plugins/metrics/max_margin/max_margin.pb.h"
#include "solvers/att_svm.h"
#include "solvers/max_margin_reference.h"

namespace attnlab {
namespace {

template <typename T>
Eigen::MatrixXd ToDouble(const Matrix<T>& m) {
  return m.template cast<double>();
}

// corr(p or v, max-margin direction). The SVM is re-solved only when W, v or the selection
// changed since the last evaluation.
template <typename T>
class MaxMargin : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<MaxMargin<T>>> Create(
      const plugins::MaxMarginConfig& config) {
    if (config.select_attended() && !config.selected_token().empty()) {
      return FieldError("select_attended", "excludes selected_token");
    }
    return std::unique_ptr<MaxMargin<T>>(new MaxMargin<T>(config));
  }

  absl::Status Setup(const MetricContext<T>& context) override {
    ASSIGN_OR_RETURN(layer_, FindAttentionLayer(context.model, spec_.layer()));
    ASSIGN_OR_RETURN(PromptForm<T> * prompt,
                     PromptOf(layer_, spec_.layer(), "layer", /*softmax_only=*/true));
    query_row_ = prompt->query_row();
    if (query_row_ && spec_.reference() != Config::W_SVM) {
      return FieldError("reference",
                        absl::StrCat("layer '", spec_.layer(),
                                     "' takes each sample's first row "
                                     "as its query (query: FIRST_ROW): only W_SVM applies"));
    }
    if (context.data.train == nullptr) {
      return FieldError("layer",
                        "the max-margin directions need a fixed training set, not a "
                        "stream");
    }
    const Shape inputs = context.data.input_shape;
    ASSIGN_OR_RETURN(selection_,
                     TokenSelection::Create(spec_.selected_token(), inputs.batch,
                                            inputs.rows - (query_row_ ? 1 : 0), "selected_token"));
    p_ = prompt->query();
    v_ = &prompt->value();
    SplitBatch(*context.data.train, &tokens_, &labels_, query_row_ ? &queries_ : nullptr);
    return absl::OkStatus();
  }

  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    const Eigen::VectorXd v = ToDouble<T>(v_->value);
    // Paper 1 scores token x by x^T W p; the layer's query-key form M has u^T M x, so W = M^T.
    const Eigen::MatrixXd w = ToDouble<T>(layer_->QueryKeyMatrix(0)).transpose();
    if (!query_row_) queries_ = ToDouble<T>(p_->value).transpose().replicate(tokens_.size(), 1);
    const std::vector<int> selected = spec_.select_attended()
                                          ? AttendedTokens(tokens_, w, queries_)
                                          : selection_->Select(tokens_, labels_, v);
    if (spec_.reference() == Config::W_SVM) {
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
    if (spec_.reference() == Config::W_SVM) {
      AddQp("w_mm", w_qp_, true, &arrays);
      return arrays;
    }
    if (spec_.reference() != Config::ATT_SVM) AddQp("v_mm", v_mm_, false, &arrays);
    if (spec_.reference() != Config::VALUE_SVM) {
      AddQp(spec_.reference() == Config::ATT_SVM ? "p_mm" : "p_relaxed", p_qp_, true, &arrays);
    }
    if (spec_.reference() == Config::RELAXED_ATT_SVM) {
      arrays["margins"] = NpyArray::Of<double>({n}, margins_.data());
    }
    return arrays;
  }

 private:
  using Config = plugins::MaxMarginConfig;

  explicit MaxMargin(plugins::MaxMarginConfig config) : spec_(std::move(config)) {}

  double Correlate() const {
    const Parameter<T>* target = spec_.reference() == Config::VALUE_SVM ? v_ : p_;
    const Eigen::MatrixXd value = ToDouble<T>(target->value);
    const Eigen::VectorXd& direction = spec_.reference() == Config::VALUE_SVM ? v_mm_.x : p_qp_.x;
    return Correlation(Eigen::Map<const Eigen::VectorXd>(value.data(), value.size()), direction);
  }

  // Solves v_mm (for VALUE_SVM and the relaxed ATT-SVM) and the ATT-SVM or its relaxation.
  absl::Status Solve(const Eigen::MatrixXd& w, const std::vector<int>& selected) {
    const MaxMarginKind kind = spec_.reference() == Config::ATT_SVM ? MaxMarginKind::kAttSvm
                               : spec_.reference() == Config::VALUE_SVM
                                   ? MaxMarginKind::kValueSvm
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
    const double kkt[4] = {qp.kkt.stationarity, qp.kkt.primal, qp.kkt.dual, qp.kkt.complementarity};
    (*arrays)[name] = NpyArray::Of<double>({qp.x.size()}, qp.x.data());
    (*arrays)[name + "_multipliers"] = NpyArray::Of<double>(shape, multipliers.data());
    (*arrays)[name + "_support"] = NpyArray::Of<bool>(shape, support.data());
    (*arrays)[name + "_kkt"] = NpyArray::Of<double>({4}, kkt);
  }

  plugins::MaxMarginConfig spec_;
  AttentionLayer<T>* layer_ = nullptr;
  Parameter<T>* p_ = nullptr;  // null with query_row_
  Parameter<T>* v_ = nullptr;
  bool query_row_ = false;
  std::optional<TokenSelection> selection_;
  std::vector<Eigen::MatrixXd> tokens_;
  Eigen::VectorXd labels_;
  Eigen::MatrixXd queries_;  // n x d: each sequence's query (p's, replicated, without query_row_)

  bool cached_ = false;
  Eigen::MatrixXd w_;
  std::vector<int> selected_;
  Eigen::VectorXd margins_;
  QpSolution v_mm_;                 // VALUE_SVM and RELAXED_ATT_SVM
  QpSolution p_qp_;                 // the ATT-SVM or its relaxation
  QpSolution w_qp_;                 // W_SVM
  Eigen::MatrixXd solved_queries_;  // the queries w_qp_ was solved for
};

}  // namespace

ATTNLAB_REGISTER_METRIC("max_margin", plugins::MaxMarginConfig, MaxMargin,
                        "correlation of a prompt layer's p, v or W with paper 1's "
                        "max-margin direction (ATT-SVM, its relaxation, the values' SVM, W_mm)",
                        {"layer: 'attn' reference: ATT_SVM", "layer: 'attn' reference: VALUE_SVM",
                         "layer: 'attn' reference: RELAXED_ATT_SVM",
                         "layer: 'attn' reference: W_SVM select_attended: true"});

}  // namespace attnlab

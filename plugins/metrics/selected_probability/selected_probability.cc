// The `selected_probability` metric: the attention weight on each sequence's selected token.
#include <optional>

#include "attention/analysis/metrics.h"
#include "attention/analysis/prompt_samples.h"
#include "attention/analysis/token_selection.h"
#include "attention/metric_lookups.h"
#include "plugins/metrics/selected_probability/selected_probability.pb.h"

namespace attnlab {
namespace {

template <typename T>
class SelectedProbability : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<SelectedProbability<T>>> Create(
      const plugins::SelectedProbabilityConfig& config) {
    return std::unique_ptr<SelectedProbability<T>>(new SelectedProbability<T>(config));
  }

  absl::Status Setup(const MetricContext<T>& context) override {
    ASSIGN_OR_RETURN(layer_, FindAttentionLayer(context.model, config_.layer()));
    // A prompt layer with query: FIRST_ROW attends over each sample's rows after the first.
    const PromptForm<T>* form = layer_->AsPromptForm();
    query_row_ = form != nullptr && form->query_row();
    const Shape inputs = context.data.input_shape;
    ASSIGN_OR_RETURN(selection_,
                     TokenSelection::Create(config_.selected_token(), inputs.batch,
                                            inputs.rows - (query_row_ ? 1 : 0), "selected_token"));
    if (selection_->by_score()) {
      // Without explicit tokens, selection is by score under the layer's v.
      ASSIGN_OR_RETURN(PromptForm<T> * prompt,
                       PromptOf(layer_, config_.layer(), "selected_token", /*softmax_only=*/false));
      v_ = &prompt->value();
    }
    return absl::OkStatus();
  }

  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>& batch) override {
    std::vector<Eigen::MatrixXd> tokens;
    Eigen::VectorXd labels;
    Eigen::MatrixXd queries;
    SplitBatch(batch, &tokens, &labels, query_row_ ? &queries : nullptr);
    const Eigen::VectorXd v =
        v_ != nullptr ? Eigen::VectorXd(v_->value.template cast<double>()) : Eigen::VectorXd();
    return SelectedTokenProbability(layer_->attention(), selection_->Select(tokens, labels, v),
                                    layer_->heads());
  }

 private:
  explicit SelectedProbability(plugins::SelectedProbabilityConfig config)
      : config_(std::move(config)) {}

  plugins::SelectedProbabilityConfig config_;
  AttentionLayer<T>* layer_ = nullptr;
  const Parameter<T>* v_ = nullptr;
  std::optional<TokenSelection> selection_;
  bool query_row_ = false;
};

}  // namespace

ATTNLAB_REGISTER_METRIC("selected_probability", plugins::SelectedProbabilityConfig,
                        SelectedProbability,
                        "mean attention weight on each sequence's selected token (given, or the "
                        "highest-scoring under v; paper 1)",
                        {"layer: 'attn'", "layer: 'attn' selected_token: 0"});

}  // namespace attnlab

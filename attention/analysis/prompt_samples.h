// Paper 1's view of a batch and a model, for the metrics that compare a prompt layer with its
// max-margin directions: each sample's tokens, label and query, and the layer's prompt form.
#ifndef ATTNLAB_ATTENTION_ANALYSIS_PROMPT_SAMPLES_H_
#define ATTNLAB_ATTENTION_ANALYSIS_PROMPT_SAMPLES_H_

#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "attention/attention_layer.h"
#include "attention/base/field_error.h"
#include "attention/batch.h"
#include "attention/prompt_form.h"

namespace attnlab {

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
// or a FieldError at `field` saying what the metric needs. `softmax_only`: ATT-SVM is the limit
// of softmax attention, so the max-margin correlations refuse other weights.
template <typename T>
absl::StatusOr<PromptForm<T>*> PromptOf(AttentionLayer<T>* layer, const std::string& name,
                                        const std::string& field, bool softmax_only) {
  PromptForm<T>* prompt = layer->AsPromptForm();
  if (prompt == nullptr || prompt->value().value.cols() != 1) {
    return FieldError(field, absl::StrCat("layer '", name,
                                          "' is not paper 1's prompt attention "
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

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_ANALYSIS_PROMPT_SAMPLES_H_

// Paper 1's prompt form of an attention layer, f(X) = v^T X^T weights(X W p): what the metrics
// that need it (max-margin correlations, selection by score) query, through
// AttentionLayer::AsPromptForm(). A layer without the form returns null there.
#ifndef ATTNLAB_ATTENTION_PROMPT_FORM_H_
#define ATTNLAB_ATTENTION_PROMPT_FORM_H_

#include <string>

#include "attention/parameter.h"

namespace attnlab {

template <typename T>
class PromptForm {
 public:
  virtual ~PromptForm() = default;

  // Each sample's first row z is its query in place of p (the W-parametrization):
  // f(X) = v^T X^T weights(X W z) over the rows after it.
  virtual bool query_row() const = 0;
  // p (d x 1); null with query_row().
  virtual Parameter<T>* query() = 0;
  // v (d x value_dim).
  virtual Parameter<T>& value() = 0;
  // W enters as the layer's QueryKeyMatrix(0), transposed: u^T M x = x^T W u.

  // The weights are softmax(scores): the ATT-SVM is their limit (paper 1's theorems).
  virtual bool softmax_weights() const = 0;
  // The mechanism's registered name, for messages.
  virtual const std::string& mechanism() const = 0;
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_PROMPT_FORM_H_

// Attention mechanisms: layers that also expose their attention matrix and query-key form, so
// that every metric (entropy, max-softmax, selected-token probability, QK spectrum, margins)
// works for every attention plugin without knowing it.
#ifndef ATTNLAB_ATTENTION_ATTENTION_LAYER_H_
#define ATTNLAB_ATTENTION_ATTENTION_LAYER_H_

#include <optional>

#include "attention/layer.h"
#include "attention/prompt_form.h"
#include "attention/tensor.h"

namespace attnlab {

template <typename T>
class AttentionLayer : public Layer<T> {
 public:
  // Attention weights of the last Forward, [batch * heads, queries, keys], sample index
  // b * heads + h. Softmax rows sum to 1; other mechanisms' need not (sigmoid, ReLU): metrics
  // that need a distribution normalize each row.
  virtual const Tensor<T>& attention() const = 0;
  virtual int heads() const { return 1; }

  // The query-key bilinear form M of a head, square: the pre-softmax score of query u against
  // key x is proportional to u^T M x (M = W_Q W_K^T for projections W_Q, W_K). u and x are
  // tokens (d x d) for token attention, positional encodings for positional attention.
  virtual Matrix<T> QueryKeyMatrix(int head) const = 0;

  // Adds dL/dM for M = QueryKeyMatrix(head) into the gradients of the parameters M is made of
  // (after Backward): how regularizers on W_QK reach any attention plugin.
  virtual void AddQueryKeyGradient(int head, const Matrix<T>& grad) = 0;

  // The last Forward's per-head queries, keys and values: (batch * tokens) x (heads * width)
  // blocks, head h in its h-th block of `qk_width` (values: `value_width`) columns, with the
  // scale of the scores (scale q^T k); std::nullopt where a layer keeps none. Metrics that read
  // the attention's feature space use them (paper 4's kernel-PCA projection loss).
  struct HeadProjections {
    const Matrix<T>* queries = nullptr;
    const Matrix<T>* keys = nullptr;
    const Matrix<T>* values = nullptr;
    int qk_width = 0, value_width = 0;
    T scale = 1;
  };
  virtual std::optional<HeadProjections> head_projections() const { return std::nullopt; }

  // Paper 1's prompt form (attention/prompt_form.h), or null for layers without it.
  virtual PromptForm<T>* AsPromptForm() { return nullptr; }

  AttentionLayer<T>* AsAttention() override { return this; }
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_ATTENTION_LAYER_H_

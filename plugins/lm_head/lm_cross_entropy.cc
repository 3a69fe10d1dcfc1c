#include "plugins/lm_head/lm_cross_entropy.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/kernels/parallel.h"
#include "attention/kernels/parallel_product.h"
#include "attention/kernels/softmax.h"
#include "attention/plugin_registry.h"
#include "attention/base/status_macros.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<LmCrossEntropy<T>>> LmCrossEntropy<T>::Create(
    const Config& config) {
  if (config.vocab_size() <= 0) return FieldError("vocab_size", "missing or not > 0");
  if (config.chunk_tokens() < 0) return FieldError("chunk_tokens", "must be >= 0");
  return std::unique_ptr<LmCrossEntropy<T>>(new LmCrossEntropy<T>(config));
}

template <typename T>
absl::Status LmCrossEntropy<T>::Check(const Shape& prediction, const Shape& target) const {
  if (target.cols != 1 || target.batch != prediction.batch || target.rows != prediction.rows) {
    return absl::InvalidArgumentError(
        "lm_cross_entropy needs [batch, T, d] hidden states and [batch, T, 1] next-token ids");
  }
  if (dim_ != 0 && prediction.cols != dim_) {
    return absl::InvalidArgumentError(
        absl::StrCat("lm_cross_entropy was set up for d = ", dim_, ", got ", prediction.ToString()));
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status LmCrossEntropy<T>::Setup(const Shape& prediction, const Shape& target,
                                      ExecContext& ctx) {
  RETURN_IF_ERROR(Check(prediction, target));
  dim_ = prediction.cols;
  w_.name = "w";
  b_.name = "b";
  RETURN_IF_ERROR(InitParameter(config_.w(), {ParamSpec::NORMAL, 1 / std::sqrt(double(dim_))},
                                dim_, config_.vocab_size(), "w", ctx, &w_));
  if (config_.bias()) {
    RETURN_IF_ERROR(InitParameter(ParamSpec(), {ParamSpec::ZEROS}, 1, config_.vocab_size(), "b",
                                  ctx, &b_));
  }
  return absl::OkStatus();
}

template <typename T>
std::vector<Parameter<T>*> LmCrossEntropy<T>::parameters() {
  if (config_.bias()) return {&w_, &b_};
  return {&w_};
}

template <typename T>
absl::Status LmCrossEntropy<T>::CheckTargetValues(const Tensor<T>& target) const {
  for (Eigen::Index i = 0; i < target.size(); ++i) {
    const T id = target.data()[i];
    if (!(id >= 0 && id < config_.vocab_size() && id == std::floor(id))) {
      return FieldError("vocab_size", absl::StrCat("the data holds token id ", id,
                                                   ", outside 0..", config_.vocab_size() - 1));
    }
  }
  return absl::OkStatus();
}

// Tokens per partial sum of the bias gradient: a chunk of 512 gives 8 tasks.
constexpr int kBiasGroupTokens = 64;

template <typename T>
T LmCrossEntropy<T>::Compute(const Tensor<T>& prediction, const Tensor<T>& target,
                             Tensor<T>* grad, ExecContext& ctx) {
  const Matrix<T>& h = prediction.flat();  // tokens x d
  const int tokens = static_cast<int>(h.rows());
  const int chunk = config_.chunk_tokens() > 0 ? config_.chunk_tokens() : 512;
  const T inv_tokens = T(1) / tokens;
  if (grad != nullptr) {
    grad->Resize(prediction.shape());
    const int vocab = config_.vocab_size(), dim = static_cast<int>(w_.value.rows());
    w_transposed_.resize(vocab, dim);
    ParallelFor(ctx, vocab, [&](int begin, int end) {
      w_transposed_.middleRows(begin, end - begin) =
          w_.value.middleCols(begin, end - begin).transpose();
    }, GrainFor(dim));
    w_.grad.setZero();
    if (config_.bias()) b_.grad.setZero();
  }
  double total = 0;
  for (int start = 0; start < tokens; start += chunk) {
    const int n = std::min(chunk, tokens - start);
    logits_.resize(n, config_.vocab_size());
    token_loss_.resize(n);
    ParallelProduct(ctx, h.middleRows(start, n), w_.value, logits_);
    // dL/db sums the rows of dL/dlogits: each group of rows into its own partial sum while the
    // rows are in cache, the partials then in group order (the same bits on any thread count).
    const bool bias_grad = grad != nullptr && config_.bias();
    const int groups = (n + kBiasGroupTokens - 1) / kBiasGroupTokens;
    if (bias_grad) bias_partials_.resize(groups, config_.vocab_size());
    ParallelFor(ctx, groups, [&](int first_group, int end_group) {
      for (int g = first_group; g < end_group; ++g) {
        if (bias_grad) bias_partials_.row(g).setZero();
        for (int i = g * kBiasGroupTokens; i < std::min(n, (g + 1) * kBiasGroupTokens); ++i) {
          auto row = logits_.row(i);
          if (config_.bias()) row += b_.value.row(0);
          const auto label = std::lround(target.data()[start + i]);
          const T label_logit = row[label];
          // d/dlogits = (softmax - onehot) / tokens; the row is scratch without a gradient.
          const T log_sum = ScaledSoftmaxRow(row.data(), int(row.size()), inv_tokens, row.data());
          token_loss_[i] = log_sum - label_logit;
          if (grad != nullptr) row[label] -= inv_tokens;
          if (bias_grad) bias_partials_.row(g) += row;
        }
      }
    });
    total += static_cast<double>(token_loss_.sum());
    if (grad == nullptr) continue;
    ParallelProduct(ctx, h.middleRows(start, n).transpose(), logits_, w_.grad, /*accumulate=*/true);
    if (bias_grad) {
      ParallelFor(ctx, config_.vocab_size(), [&](int begin, int end) {
        b_.grad.middleCols(begin, end - begin) +=
            bias_partials_.middleCols(begin, end - begin).colwise().sum();
      }, GrainFor(groups));
    }
    ParallelProduct(ctx, logits_, w_transposed_, grad->flat().middleRows(start, n));
  }
  return static_cast<T>(total / tokens);
}

template class LmCrossEntropy<float>;
template class LmCrossEntropy<double>;

ATTNLAB_REGISTER_CONFIGURED_LOSS("lm_cross_entropy", plugins::LmHeadConfig, LmCrossEntropy,
                                 "a language model's linear output head and its mean "
                                 "cross-entropy, fused: the logits are never held whole",
                                 {"vocab_size: 5 bias: true chunk_tokens: 4", "vocab_size: 3"});

}  // namespace attnlab

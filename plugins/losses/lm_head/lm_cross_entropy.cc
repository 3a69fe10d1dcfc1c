#include "plugins/losses/lm_head/lm_cross_entropy.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "attention/kernels/parallel.h"
#include "attention/kernels/product.h"
#include "attention/kernels/scale_rows.h"
#include "attention/kernels/softmax.h"
#include "attention/plugin_registry.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<LmCrossEntropy<T>>> LmCrossEntropy<T>::Create(const Config& config) {
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
    return absl::InvalidArgumentError(absl::StrCat("lm_cross_entropy was set up for d = ", dim_,
                                                   ", got ", prediction.ToString()));
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
  RETURN_IF_ERROR(InitParameter(config_.w(), {ParamSpec::NORMAL, 1 / std::sqrt(double(dim_))}, dim_,
                                config_.vocab_size(), "w", ctx, &w_));
  if (config_.bias()) {
    RETURN_IF_ERROR(
        InitParameter(ParamSpec(), {ParamSpec::ZEROS}, 1, config_.vocab_size(), "b", ctx, &b_));
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
      return FieldError("vocab_size", absl::StrCat("the data holds token id ", id, ", outside 0..",
                                                   config_.vocab_size() - 1));
    }
  }
  return absl::OkStatus();
}

// The vocabulary in blocks of this many words: a block's logits for a chunk of 512 tokens (256
// KB in float) stay in L2 from their product through the softmax to the two gradient products,
// and the libraries multiply compact blocks (a block of columns of the whole logits matrix has
// its rows 133 KB apart: experiments/BENCHMARKS.md).
constexpr int kVocabBlock = 128;
// A block's rows are this many entries apart: 128 words padded, so that they are not a multiple
// of 512 bytes apart, which crowds them into few cache sets (experiments/BENCHMARKS.md,
// "Leading dimensions").
constexpr int kBlockStride = kVocabBlock + 16;
// dL/dh sums over the vocabulary blocks: in this many fixed groups of blocks, each group's
// partial sum in block order and the partials in group order, so that the bits do not depend on
// the thread count.
constexpr int kGradGroups = 8;

// Block b of a matrix kept by vocabulary blocks: row b of `storage`, rows x width, row-major with
// row stride kBlockStride.
template <typename T>
Eigen::Map<Matrix<T>, 0, Eigen::OuterStride<>> VocabBlock(Matrix<T>& storage, int b, int rows,
                                                          int width) {
  return {storage.row(b).data(), rows, width, Eigen::OuterStride<>(kBlockStride)};
}

template <typename T>
T LmCrossEntropy<T>::Compute(const Tensor<T>& prediction, const Tensor<T>& target, Tensor<T>* grad,
                             ExecContext& ctx) {
  const Matrix<T>& h = prediction.flat();  // tokens x d
  const int tokens = static_cast<int>(h.rows());
  const int chunk = config_.chunk_tokens() > 0 ? config_.chunk_tokens() : 512;
  const int vocab = config_.vocab_size(), dim = static_cast<int>(w_.value.rows());
  const int blocks = (vocab + kVocabBlock - 1) / kVocabBlock;
  const T inv_tokens = T(1) / tokens;
  auto width_of = [&](int b) { return std::min(kVocabBlock, vocab - b * kVocabBlock); };
  // W by vocabulary blocks (block b: d x width, row-major, row stride kBlockStride), the logits'
  // rhs; with a gradient, W^T (vocab x d, row-major), dL/dh's.
  w_blocks_.resize(blocks, int64_t(dim) * kBlockStride);
  if (grad != nullptr) w_transposed_.resize(vocab, dim);
  ParallelFor(ctx, blocks, [&](int begin, int end) {
    for (int b = begin; b < end; ++b) {
      const int first_word = b * kVocabBlock, width = width_of(b);
      const auto block = w_.value.middleCols(first_word, width);
      VocabBlock(w_blocks_, b, dim, width) = block;
      if (grad != nullptr) w_transposed_.middleRows(first_word, width) = block.transpose();
    }
  });
  if (grad != nullptr) {
    grad->Resize(prediction.shape());
    w_.grad.setZero();
    if (config_.bias()) b_.grad.setZero();
  }
  double total = 0;
  for (int start = 0; start < tokens; start += chunk) {
    const int n = std::min(chunk, tokens - start);
    const auto h_chunk = h.middleRows(start, n);
    logit_blocks_.resize(blocks, int64_t(n) * kBlockStride);
    block_max_.resize(blocks, n);
    block_sum_.resize(blocks, n);
    labels_.resize(n);
    label_logits_.resize(n);
    for (int i = 0; i < n; ++i) labels_[i] = int(std::lround(target.data()[start + i]));
    // The chunk's logits for vocabulary block b.
    auto logits = [&](int b) { return VocabBlock(logit_blocks_, b, n, width_of(b)); };
    // Block by block: h W, then with the bias (added here, not before the product: one pass
    // over the block less) each row's label logit, and exp(logits - the row's max in the block)
    // in place, with that max and the sum.
    ParallelFor(ctx, blocks, [&](int begin, int end) {
      for (int b = begin; b < end; ++b) {
        const int first_word = b * kVocabBlock;
        auto block = logits(b);
        Product(h_chunk, VocabBlock(w_blocks_, b, dim, int(block.cols())), block,
                /*accumulate=*/false);
        const T* bias = config_.bias() ? b_.value.data() + first_word : nullptr;
        for (int i = 0; i < n; ++i) {
          T* row = block.row(i).data();
          const int label = labels_[i] - first_word;
          if (label >= 0 && label < block.cols()) {
            label_logits_[i] = row[label] + (bias == nullptr ? T(0) : bias[label]);
          }
          const auto normalizer = ShiftedExpRow(row, int(block.cols()), row, bias);
          block_max_(b, i) = normalizer.max;
          block_sum_(b, i) = normalizer.sum;
        }
      }
    });
    // Token by token (vectorized over tokens, blocks in order): the softmax's normalizer over
    // the blocks, the loss, and in place of the blocks' maxima the factors that turn each
    // block's exponentials into softmax / tokens (= dL/dlogits + onehot / tokens).
    token_loss_.resize(n);
    ParallelFor(
        ctx, n,
        [&](int begin, int end) {
          auto max = block_max_.middleCols(begin, end - begin).array();
          const auto sums = block_sum_.middleCols(begin, end - begin).array();
          Eigen::Array<T, 1, Eigen::Dynamic> row_max = max.row(0), sum(end - begin);
          for (int b = 1; b < blocks; ++b) row_max = row_max.max(max.row(b));
          sum.setZero();
          for (int b = 0; b < blocks; ++b) {
            max.row(b) = (max.row(b) - row_max).exp();
            sum += sums.row(b) * max.row(b);
          }
          const Eigen::Array<T, 1, Eigen::Dynamic> factor = inv_tokens / sum;
          for (int b = 0; b < blocks; ++b) max.row(b) *= factor;
          token_loss_.segment(begin, end - begin) = (row_max + sum.log()).matrix().transpose() -
                                                    label_logits_.segment(begin, end - begin);
        },
        GrainFor(blocks));
    total += static_cast<double>(token_loss_.sum());
    if (grad == nullptr) continue;
    // Group by group of blocks: dL/dlogits in place (with dL/db's columns of the block), then
    // its products while it is in cache: dL/dW's columns and the group's partial dL/dh.
    grad_partials_.resize(int64_t(kGradGroups) * n, dim);
    const int per_group = (blocks + kGradGroups - 1) / kGradGroups;
    ParallelFor(ctx, kGradGroups, [&](int first_group, int end_group) {
      for (int g = first_group; g < end_group; ++g) {
        auto partial = grad_partials_.middleRows(int64_t(g) * n, n);
        const int first = g * per_group, last = std::min(blocks, first + per_group);
        if (first >= last) partial.setZero();
        for (int b = first; b < last; ++b) {
          const int first_word = b * kVocabBlock;
          auto block = logits(b);
          const int width = int(block.cols());
          T* bias_grad = config_.bias() ? b_.grad.data() + first_word : nullptr;
          ScaleRowsAndSumColumns(block.data(), n, width, kBlockStride, block_max_.row(b).data(),
                                 bias_grad);
          for (int i = 0; i < n; ++i) {
            const int label = labels_[i] - first_word;
            if (label < 0 || label >= width) continue;
            block(i, label) -= inv_tokens;
            if (bias_grad != nullptr) bias_grad[label] -= inv_tokens;
          }
          Product(h_chunk.transpose(), block, w_.grad.middleCols(first_word, width),
                  /*accumulate=*/true);
          Product(block, w_transposed_.middleRows(first_word, width), partial,
                  /*accumulate=*/b > first);
        }
      }
    });
    ParallelFor(
        ctx, n,
        [&](int begin, int end) {
          auto out = grad->flat().middleRows(start + begin, end - begin);
          out = grad_partials_.middleRows(begin, end - begin);
          for (int g = 1; g < kGradGroups; ++g) {
            out += grad_partials_.middleRows(int64_t(g) * n + begin, end - begin);
          }
        },
        GrainFor(int64_t(kGradGroups) * dim));
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

#include "plugins/layers/embedding/embedding.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "attention/kernels/parallel.h"
#include "attention/plugin_registry.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<Embedding<T>>> Embedding<T>::Create(const Config& config) {
  if (config.vocab_size() <= 0) return FieldError("vocab_size", "missing or not > 0");
  if (config.dim() <= 0) return FieldError("dim", "missing or not > 0");
  if (config.max_len() < 0) return FieldError("max_len", "must be >= 0");
  if (config.max_len() == 0 && config.has_positions()) {
    return FieldError("positions", "positional embeddings need max_len > 0");
  }
  return std::unique_ptr<Embedding<T>>(new Embedding<T>(config));
}

template <typename T>
absl::StatusOr<Shape> Embedding<T>::Setup(const Shape& input, ExecContext& ctx) {
  tokens_.name = "tokens";
  positions_.name = "positions";
  RETURN_IF_ERROR(InitParameter(config_.tokens(), {ParamSpec::NORMAL, 1.0}, config_.vocab_size(),
                                config_.dim(), "tokens", ctx, &tokens_));
  if (config_.max_len() > 0) {
    RETURN_IF_ERROR(InitParameter(config_.positions(),
                                  {ParamSpec::NORMAL, 1 / std::sqrt(double(config_.dim()))},
                                  config_.max_len(), config_.dim(), "positions", ctx, &positions_));
  }
  return OutputShape(input);
}

template <typename T>
absl::StatusOr<Shape> Embedding<T>::OutputShape(const Shape& input) const {
  if (input.cols != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("embedding takes [batch, T, 1] token ids, got ", input.ToString()));
  }
  if (config_.max_len() > 0 && input.rows > config_.max_len()) {
    return FieldError("max_len", absl::StrCat("sequences of ", input.rows, " tokens, max_len is ",
                                              config_.max_len()));
  }
  return Shape{input.batch, input.rows, config_.dim()};
}

template <typename T>
absl::Status Embedding<T>::CheckInputValues(const Tensor<T>& input) const {
  for (Eigen::Index i = 0; i < input.size(); ++i) {
    const T id = input.data()[i];
    if (!(id >= 0 && id < config_.vocab_size() && id == std::floor(id))) {
      return FieldError("vocab_size", absl::StrCat("the data holds token id ", id, ", outside 0..",
                                                   config_.vocab_size() - 1));
    }
  }
  return absl::OkStatus();
}

template <typename T>
std::vector<Parameter<T>*> Embedding<T>::parameters() {
  if (config_.max_len() > 0) return {&tokens_, &positions_};
  return {&tokens_};
}

template <typename T>
void Embedding<T>::Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) {
  input_ = &in;
  const int rows = in.rows();
  out->Resize({in.batch(), rows, config_.dim()});
  ParallelFor(ctx, in.batch(), [&](int begin, int end) {
    for (int b = begin; b < end; ++b) {
      auto o = out->sample(b);
      for (int t = 0; t < rows; ++t) {
        o.row(t) = tokens_.value.row(std::lround(in.sample(b)(t, 0)));
      }
      if (config_.max_len() > 0) o += positions_.value.topRows(rows);
    }
  });
}

template <typename T>
void Embedding<T>::Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext&) {
  const Tensor<T>& in = *input_;
  // Rows of the same token add up; in token order, so the sum is the same on every run.
  tokens_.grad.setZero();
  for (Eigen::Index i = 0; i < in.size(); ++i) {
    tokens_.grad.row(std::lround(in.data()[i])) += grad_out.flat().row(i);
  }
  if (config_.max_len() > 0) {
    positions_.grad.setZero();
    for (int b = 0; b < in.batch(); ++b) {
      positions_.grad.topRows(in.rows()) += grad_out.sample(b);
    }
  }
  if (grad_in != nullptr) {
    grad_in->Resize(in.shape());
    grad_in->SetZero();
  }
}

template class Embedding<float>;
template class Embedding<double>;

ATTNLAB_REGISTER_LAYER("embedding", plugins::EmbeddingConfig, Embedding,
                       "token embedding plus learned positions, from [batch, T, 1] token ids",
                       {"vocab_size: 7 dim: 4 max_len: 6", "vocab_size: 3 dim: 2"});

}  // namespace attnlab

#include "plugins/layers/layer_norm/layer_norm.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "attention/kernels/layer_norm_rows.h"
#include "attention/kernels/parallel.h"
#include "attention/plugin_registry.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<LayerNorm<T>>> LayerNorm<T>::Create(const Config& config) {
  if (config.has_eps() && !(config.eps() > 0)) return FieldError("eps", "must be > 0");
  return std::unique_ptr<LayerNorm<T>>(new LayerNorm<T>(config));
}

template <typename T>
absl::StatusOr<Shape> LayerNorm<T>::Setup(const Shape& input, ExecContext& ctx) {
  dim_ = input.cols;
  gamma_.name = "gamma";
  beta_.name = "beta";
  RETURN_IF_ERROR(
      InitParameter(config_.gamma(), {ParamSpec::ONES}, 1, dim_, "gamma", ctx, &gamma_));
  RETURN_IF_ERROR(InitParameter(config_.beta(), {ParamSpec::ZEROS}, 1, dim_, "beta", ctx, &beta_));
  return OutputShape(input);
}

template <typename T>
absl::StatusOr<Shape> LayerNorm<T>::OutputShape(const Shape& input) const {
  if (input.cols != dim_) {
    return absl::InvalidArgumentError(
        absl::StrCat("layer_norm was set up for ", dim_, " features, got ", input.ToString()));
  }
  return input;
}

template <typename T>
void LayerNorm<T>::Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) {
  const Matrix<T>& x = in.flat();
  const T eps = static_cast<T>(config_.has_eps() ? config_.eps() : 1e-5);
  input_ = &in;
  mean_.resize(x.rows());
  inv_std_.resize(x.rows());
  out->Resize(in.shape());
  const T* gamma = gamma_.value.data();
  const T* beta = beta_.value.data();
  Matrix<T>& y = out->flat();
  // Split at whole groups of rows, so each row is computed the same with any thread count.
  const int rows = static_cast<int>(x.rows()), group = kLayerNormGroupRows;
  ParallelFor(
      ctx, (rows + group - 1) / group,
      [&](int begin, int end) {
        const int first = begin * group, count = std::min(rows, end * group) - first;
        LayerNormRows(count, dim_, x.row(first).data(), x.outerStride(), eps, gamma, beta,
                      y.row(first).data(), y.outerStride(), &mean_[first], &inv_std_[first]);
      },
      std::max(1, GrainFor(dim_) / group));
}

template <typename T>
void LayerNorm<T>::Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) {
  BackwardWithResidual(grad_out, nullptr, grad_in, ctx);
}

template <typename T>
void LayerNorm<T>::BackwardAdd(const Tensor<T>& grad_out, const Tensor<T>& grad_residual,
                               Tensor<T>* grad_in, ExecContext& ctx) {
  BackwardWithResidual(grad_out, &grad_residual, grad_in, ctx);
}

template <typename T>
void LayerNorm<T>::BackwardWithResidual(const Tensor<T>& grad_out, const Tensor<T>* grad_residual,
                                        Tensor<T>* grad_in, ExecContext& ctx) {
  const Matrix<T>& g = grad_out.flat();
  const int rows = static_cast<int>(g.rows());
  // One pass over dL/dy: each block of rows adds its share of dgamma and dbeta to its own row
  // of partial sums while it writes dL/dx. The blocks are fixed (not per thread), whole groups
  // of LayerNormRowsBackward, and their partials are added in block order, so the result is the
  // same with any thread count.
  constexpr int kBlockRows = 256;
  static_assert(kBlockRows % kLayerNormGroupRows == 0);
  const int blocks = (rows + kBlockRows - 1) / kBlockRows;
  gamma_partials_.resize(blocks, dim_);
  beta_partials_.resize(blocks, dim_);
  const Matrix<T>& x = input_->flat();
  if (grad_in != nullptr) grad_in->Resize(input_->shape());
  const T* gamma = gamma_.value.data();
  ParallelFor(ctx, blocks, [&](int begin, int end) {
    for (int block = begin; block < end; ++block) {
      T* gamma_sum = gamma_partials_.row(block).data();
      T* beta_sum = beta_partials_.row(block).data();
      std::fill(gamma_sum, gamma_sum + dim_, T(0));
      std::fill(beta_sum, beta_sum + dim_, T(0));
      const int first = block * kBlockRows, last = std::min(rows, first + kBlockRows);
      const T* residual = nullptr;
      int64_t ldr = 0;
      if (grad_residual != nullptr) {
        residual = grad_residual->flat().row(first).data();
        ldr = grad_residual->flat().outerStride();
      }
      T* dx = nullptr;
      int64_t lddx = 0;
      if (grad_in != nullptr) {
        dx = grad_in->flat().row(first).data();
        lddx = grad_in->flat().outerStride();
      }
      LayerNormRowsBackward(last - first, dim_, x.row(first).data(), x.outerStride(),
                            g.row(first).data(), g.outerStride(), &mean_[first], &inv_std_[first],
                            gamma, residual, ldr, gamma_sum, beta_sum, dx, lddx);
    }
  });
  gamma_.grad = gamma_partials_.colwise().sum();
  beta_.grad = beta_partials_.colwise().sum();
}

template class LayerNorm<float>;
template class LayerNorm<double>;

ATTNLAB_REGISTER_LAYER("layer_norm", plugins::LayerNormConfig, LayerNorm,
                       "layer normalization per token, with learned gain and bias",
                       {"gamma { init: NORMAL std: 1 } beta { init: NORMAL std: 1 }"});

}  // namespace attnlab

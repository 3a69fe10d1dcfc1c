#include "plugins/rpc/rpc_attention.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/kernels/fused_softmax.h"
#include "attention/kernels/parallel.h"
#include "attention/kernels/parallel_product.h"
#include "attention/plugin_registry.h"
#include "attention/kernels/product.h"
#include "attention/base/status_macros.h"

namespace attnlab {
namespace {

template <typename X, typename T>
auto Shrink(const Eigen::MatrixBase<X>& x, T threshold) {
  return x.unaryExpr([threshold](T v) {
    return v > threshold ? v - threshold : v < -threshold ? v + threshold : T(0);
  });
}

template <typename T>
T Sign(T v) {
  return v > 0 ? T(1) : v < 0 ? T(-1) : T(0);
}

// A = softmax(c K K^T) and H = A V, c = 1/sqrt(D), written into a (N x N) and h (N x D): any
// Eigen blocks, so the layer works in place on its batch tensors without copies.
template <typename K, typename V, typename A, typename H>
void SymmetricAttention(const Eigen::MatrixBase<K>& k, const Eigen::MatrixBase<V>& v,
                        const Eigen::MatrixBase<A>& a_out, const Eigen::MatrixBase<H>& h_out) {
  using T = typename K::Scalar;
  auto& a = const_cast<Eigen::MatrixBase<A>&>(a_out);
  auto& h = const_cast<Eigen::MatrixBase<H>&>(h_out);
  const T c = static_cast<T>(1 / std::sqrt(double(k.cols())));
  SoftmaxOfScores(k.derived(), k.derived(), c, a.derived());
  Product(a.derived(), v.derived(), h.derived(), /*accumulate=*/false);
}

// Gradients of H = softmax(c K K^T) V given dH: adds dK and dV, or writes them unless
// `accumulate`. grad_scores is the caller's scratch (reused across heads: no allocation per
// head).
template <typename K, typename V, typename A, typename G, typename DK, typename DV, typename T>
void SymmetricAttentionBackward(const Eigen::MatrixBase<K>& k, const Eigen::MatrixBase<V>& v,
                                const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<G>& grad_h,
                                const Eigen::MatrixBase<DK>& grad_k_out,
                                const Eigen::MatrixBase<DV>& grad_v_out, Matrix<T>* grad_scores,
                                bool accumulate) {
  auto& grad_k = const_cast<Eigen::MatrixBase<DK>&>(grad_k_out);
  auto& grad_v = const_cast<Eigen::MatrixBase<DV>&>(grad_v_out);
  const T c = static_cast<T>(1 / std::sqrt(double(k.cols())));
  Product(a.derived().transpose(), grad_h.derived(), grad_v.derived(), accumulate);
  grad_scores->resize(grad_h.rows(), v.rows());
  SoftmaxOfScoresBackward(a.derived(), grad_h.derived(), v.derived(), *grad_scores);
  // dK = c (G + G^T) K, as two products: forming G + G^T reads G column-wise (measured: two
  // products of 50 x 50 by 50 x 16 take 2.8 us, the sum and one product 3.2 us).
  Product(*grad_scores, k.derived(), grad_k.derived(), accumulate, c);
  Product(grad_scores->transpose(), k.derived(), grad_k.derived(), /*accumulate=*/true, c);
}

}  // namespace

template <typename T>
const Matrix<T>& PrincipalAttentionPursuit(HeadBlock<T> k, HeadBlock<T> v, int iterations,
                                           T lambda, bool threshold_over_mu, T embed_width,
                                           PapTrace<T>* trace) {
  const T n = static_cast<T>(k.rows());
  trace->key_l1 = k.cwiseAbs().sum();
  // An all-zero K has nothing to decompose; any finite mu keeps the iteration well defined.
  trace->mu = n * embed_width / (4 * std::max(trace->key_l1, std::numeric_limits<T>::min()));
  const T mu = trace->mu;
  const T threshold = threshold_over_mu ? lambda / mu : lambda * mu;
  for (auto* list : {&trace->y_before, &trace->r, &trace->s, &trace->k2, &trace->a, &trace->l}) {
    list->resize(iterations);
  }
  for (int t = 0; t < iterations; ++t) {
    Matrix<T>& y = trace->y_before[t];
    Matrix<T>& r = trace->r[t];
    if (t == 0) {  // L_0 = Y_0 = 0
      y.setZero(k.rows(), k.cols());
      r = k;
    } else {  // Y_{t-1} = Y_{t-2} + mu (K - L_{t-1} - S_{t-1})
      y = trace->y_before[t - 1] + mu * (k - trace->l[t - 1] - trace->s[t - 1]);
      r = k - trace->l[t - 1] + y / mu;
    }
    trace->s[t] = Shrink(r, threshold);
    trace->k2[t] = k - trace->s[t] - y / mu;
    trace->a[t].resize(k.rows(), k.rows());
    trace->l[t].resize(k.rows(), v.cols());
    SymmetricAttention(trace->k2[t], v, trace->a[t], trace->l[t]);
  }
  return trace->l.back();
}

template <typename T>
void PrincipalAttentionPursuitBackward(HeadBlock<T> k, HeadBlock<T> v, T lambda,
                                       bool threshold_over_mu, T embed_width,
                                       const PapTrace<T>& trace, HeadBlock<T> grad_h,
                                       PapScratch<T>* scratch, MutableHeadBlock<T> grad_k,
                                       MutableHeadBlock<T> grad_v) {
  const int iterations = static_cast<int>(trace.l.size());
  const T mu = trace.mu;
  const T threshold = threshold_over_mu ? lambda / mu : lambda * mu;
  // dL_t, dY_t, and the other adjoints of one iteration.
  Matrix<T>& dk = scratch->dk;
  Matrix<T>& dl = scratch->dl;
  Matrix<T>& dy = scratch->dy;
  Matrix<T>& ds = scratch->ds;
  Matrix<T>& dy_before = scratch->dy_before;
  Matrix<T>& dk2 = scratch->dk2;
  Matrix<T>& dr = scratch->dr;
  dk.setZero(k.rows(), k.cols());
  dy.setZero(k.rows(), k.cols());
  dl = grad_h;
  T dmu = 0;
  for (int t = iterations - 1; t >= 0; --t) {
    const Matrix<T>& r = trace.r[t];
    const Matrix<T>& s = trace.s[t];
    const Matrix<T>& y_before = trace.y_before[t];
    // Y_t = Y_{t-1} + mu (K - L_t - S_t)
    ds = -mu * dy;
    dl -= mu * dy;
    dk += mu * dy;
    dmu += dy.cwiseProduct(k - trace.l[t] - s).sum();
    dy_before = dy;
    // L_t = softmax(c K2 K2^T) V
    dk2.setZero(k.rows(), k.cols());
    SymmetricAttentionBackward(trace.k2[t], v, trace.a[t], dl, dk2, grad_v, &scratch->grad_scores,
                               /*accumulate=*/true);
    // K2 = K - S_t - Y_{t-1} / mu
    dk += dk2;
    ds -= dk2;
    dy_before -= dk2 / mu;
    dmu += dk2.cwiseProduct(y_before).sum() / (mu * mu);
    // S_t = shrink(R_t, threshold): passes where |R| > threshold, and moves with the threshold
    dr.setZero(k.rows(), k.cols());
    T dthreshold = 0;
    for (Eigen::Index i = 0; i < r.size(); ++i) {
      if (std::abs(r.data()[i]) > threshold) {
        dr.data()[i] = ds.data()[i];
        dthreshold -= ds.data()[i] * Sign(r.data()[i]);
      }
    }
    // R_t = K - L_{t-1} + Y_{t-1} / mu
    dk += dr;
    dl = -dr;  // dL_{t-1}
    dy_before += dr / mu;
    dmu -= dr.cwiseProduct(y_before).sum() / (mu * mu);
    dmu += dthreshold * (threshold_over_mu ? -lambda / (mu * mu) : lambda);
    dy.swap(dy_before);
  }
  // mu = N C / (4 ||K||_1)
  const T dmu_dl1 = -static_cast<T>(k.rows()) * embed_width / (4 * trace.key_l1 * trace.key_l1);
  grad_k += dk + (dmu * dmu_dl1) * k.unaryExpr([](T x) { return Sign(x); });
}

template <typename T>
absl::StatusOr<std::unique_ptr<RpcAttention<T>>> RpcAttention<T>::Create(const Config& config) {
  if (config.heads() < 0) return FieldError("heads", "must be >= 0");
  if (config.head_dim() <= 0) return FieldError("head_dim", "missing or not > 0");
  if (config.output_dim() <= 0) return FieldError("output_dim", "missing or not > 0");
  if (config.pap_iterations() < 0) return FieldError("pap_iterations", "must be >= 0");
  if (config.has_lambda() && !(config.lambda() >= 0)) return FieldError("lambda", "must be >= 0");
  return std::unique_ptr<RpcAttention<T>>(new RpcAttention<T>(config));
}

template <typename T>
absl::StatusOr<Shape> RpcAttention<T>::Setup(const Shape& input, ExecContext& ctx) {
  dim_ = input.cols;
  heads_ = std::max(1, config_.heads());
  head_dim_ = config_.head_dim();
  const int width = heads_ * head_dim_;
  k_.name = "k";
  v_.name = "v";
  o_.name = "o";
  bk_.name = "bk";
  bv_.name = "bv";
  bo_.name = "bo";
  const DefaultInit normal{ParamSpec::NORMAL, 1 / std::sqrt(double(dim_))};
  RETURN_IF_ERROR(InitParameter(config_.k(), normal, width, dim_, "k", ctx, &k_));
  RETURN_IF_ERROR(InitParameter(config_.v(), normal, dim_, width, "v", ctx, &v_));
  RETURN_IF_ERROR(InitParameter(config_.o(), {ParamSpec::NORMAL, 1 / std::sqrt(double(width))},
                                width, config_.output_dim(), "o", ctx, &o_));
  if (config_.bias()) {
    const ParamSpec zeros;
    RETURN_IF_ERROR(InitParameter(zeros, {ParamSpec::ZEROS}, 1, width, "bk", ctx, &bk_));
    RETURN_IF_ERROR(InitParameter(zeros, {ParamSpec::ZEROS}, 1, width, "bv", ctx, &bv_));
    RETURN_IF_ERROR(
        InitParameter(zeros, {ParamSpec::ZEROS}, 1, config_.output_dim(), "bo", ctx, &bo_));
  }
  return OutputShape(input);
}

template <typename T>
absl::StatusOr<Shape> RpcAttention<T>::OutputShape(const Shape& input) const {
  if (input.cols != dim_ || input.rows < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("rpc attention was set up for tokens of ", dim_, " entries, got ",
                     input.ToString()));
  }
  return Shape{input.batch, input.rows, config_.output_dim()};
}

template <typename T>
std::vector<Parameter<T>*> RpcAttention<T>::parameters() {
  if (config_.bias()) return {&k_, &v_, &o_, &bk_, &bv_, &bo_};
  return {&k_, &v_, &o_};
}

template <typename T>
Matrix<T> RpcAttention<T>::QueryKeyMatrix(int head) const {
  const auto k = k_.value.middleRows(head * head_dim_, head_dim_);
  return k.transpose() * k;
}

template <typename T>
void RpcAttention<T>::AddQueryKeyGradient(int head, const Matrix<T>& grad) {
  const auto k = k_.value.middleRows(head * head_dim_, head_dim_);
  k_.grad.middleRows(head * head_dim_, head_dim_).noalias() += k * (grad + grad.transpose());
}

template <typename T>
void RpcAttention<T>::Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) {
  ForwardWithResidual(in, nullptr, out, ctx);
}

template <typename T>
void RpcAttention<T>::ForwardAdd(const Tensor<T>& in, const Tensor<T>& residual, Tensor<T>* out,
                                 ExecContext& ctx) {
  ForwardWithResidual(in, &residual, out, ctx);
}

template <typename T>
void RpcAttention<T>::ForwardWithResidual(const Tensor<T>& in, const Tensor<T>* residual,
                                          Tensor<T>* out, ExecContext& ctx) {
  input_ = &in;
  const int batch = in.batch(), n = in.rows(), d = head_dim_;
  const int iterations = config_.pap_iterations();
  const Matrix<T>& x = in.flat();
  keys_.resize(x.rows(), heads_ * d);
  values_.resize(x.rows(), heads_ * d);
  if (config_.bias()) {
    ParallelAffine(ctx, x, k_.value.transpose(), bk_.value, keys_);
    ParallelAffine(ctx, x, v_.value, bv_.value, values_);
  } else {
    ParallelProduct(ctx, x, k_.value.transpose(), keys_);
    ParallelProduct(ctx, x, v_.value, values_);
  }
  probs_.Resize({batch * heads_, n, n});
  concat_.resize(x.rows(), heads_ * d);
  if (iterations > 0) traces_.resize(batch * heads_);
  ParallelFor(ctx, batch, [&](int begin, int end) {
    for (int b = begin; b < end; ++b) {
      for (int h = 0; h < heads_; ++h) {
        const auto keys = keys_.block(int64_t(b) * n, h * d, n, d);
        const auto vals = values_.block(int64_t(b) * n, h * d, n, d);
        auto head = concat_.block(int64_t(b) * n, h * d, n, d);
        if (iterations == 0) {
          SymmetricAttention(keys, vals, probs_.sample(b * heads_ + h), head);
        } else {
          PapTrace<T>& trace = traces_[b * heads_ + h];
          head = PrincipalAttentionPursuit<T>(keys, vals, iterations, lambda(), over_mu(),
                                              static_cast<T>(dim_), &trace);
          probs_.sample(b * heads_ + h) = trace.a.back();
        }
      }
    }
  });
  out->Resize(*OutputShape(in.shape()));
  const T* bias = config_.bias() ? bo_.value.data() : nullptr;
  if (residual != nullptr) {
    ParallelAffineAdd(ctx, concat_, o_.value, bias, residual->flat(), out->flat());
  } else if (bias != nullptr) {
    ParallelAffine(ctx, concat_, o_.value, bo_.value, out->flat());
  } else {
    ParallelProduct(ctx, concat_, o_.value, out->flat());
  }
}

template <typename T>
void RpcAttention<T>::Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) {
  const int batch = input_->batch(), n = input_->rows(), d = head_dim_;
  const Matrix<T>& x = input_->flat();
  const Matrix<T>& g = grad_out.flat();
  const bool bias = config_.bias();
  TokenProducts(ctx, concat_, g, o_.grad, nullptr, bias ? &bo_.grad : nullptr);
  grad_concat_.resize(concat_.rows(), concat_.cols());
  ParallelProduct(ctx, g, o_.value.transpose(), grad_concat_);
  grad_keys_.resize(x.rows(), heads_ * d);
  grad_values_.resize(x.rows(), heads_ * d);
  scratch_.Prepare();
  ParallelFor(ctx, batch, [&](int begin, int end) {
    PapScratch<T>& scratch = scratch_.Local();
    for (int b = begin; b < end; ++b) {
      for (int h = 0; h < heads_; ++h) {
        const auto keys = keys_.block(int64_t(b) * n, h * d, n, d);
        const auto vals = values_.block(int64_t(b) * n, h * d, n, d);
        const auto dh = grad_concat_.block(int64_t(b) * n, h * d, n, d);
        auto dk = grad_keys_.block(int64_t(b) * n, h * d, n, d);
        auto dv = grad_values_.block(int64_t(b) * n, h * d, n, d);
        if (config_.pap_iterations() == 0) {
          SymmetricAttentionBackward(keys, vals, probs_.sample(b * heads_ + h), dh, dk, dv,
                                     &scratch.grad_scores, /*accumulate=*/false);
        } else {
          dk.setZero();
          dv.setZero();
          PrincipalAttentionPursuitBackward<T>(keys, vals, lambda(), over_mu(),
                                               static_cast<T>(dim_), traces_[b * heads_ + h], dh,
                                               &scratch, dk, dv);
        }
      }
    }
  });
  TokenProducts(ctx, grad_keys_, x, k_.grad, bias ? &bk_.grad : nullptr, nullptr);
  TokenProducts(ctx, x, grad_values_, v_.grad, nullptr, bias ? &bv_.grad : nullptr);
  if (grad_in == nullptr) return;
  grad_in->Resize(input_->shape());
  ParallelProduct(ctx, grad_keys_, k_.value, grad_in->flat());
  ParallelProduct(ctx, grad_values_, v_.value.transpose(), grad_in->flat(), /*accumulate=*/true);
}

template class RpcAttention<float>;
template class RpcAttention<double>;
template const Matrix<float>& PrincipalAttentionPursuit(HeadBlock<float>, HeadBlock<float>, int,
                                                       float, bool, float, PapTrace<float>*);
template const Matrix<double>& PrincipalAttentionPursuit(HeadBlock<double>, HeadBlock<double>,
                                                        int, double, bool, double,
                                                        PapTrace<double>*);
template void PrincipalAttentionPursuitBackward(HeadBlock<double>, HeadBlock<double>, double,
                                                bool, double, const PapTrace<double>&,
                                                HeadBlock<double>, PapScratch<double>*,
                                                MutableHeadBlock<double>,
                                                MutableHeadBlock<double>);

ATTNLAB_REGISTER_LAYER("rpc", plugins::RpcAttentionConfig, RpcAttention,
                       "symmetric softmax attention (keys as queries), and RPC-Attention by "
                       "Principal Attention Pursuit (paper 4) with pap_iterations > 0",
                       {"head_dim: 3 output_dim: 4 heads: 2 bias: true",
                        "head_dim: 3 output_dim: 4 heads: 2 pap_iterations: 3 lambda: 0.3",
                        "head_dim: 2 output_dim: 3 pap_iterations: 2 threshold: LAMBDA_OVER_MU "
                        "lambda: 2"});

}  // namespace attnlab

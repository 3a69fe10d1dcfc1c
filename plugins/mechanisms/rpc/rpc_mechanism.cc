#include "plugins/mechanisms/rpc/rpc_mechanism.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/kernels/fused_softmax.h"
#include "attention/kernels/pap_steps.h"
#include "attention/kernels/product.h"
#include "attention/kernels/symmetric_sum.h"

namespace attnlab {
namespace {

template <typename T>
T Sign(T v) {
  return v > 0 ? T(1) : v < 0 ? T(-1) : T(0);
}

// A = softmax(c K K^T) and H = A V, written into a (N x N) and h (N x D): any Eigen blocks.
template <typename K, typename V, typename A, typename H, typename T>
void SymmetricAttention(const Eigen::MatrixBase<K>& k, const Eigen::MatrixBase<V>& v, T c,
                        const Eigen::MatrixBase<A>& a_out, const Eigen::MatrixBase<H>& h_out) {
  auto& a = const_cast<Eigen::MatrixBase<A>&>(a_out);
  auto& h = const_cast<Eigen::MatrixBase<H>&>(h_out);
  SoftmaxOfScores(k.derived(), k.derived(), c, a.derived());
  Product(a.derived(), v.derived(), h.derived(), /*accumulate=*/false);
}

// Gradients of H = softmax(c K K^T) V given dH: writes dK, and adds dV (or writes it unless
// `accumulate_v`). grad_scores is the caller's scratch (reused across heads: no allocation per
// head).
template <typename K, typename V, typename A, typename G, typename DK, typename DV, typename T>
void SymmetricAttentionBackward(const Eigen::MatrixBase<K>& k, const Eigen::MatrixBase<V>& v, T c,
                                const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<G>& grad_h,
                                const Eigen::MatrixBase<DK>& grad_k_out,
                                const Eigen::MatrixBase<DV>& grad_v_out, Matrix<T>* grad_scores,
                                bool accumulate_v) {
  auto& grad_k = const_cast<Eigen::MatrixBase<DK>&>(grad_k_out);
  auto& grad_v = const_cast<Eigen::MatrixBase<DV>&>(grad_v_out);
  Product(a.derived().transpose(), grad_h.derived(), grad_v.derived(), accumulate_v);
  grad_scores->resize(grad_h.rows(), v.rows());
  SoftmaxOfScoresBackward(a.derived(), grad_h.derived(), v.derived(), *grad_scores);
  // dK = c (G + G^T) K: one product (alpha = 1, which the GEMM library runs) after the
  // symmetric sum, where G K + G^T K took two.
  ScaledSymmetricSum(int(grad_scores->rows()), c, grad_scores->data(), grad_scores->outerStride());
  Product(*grad_scores, k.derived(), grad_k.derived(), /*accumulate=*/false);
}

}  // namespace

template <typename T>
void PrincipalAttentionPursuit(ConstHeadBlock<T> k, ConstHeadBlock<T> v, int iterations, T lambda,
                               bool threshold_over_mu, T embed_width, T scale, PapTrace<T>* trace,
                               PapScratch<T>* scratch, HeadBlock<T> a, HeadBlock<T> h) {
  const T n = static_cast<T>(k.rows());
  trace->key_l1 = k.cwiseAbs().sum();
  // An all-zero K has nothing to decompose; any finite mu keeps the iteration well defined.
  trace->mu = n * embed_width / (4 * std::max(trace->key_l1, std::numeric_limits<T>::min()));
  const T mu = trace->mu;
  const T threshold = threshold_over_mu ? lambda / mu : lambda * mu;
  const T inv_mu = 1 / mu;  // a multiplication per entry, not a division
  trace->s.resize(iterations);
  trace->a.resize(iterations - 1);
  trace->l.resize(iterations - 1);
  const int rows = static_cast<int>(k.rows()), cols = static_cast<int>(k.cols());
  Matrix<T>& k2 = scratch->k2;
  Matrix<T>& y = scratch->y;
  k2.resize(rows, cols);
  y.resize(rows, cols);
  trace->y_last.resize(rows, cols);
  for (int t = 0; t < iterations; ++t) {
    Matrix<T>& s = trace->s[t];
    s.resize(rows, cols);
    // Y_{t-1} = Y_{t-2} + mu (K - L_{t-1} - S_{t-1}) (L_0 = Y_0 = 0), S_t and K2 in one pass;
    // Y updated in place, into the trace before the last iteration.
    const bool first = t == 0;
    PapForwardStep<T>(
        rows, cols, k.data(), k.outerStride(), first ? nullptr : trace->l[t - 1].data(),
        first ? nullptr : trace->s[t - 1].data(), first ? nullptr : y.data(), mu, inv_mu, threshold,
        t == iterations - 1 ? trace->y_last.data() : y.data(), s.data(), k2.data());
    if (t == iterations - 1) {
      SymmetricAttention(k2, v, scale, a, h);
    } else {
      trace->a[t].resize(k.rows(), k.rows());
      trace->l[t].resize(k.rows(), v.cols());
      SymmetricAttention(k2, v, scale, trace->a[t], trace->l[t]);
    }
  }
}

template <typename T>
void PrincipalAttentionPursuitBackward(ConstHeadBlock<T> k, ConstHeadBlock<T> v, T lambda,
                                       bool threshold_over_mu, T embed_width, T scale,
                                       const PapTrace<T>& trace, ConstHeadBlock<T> a,
                                       ConstHeadBlock<T> grad_h, PapScratch<T>* scratch,
                                       HeadBlock<T> grad_k, HeadBlock<T> grad_v) {
  const int iterations = static_cast<int>(trace.s.size());
  const T mu = trace.mu, inv_mu = 1 / mu;
  // dL_t, dY_t, and the other adjoints of one iteration.
  Matrix<T>& dk = scratch->dk;
  Matrix<T>& dl = scratch->dl;
  Matrix<T>& dy = scratch->dy;
  Matrix<T>& k2 = scratch->k2;
  Matrix<T>& dk2 = scratch->dk2;
  Matrix<T>& y = scratch->y;  // Y_{t-1} for the earlier iterations
  const int rows = static_cast<int>(k.rows()), cols = static_cast<int>(k.cols());
  dk.setZero(rows, cols);
  dy.setZero(rows, cols);
  dk2.resize(rows, cols);
  dl = grad_h;
  T dmu = 0;
  for (int t = iterations - 1; t >= 0; --t) {
    const bool last = t == iterations - 1;  // dY_t = 0: Y_n does not reach the output
    const Matrix<T>& s = trace.s[t];
    // Y before this iteration: the trace's for the last; Y_0 = 0; between, back through the
    // update Y_{t+1} = Y_t + mu (K - L_t - S_t).
    if (t == 0) {
      y.setZero(rows, cols);
    } else if (!last) {
      if (t == iterations - 2) y = trace.y_last;
      y -= mu * (k - trace.l[t] - s);
    }
    const Matrix<T>& y_before = last ? trace.y_last : y;
    // L_t = softmax(c K2 K2^T) V, K2 = K - S_t - Y_{t-1} / mu
    k2 = k - s - y_before * inv_mu;
    SymmetricAttentionBackward(k2, v, scale, last ? a : ConstHeadBlock<T>(trace.a[t]), dl, dk2,
                               grad_v, &scratch->grad_scores, /*accumulate_v=*/true);
    // The rest in one pass: S_t = shrink(R_t, threshold) passes dS where |R| > threshold and
    // moves with the threshold; R_t = K - L_{t-1} + Y_{t-1} / mu; Y_t = Y_{t-1} + mu (K - L_t -
    // S_t) sends mu dY_t to K and -mu dY_t to L_t and S_t. dy becomes dY_{t-1}, dl dL_{t-1}.
    const PapMuSums<T> sums = PapBackwardStep<T>(
        rows, cols, k.data(), k.outerStride(), last ? nullptr : trace.l[t].data(), s.data(),
        y_before.data(), dk2.data(), mu, inv_mu, dy.data(), dk.data(), dl.data());
    dmu += sums.y / (mu * mu) + sums.residual +
           sums.threshold * (threshold_over_mu ? -lambda / (mu * mu) : lambda);
  }
  // mu = N C / (4 ||K||_1)
  const T dmu_dl1 = -static_cast<T>(k.rows()) * embed_width / (4 * trace.key_l1 * trace.key_l1);
  grad_k += dk + (dmu * dmu_dl1) * k.unaryExpr([](T x) { return Sign(x); });
}

template <typename T>
absl::StatusOr<std::unique_ptr<RpcMechanism<T>>> RpcMechanism<T>::Create(const Config& config) {
  if (config.has_iterations() && config.iterations() < 1) {
    return FieldError("iterations", "must be >= 1 (0 iterations is the softmax mechanism)");
  }
  if (config.has_lambda() && !(config.lambda() >= 0)) return FieldError("lambda", "must be >= 0");
  return std::unique_ptr<RpcMechanism<T>>(new RpcMechanism<T>(config));
}

template <typename T>
absl::Status RpcMechanism<T>::Setup(const HeadShape& shape) {
  if (!shape.symmetric) {
    return absl::InvalidArgumentError(
        "rpc decomposes the keys, which must be the queries: it needs symmetric attention "
        "(the attention layer with symmetric: true)");
  }
  if (shape.value_dim != shape.qk_dim) {  // PAP subtracts its output from the keys
    return absl::InvalidArgumentError(
        absl::StrCat("rpc needs value_dim = qk_dim (Principal Attention Pursuit subtracts its "
                     "output from the keys), got value_dim ", shape.value_dim, " and qk_dim ",
                     shape.qk_dim));
  }
  return Mechanism<T>::Setup(shape);
}

template <typename T>
void RpcMechanism<T>::Prepare(int count) {
  if (static_cast<int>(traces_.size()) < count) traces_.resize(count);
  scratch_.Prepare();
}

template <typename T>
void RpcMechanism<T>::Forward(int index, ConstHeadBlock<T>, ConstHeadBlock<T> k,
                              ConstHeadBlock<T> v, T scale, HeadBlock<T> a, HeadBlock<T> h) {
  PrincipalAttentionPursuit<T>(k, v, iterations(), lambda(), over_mu(),
                               static_cast<T>(this->shape_.width), scale, &traces_[index],
                               &scratch_.Local(), a, h);
}

template <typename T>
void RpcMechanism<T>::Backward(int index, ConstHeadBlock<T>, ConstHeadBlock<T> k,
                               ConstHeadBlock<T> v, T scale, ConstHeadBlock<T> a,
                               ConstHeadBlock<T> dh, HeadBlock<T>*, HeadBlock<T> dk,
                               HeadBlock<T> dv) {
  dk.setZero();
  dv.setZero();
  PrincipalAttentionPursuitBackward<T>(k, v, lambda(), over_mu(),
                                       static_cast<T>(this->shape_.width), scale, traces_[index], a,
                                       dh, &scratch_.Local(), dk, dv);
}

template class RpcMechanism<float>;
template class RpcMechanism<double>;
// Exposed for the tests, in both precisions.
#define ATTNLAB_INSTANTIATE_PAP(T)                                                                \
  template void PrincipalAttentionPursuit(ConstHeadBlock<T>, ConstHeadBlock<T>, int, T, bool, T,  \
                                          T, PapTrace<T>*, PapScratch<T>*, HeadBlock<T>,          \
                                          HeadBlock<T>);                                          \
  template void PrincipalAttentionPursuitBackward(                                                \
      ConstHeadBlock<T>, ConstHeadBlock<T>, T, bool, T, T, const PapTrace<T>&, ConstHeadBlock<T>, \
      ConstHeadBlock<T>, PapScratch<T>*, HeadBlock<T>, HeadBlock<T>);
ATTNLAB_INSTANTIATE_PAP(float)
ATTNLAB_INSTANTIATE_PAP(double)
#undef ATTNLAB_INSTANTIATE_PAP

ATTNLAB_REGISTER_MECHANISM("rpc", plugins::RpcConfig, RpcMechanism,
                           "RPC-Attention (paper 4): Principal Attention Pursuit on symmetric "
                           "heads, n iterations, exact backward through them",
                           {"iterations: 3 lambda: 0.3",
                            "iterations: 2 threshold: LAMBDA_OVER_MU "
                            "lambda: 2"});

}  // namespace attnlab

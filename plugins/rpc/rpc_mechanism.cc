#include "plugins/rpc/rpc_mechanism.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/kernels/fused_softmax.h"
#include "attention/kernels/product.h"
#include "attention/kernels/soft_threshold.h"

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

// Gradients of H = softmax(c K K^T) V given dH: adds dK and dV, or writes them unless
// `accumulate`. grad_scores is the caller's scratch (reused across heads: no allocation per
// head).
template <typename K, typename V, typename A, typename G, typename DK, typename DV, typename T>
void SymmetricAttentionBackward(const Eigen::MatrixBase<K>& k, const Eigen::MatrixBase<V>& v,
                                T c, const Eigen::MatrixBase<A>& a,
                                const Eigen::MatrixBase<G>& grad_h,
                                const Eigen::MatrixBase<DK>& grad_k_out,
                                const Eigen::MatrixBase<DV>& grad_v_out, Matrix<T>* grad_scores,
                                bool accumulate) {
  auto& grad_k = const_cast<Eigen::MatrixBase<DK>&>(grad_k_out);
  auto& grad_v = const_cast<Eigen::MatrixBase<DV>&>(grad_v_out);
  Product(a.derived().transpose(), grad_h.derived(), grad_v.derived(), accumulate);
  grad_scores->resize(grad_h.rows(), v.rows());
  SoftmaxOfScoresBackward(a.derived(), grad_h.derived(), v.derived(), *grad_scores);
  // dK = (c G + (c G)^T) K, as two products: forming G + G^T reads G column-wise (measured: two
  // products of 50 x 50 by 50 x 16 take 2.8 us, the sum and one product 3.2 us). c is applied
  // to G once, so that both products take alpha = 1, which the GEMM library runs.
  *grad_scores *= c;
  Product(*grad_scores, k.derived(), grad_k.derived(), accumulate);
  Product(grad_scores->transpose(), k.derived(), grad_k.derived(), /*accumulate=*/true);
}

}  // namespace

template <typename T>
void PrincipalAttentionPursuit(ConstHeadBlock<T> k, ConstHeadBlock<T> v, int iterations, T lambda,
                               bool threshold_over_mu, T embed_width, T scale, PapTrace<T>* trace,
                               HeadBlock<T> a, HeadBlock<T> h) {
  const T n = static_cast<T>(k.rows());
  trace->key_l1 = k.cwiseAbs().sum();
  // An all-zero K has nothing to decompose; any finite mu keeps the iteration well defined.
  trace->mu = n * embed_width / (4 * std::max(trace->key_l1, std::numeric_limits<T>::min()));
  const T mu = trace->mu;
  const T threshold = threshold_over_mu ? lambda / mu : lambda * mu;
  const T inv_mu = 1 / mu;  // a multiplication per entry, not a division
  trace->y_before.resize(iterations);
  trace->s.resize(iterations);
  trace->a.resize(iterations - 1);
  trace->l.resize(iterations - 1);
  for (int t = 0; t < iterations; ++t) {
    Matrix<T>& y = trace->y_before[t];
    Matrix<T>& s = trace->s[t];  // R first, shrunk in place
    if (t == 0) {  // L_0 = Y_0 = 0
      y.setZero(k.rows(), k.cols());
      s = k;
    } else {  // Y_{t-1} = Y_{t-2} + mu (K - L_{t-1} - S_{t-1})
      y = trace->y_before[t - 1] + mu * (k - trace->l[t - 1] - trace->s[t - 1]);
      s = k - trace->l[t - 1] + y * inv_mu;
    }
    SoftThreshold(s.data(), s.size(), threshold, s.data());
    trace->k2 = k - s - y * inv_mu;
    if (t == iterations - 1) {
      SymmetricAttention(trace->k2, v, scale, a, h);
    } else {
      trace->a[t].resize(k.rows(), k.rows());
      trace->l[t].resize(k.rows(), v.cols());
      SymmetricAttention(trace->k2, v, scale, trace->a[t], trace->l[t]);
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
  Matrix<T>& ds = scratch->ds;
  Matrix<T>& dy_before = scratch->dy_before;
  Matrix<T>& k2 = scratch->k2;
  Matrix<T>& dk2 = scratch->dk2;
  Matrix<T>& dr = scratch->dr;
  dk.setZero(k.rows(), k.cols());
  dy.setZero(k.rows(), k.cols());
  dl = grad_h;
  T dmu = 0;
  for (int t = iterations - 1; t >= 0; --t) {
    const bool last = t == iterations - 1;  // dY_t = 0: Y_n does not reach the output
    const Matrix<T>& s = trace.s[t];
    const Matrix<T>& y_before = trace.y_before[t];
    // Y_t = Y_{t-1} + mu (K - L_t - S_t) sends mu dY_t to K and -mu dY_t to L_t and S_t. Each
    // adjoint below is written once, its terms summed in one pass.
    if (!last) dl -= mu * dy;
    // L_t = softmax(c K2 K2^T) V, K2 = K - S_t - Y_{t-1} / mu
    k2 = k - s - y_before * inv_mu;
    dk2.setZero(k.rows(), k.cols());
    SymmetricAttentionBackward(k2, v, scale, last ? a : ConstHeadBlock<T>(trace.a[t]), dl, dk2,
                               grad_v, &scratch->grad_scores, /*accumulate=*/true);
    ds = -(mu * dy + dk2);
    // S_t = shrink(R_t, threshold): passes where |R| > threshold, and moves with the threshold
    dr.resize(k.rows(), k.cols());
    const T dthreshold = SoftThresholdBackward(s.data(), ds.data(), s.size(), dr.data());
    // R_t = K - L_{t-1} + Y_{t-1} / mu
    dk += mu * dy + dk2 + dr;
    dmu += (dk2 - dr).cwiseProduct(y_before).sum() / (mu * mu) +
           dthreshold * (threshold_over_mu ? -lambda / (mu * mu) : lambda);
    if (!last) dmu += dy.cwiseProduct(k - trace.l[t] - s).sum();
    dy_before = dy + (dr - dk2) * inv_mu;
    dl = -dr;  // dL_{t-1}
    dy.swap(dy_before);
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
                               static_cast<T>(this->shape_.width), scale, &traces_[index], a, h);
}

template <typename T>
void RpcMechanism<T>::Backward(int index, ConstHeadBlock<T>, ConstHeadBlock<T> k,
                               ConstHeadBlock<T> v, T scale, ConstHeadBlock<T> a,
                               ConstHeadBlock<T> dh, HeadBlock<T>*, HeadBlock<T> dk,
                               HeadBlock<T> dv) {
  dk.setZero();
  dv.setZero();
  PrincipalAttentionPursuitBackward<T>(k, v, lambda(), over_mu(),
                                       static_cast<T>(this->shape_.width), scale, traces_[index],
                                       a, dh, &scratch_.Local(), dk, dv);
}

template class RpcMechanism<float>;
template class RpcMechanism<double>;
template void PrincipalAttentionPursuit(ConstHeadBlock<double>, ConstHeadBlock<double>, int,
                                        double, bool, double, double, PapTrace<double>*,
                                        HeadBlock<double>, HeadBlock<double>);
template void PrincipalAttentionPursuitBackward(ConstHeadBlock<double>, ConstHeadBlock<double>,
                                                double, bool, double, double,
                                                const PapTrace<double>&, ConstHeadBlock<double>,
                                                ConstHeadBlock<double>, PapScratch<double>*,
                                                HeadBlock<double>, HeadBlock<double>);

ATTNLAB_REGISTER_MECHANISM("rpc", plugins::RpcConfig, RpcMechanism,
                           "RPC-Attention (paper 4): Principal Attention Pursuit on symmetric "
                           "heads, n iterations, exact backward through them",
                           {"iterations: 3 lambda: 0.3", "iterations: 2 threshold: LAMBDA_OVER_MU "
                            "lambda: 2"});

}  // namespace attnlab

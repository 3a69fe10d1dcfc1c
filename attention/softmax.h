// Numerically stable softmax over rows, and its backward. Masked scores are -infinity (their
// probability is exactly 0); every row needs at least one finite score.
#ifndef ATTNLAB_ATTENTION_SOFTMAX_H_
#define ATTNLAB_ATTENTION_SOFTMAX_H_

#include <cmath>

#include "Eigen/Core"

namespace attnlab {

// probs(i, :) = softmax(scores(i, :)). Subtracting the row max keeps exp() in range in float.
template <typename In, typename Out>
void SoftmaxRows(const Eigen::MatrixBase<In>& scores, const Eigen::MatrixBase<Out>& probs_out) {
  auto& probs = const_cast<Eigen::MatrixBase<Out>&>(probs_out);
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    const auto max = scores.row(i).maxCoeff();
    probs.row(i) = (scores.row(i).array() - max).exp().matrix();
    probs.row(i) /= probs.row(i).sum();
  }
}

// Given probs = softmax(scores) and dL/dprobs g, writes dL/dscores = probs .* (g - <g, probs>)
// row by row. grad_scores may alias grad_probs.
//
// The textbook form cancels catastrophically once the softmax saturates: for the dominant
// token, g_m - <g, probs> is a difference of nearly equal numbers whose true value can be far
// below 1e-16 |g_m|, so the gradient becomes rounding noise (paper 1 trains far into that
// regime). Measuring g relative to the dominant token, with sum(probs) = 1,
//   g_j - <g, probs> = (g_j - g_m) - sum_{k != m} probs_k (g_k - g_m),
// has no such cancellation: every term is computed to full relative precision.
template <typename P, typename G, typename Out>
void SoftmaxRowsBackward(const Eigen::MatrixBase<P>& probs, const Eigen::MatrixBase<G>& grad_probs,
                         const Eigen::MatrixBase<Out>& grad_scores_out) {
  using Scalar = typename P::Scalar;
  auto& grad_scores = const_cast<Eigen::MatrixBase<Out>&>(grad_scores_out);
  for (Eigen::Index i = 0; i < probs.rows(); ++i) {
    Eigen::Index m;
    probs.row(i).maxCoeff(&m);
    const Scalar gm = grad_probs(i, m);
    // sum_{k != m} p_k (g_k - g_m); the k = m term is zero anyway.
    const Scalar tail = (probs.row(i).array() * (grad_probs.row(i).array() - gm)).sum();
    grad_scores.row(i) =
        (probs.row(i).array() * ((grad_probs.row(i).array() - gm) - tail)).matrix();
  }
}

// log(sum(exp(x))) without overflow.
template <typename V>
typename V::Scalar LogSumExp(const Eigen::MatrixBase<V>& x) {
  const auto max = x.maxCoeff();
  if (!std::isfinite(max)) return max;
  return max + std::log((x.array() - max).exp().sum());
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_SOFTMAX_H_

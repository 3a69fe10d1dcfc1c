// Principal Attention Pursuit (paper 4, TARGETS 4a) transcribed line by line with plain loops,
// sharing no code with the `rpc` mechanism: the reference the mechanism's test and the
// `pap_agreement` metric hold it to. Per head, on keys K and values V (N x D):
//   L = 0, Y = 0, mu = N C / (4 ||K||_1);  n times:  S = shrink(K - L + Y/mu, t);
//   K2 = K - S - Y/mu;  A = softmax(scale K2 K2^T);  L = A V;  Y = Y + mu (K - L - S),
// with t = lambda mu (the authors' code) or lambda / mu (the paper's formula).
#ifndef ATTNLAB_PLUGINS_METRICS_PAP_AGREEMENT_PAP_REFERENCE_H_
#define ATTNLAB_PLUGINS_METRICS_PAP_AGREEMENT_PAP_REFERENCE_H_

#include "Eigen/Core"

namespace attnlab {

struct PapReference {
  Eigen::MatrixXd output;     // L after the last iteration
  Eigen::MatrixXd attention;  // A of the last iteration
};

// `embed_width` is C, the full embedding width; `scale` multiplies the scores (1 / sqrt(D)).
PapReference DirectPap(const Eigen::MatrixXd& k, const Eigen::MatrixXd& v, int iterations,
                       double lambda, double embed_width, bool threshold_over_mu, double scale);

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_METRICS_PAP_AGREEMENT_PAP_REFERENCE_H_

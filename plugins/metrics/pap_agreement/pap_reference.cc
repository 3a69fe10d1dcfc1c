#include "plugins/metrics/pap_agreement/pap_reference.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attnlab {

PapReference DirectPap(const Eigen::MatrixXd& k, const Eigen::MatrixXd& v, int iterations,
                       double lambda, double embed_width, bool threshold_over_mu, double scale) {
  const int n = static_cast<int>(k.rows()), d = static_cast<int>(k.cols());
  const int dv = static_cast<int>(v.cols());
  double l1 = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j) l1 += std::fabs(k(i, j));
  const double mu = n * embed_width / (4 * l1);
  const double threshold = threshold_over_mu ? lambda / mu : lambda * mu;
  Eigen::MatrixXd l = Eigen::MatrixXd::Zero(n, d), y = Eigen::MatrixXd::Zero(n, d);
  Eigen::MatrixXd s(n, d), k2(n, d), a = Eigen::MatrixXd::Zero(n, n);
  for (int it = 0; it < iterations; ++it) {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < d; ++j) {
        const double r = k(i, j) - l(i, j) + y(i, j) / mu;
        s(i, j) = r > threshold ? r - threshold : (r < -threshold ? r + threshold : 0.0);
        k2(i, j) = k(i, j) - s(i, j) - y(i, j) / mu;
      }
    }
    Eigen::MatrixXd next(n, dv);
    for (int i = 0; i < n; ++i) {
      std::vector<double> scores(n);
      double max = -INFINITY;
      for (int j = 0; j < n; ++j) {
        double dot = 0;
        for (int e = 0; e < d; ++e) dot += k2(i, e) * k2(j, e);
        scores[j] = dot * scale;
        max = std::max(max, scores[j]);
      }
      double total = 0;
      for (double& score : scores) total += (score = std::exp(score - max));
      for (int j = 0; j < n; ++j) a(i, j) = scores[j] / total;
      for (int e = 0; e < dv; ++e) {
        double value = 0;
        for (int j = 0; j < n; ++j) value += a(i, j) * v(j, e);
        next(i, e) = value;
      }
    }
    l = next;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < d; ++j) y(i, j) += mu * (k(i, j) - l(i, j) - s(i, j));
  }
  return {l, a};
}

}  // namespace attnlab

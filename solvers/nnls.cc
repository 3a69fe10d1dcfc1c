#include "solvers/nnls.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "Eigen/QR"
#include "absl/strings/str_cat.h"

namespace attnlab {
namespace {

// Least squares on the passive columns only.
Eigen::VectorXd SolvePassive(const Eigen::MatrixXd& e, const Eigen::VectorXd& f,
                             const std::vector<int>& passive) {
  Eigen::MatrixXd sub(e.rows(), passive.size());
  for (size_t k = 0; k < passive.size(); ++k) sub.col(k) = e.col(passive[k]);
  return sub.colPivHouseholderQr().solve(f);
}

}  // namespace

absl::StatusOr<Eigen::VectorXd> SolveNnls(const Eigen::MatrixXd& e, const Eigen::VectorXd& f) {
  const Eigen::Index n = e.cols();
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  std::vector<bool> is_passive(n, false);
  const double eps = std::numeric_limits<double>::epsilon();
  const double tolerance =
      10 * eps * std::max<double>(e.rows(), n) *
      (n > 0 ? e.cwiseAbs().colwise().sum().maxCoeff() : 0.0);
  const int max_iterations = 3 * static_cast<int>(n) + 100;
  Eigen::VectorXd w = e.transpose() * (f - e * x);
  for (int iteration = 0;; ++iteration) {
    if (iteration == max_iterations) {
      return absl::InternalError(
          absl::StrCat("NNLS did not converge in ", max_iterations, " iterations"));
    }
    // The most promising zero coefficient: the largest dual w_j.
    Eigen::Index j = -1;
    for (Eigen::Index k = 0; k < n; ++k) {
      if (!is_passive[k] && w[k] > tolerance && (j < 0 || w[k] > w[j])) j = k;
    }
    if (j < 0) return x;  // KKT: w <= 0 on the active (zero) set
    is_passive[j] = true;
    bool rejected = false;
    for (bool first = true;; first = false) {
      std::vector<int> passive;
      for (Eigen::Index k = 0; k < n; ++k) {
        if (is_passive[k]) passive.push_back(k);
      }
      const Eigen::VectorXd z = SolvePassive(e, f, passive);
      if ((z.array() > 0).all()) {
        x.setZero();
        for (size_t k = 0; k < passive.size(); ++k) x[passive[k]] = z[k];
        break;
      }
      const size_t j_pos = std::find(passive.begin(), passive.end(), j) - passive.begin();
      if (first && z[j_pos] <= 0) {
        // The new column cannot enter with a positive weight although w_j > 0: a rounding
        // artifact. Leave it out and pick another.
        is_passive[j] = false;
        w[j] = 0;
        rejected = true;
        break;
      }
      // Step from x towards z until the first passive coefficient hits zero.
      double alpha = 1.0;
      for (size_t k = 0; k < passive.size(); ++k) {
        if (z[k] <= 0) {
          const double xk = x[passive[k]];
          alpha = std::min(alpha, xk / (xk - z[k]));
        }
      }
      for (size_t k = 0; k < passive.size(); ++k) {
        double& xk = x[passive[k]];
        xk += alpha * (z[k] - xk);
        if (xk <= tolerance) {
          xk = 0;
          is_passive[passive[k]] = false;
        }
      }
    }
    if (rejected) continue;  // x is unchanged, so w is still valid
    w = e.transpose() * (f - e * x);
  }
}

}  // namespace attnlab

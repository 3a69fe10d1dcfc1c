#include "solvers/pcp.h"

#include <algorithm>
#include <cmath>

#include "Eigen/SVD"
#include "absl/strings/str_cat.h"

namespace attnlab {

Eigen::MatrixXd Shrink(const Eigen::MatrixXd& x, double threshold) {
  return x.unaryExpr([threshold](double v) {
    return v > threshold ? v - threshold : v < -threshold ? v + threshold : 0.0;
  });
}

Eigen::MatrixXd SingularValueThreshold(const Eigen::MatrixXd& x, double threshold) {
  // JacobiSVD, not BDCSVD: as accurate on the small matrices PCP runs on here, and far lighter
  // to compile.
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(x, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const Eigen::VectorXd shrunk =
      (svd.singularValues().array() - threshold).cwiseMax(0.0).matrix();
  return svd.matrixU() * shrunk.asDiagonal() * svd.matrixV().transpose();
}

absl::StatusOr<PcpResult> SolvePcp(const Eigen::MatrixXd& m, const PcpOptions& options) {
  if (m.size() == 0) return absl::InvalidArgumentError("PCP: empty matrix");
  if (!m.allFinite()) return absl::InvalidArgumentError("PCP: the matrix has NaN or Inf entries");
  const double norm = m.norm();
  PcpResult result;
  result.low_rank = Eigen::MatrixXd::Zero(m.rows(), m.cols());
  result.sparse = Eigen::MatrixXd::Zero(m.rows(), m.cols());
  if (norm == 0) return result;
  const double lambda = options.lambda > 0 ? options.lambda
                                           : 1 / std::sqrt(double(std::max(m.rows(), m.cols())));
  const double mu = options.mu > 0 ? options.mu : m.size() / (4 * m.cwiseAbs().sum());
  Eigen::MatrixXd y = Eigen::MatrixXd::Zero(m.rows(), m.cols());
  for (int it = 1; it <= options.max_iterations; ++it) {
    result.low_rank = SingularValueThreshold(m - result.sparse + y / mu, 1 / mu);
    result.sparse = Shrink(m - result.low_rank + y / mu, lambda / mu);
    const Eigen::MatrixXd gap = m - result.low_rank - result.sparse;
    y += mu * gap;
    result.iterations = it;
    result.residual = gap.norm() / norm;
    if (result.residual <= options.tolerance) return result;
  }
  return absl::InternalError(absl::StrCat("PCP did not converge in ", options.max_iterations,
                                          " iterations (residual ", result.residual, ")"));
}

}  // namespace attnlab

#include "solvers/min_norm_qp.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/status_macros.h"
#include "solvers/nnls.h"

namespace attnlab {

double KktResiduals::Max() const {
  return std::max({stationarity, primal, dual, complementarity});
}

KktResiduals ComputeKkt(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                        const Eigen::VectorXd& x, const Eigen::VectorXd& multipliers) {
  KktResiduals kkt;
  const Eigen::VectorXd slack = a * x - b;
  kkt.stationarity = (x - a.transpose() * multipliers).cwiseAbs().maxCoeff();
  kkt.primal = std::max(0.0, a.rows() ? (-slack).maxCoeff() : 0.0);
  kkt.dual = std::max(0.0, a.rows() ? (-multipliers).maxCoeff() : 0.0);
  kkt.complementarity = a.rows() ? multipliers.cwiseProduct(slack).cwiseAbs().maxCoeff() : 0.0;
  return kkt;
}

absl::StatusOr<QpSolution> SolveMinNormQp(const Eigen::MatrixXd& a, const Eigen::VectorXd& b) {
  if (a.rows() != b.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("A has ", a.rows(), " rows but b has ", b.size(), " entries"));
  }
  const Eigen::Index n = a.cols();
  QpSolution solution;
  if ((b.array() <= 0).all()) {  // x = 0 is feasible, hence optimal
    solution.x = Eigen::VectorXd::Zero(n);
    solution.multipliers = Eigen::VectorXd::Zero(a.rows());
    solution.kkt = ComputeKkt(a, b, solution.x, solution.multipliers);
    return solution;
  }
  // Least-distance programming: with E = [A^T; b^T] and f = e_{n+1}, the NNLS solution u gives
  // r = E u - f; r = 0 proves infeasibility, else x = -r_{1..n} / r_{n+1}, lambda = -u / r_{n+1}.
  Eigen::MatrixXd e(n + 1, a.rows());
  e.topRows(n) = a.transpose();
  e.row(n) = b.transpose();
  Eigen::VectorXd f = Eigen::VectorXd::Zero(n + 1);
  f[n] = 1;
  ASSIGN_OR_RETURN(const Eigen::VectorXd u, SolveNnls(e, f));
  const Eigen::VectorXd r = e * u - f;
  if (r.norm() <= 1e-10) {
    return absl::FailedPreconditionError("infeasible: no x satisfies all constraints A x >= b");
  }
  solution.x = -r.head(n) / r[n];
  solution.multipliers = -u / r[n];
  solution.kkt = ComputeKkt(a, b, solution.x, solution.multipliers);
  return solution;
}

}  // namespace attnlab

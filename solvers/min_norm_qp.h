// The hard-margin QP behind every max-margin direction in paper 1:
//   min ||x||^2 / 2   s.t.   A x >= b.
// Solved exactly as a least-distance program (Lawson & Hanson, ch. 23): NNLS on [A^T; b^T]
// against e_{n+1}. Infeasible constraints are detected, not approximated.
#ifndef ATTNLAB_SOLVERS_MIN_NORM_QP_H_
#define ATTNLAB_SOLVERS_MIN_NORM_QP_H_

#include "Eigen/Core"
#include "absl/status/statusor.h"

namespace attnlab {

// Residuals of the KKT conditions x = A^T lambda, lambda >= 0, A x >= b, lambda_i (A x - b)_i = 0.
struct KktResiduals {
  double stationarity = 0;     // ||x - A^T lambda||_inf
  double primal = 0;           // max(0, max_i (b - A x)_i)
  double dual = 0;             // max(0, max_i -lambda_i)
  double complementarity = 0;  // max_i |lambda_i (A x - b)_i|
  double Max() const;
};

struct QpSolution {
  Eigen::VectorXd x;
  Eigen::VectorXd multipliers;  // lambda, one per constraint
  KktResiduals kkt;
};

KktResiduals ComputeKkt(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                        const Eigen::VectorXd& x, const Eigen::VectorXd& multipliers);

// FailedPrecondition when no x satisfies A x >= b.
absl::StatusOr<QpSolution> SolveMinNormQp(const Eigen::MatrixXd& a, const Eigen::VectorXd& b);

}  // namespace attnlab

#endif  // ATTNLAB_SOLVERS_MIN_NORM_QP_H_

// Non-negative least squares, min ||E x - f|| s.t. x >= 0, by the active-set method of
// Lawson and Hanson ("Solving Least Squares Problems", 1974, ch. 23). Finite, exact up to
// rounding, and the building block of our hard-margin QP solver.
#ifndef ATTNLAB_SOLVERS_NNLS_H_
#define ATTNLAB_SOLVERS_NNLS_H_

#include "Eigen/Core"
#include "absl/status/statusor.h"

namespace attnlab {

absl::StatusOr<Eigen::VectorXd> SolveNnls(const Eigen::MatrixXd& e, const Eigen::VectorXd& f);

}  // namespace attnlab

#endif  // ATTNLAB_SOLVERS_NNLS_H_

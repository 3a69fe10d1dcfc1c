// Max-margin problems of "Max-Margin Token Selection in Attention Mechanism" (paper 1).
#ifndef ATTNLAB_SOLVERS_ATT_SVM_H_
#define ATTNLAB_SOLVERS_ATT_SVM_H_

#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "solvers/min_norm_qp.h"

namespace attnlab {

// ATT-SVM: min ||p||^2 / 2  s.t.  (x_{i,s_i} - x_{i,t})^T W p >= margins[i]  for all t != s_i,
// where tokens[i] holds sequence i's tokens as rows (T_i x d), s_i = selected[i], and W is the
// d x d key-first form (token x scores x^T W p). margins[i] = 1 everywhere is the ATT-SVM;
// 0 for some sequences is the relaxed ATT-SVM of joint (v, p) training.
absl::StatusOr<QpSolution> SolveAttSvm(const std::vector<Eigen::MatrixXd>& tokens,
                                       const Eigen::MatrixXd& w, const std::vector<int>& selected,
                                       const Eigen::VectorXd& margins);

// The W-parametrization's SVM (Tarzanagh et al., "Transformers as SVMs"): min ||W||_F^2 / 2
// s.t. (x_{i,s_i} - x_{i,t})^T W z_i >= 1 for all t != s_i, z_i = row i of `queries` (n x d).
// The solution's x is W_mm row-major (d * d entries).
absl::StatusOr<QpSolution> SolveWSvm(const std::vector<Eigen::MatrixXd>& tokens,
                                     const Eigen::MatrixXd& queries,
                                     const std::vector<int>& selected);

// Hard-margin linear SVM without bias: min ||v||^2 / 2  s.t.  y_i v^T z_i >= 1, z_i the rows of
// `points`.
absl::StatusOr<QpSolution> SolveHardMarginSvm(const Eigen::MatrixXd& points,
                                              const Eigen::VectorXd& labels);

}  // namespace attnlab

#endif  // ATTNLAB_SOLVERS_ATT_SVM_H_

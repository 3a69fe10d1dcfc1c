// Principal component pursuit (Candes, Li, Ma, Wright 2011): split M into low-rank L and sparse
// S by   min ||L||_* + lambda ||S||_1  s.t.  L + S = M,   with ADMM (the inexact augmented
// Lagrangian method): singular-value thresholding for L, soft thresholding for S. The reference
// solver behind paper 4's Principal Attention Pursuit.
#ifndef ATTNLAB_SOLVERS_PCP_H_
#define ATTNLAB_SOLVERS_PCP_H_

#include "Eigen/Core"
#include "absl/status/statusor.h"

namespace attnlab {

struct PcpOptions {
  // <= 0: 1 / sqrt(max(rows, cols)), the paper's choice.
  double lambda = 0;
  // <= 0: rows * cols / (4 ||M||_1).
  double mu = 0;
  // Stop when ||M - L - S||_F <= tolerance ||M||_F.
  double tolerance = 1e-10;
  int max_iterations = 1000;
};

struct PcpResult {
  Eigen::MatrixXd low_rank;
  Eigen::MatrixXd sparse;
  int iterations = 0;
  double residual = 0;  // ||M - L - S||_F / ||M||_F
};

// Soft thresholding, entrywise: sign(x) max(|x| - t, 0).
Eigen::MatrixXd Shrink(const Eigen::MatrixXd& x, double threshold);
// Singular-value thresholding: U Shrink(Sigma, t) V^T.
Eigen::MatrixXd SingularValueThreshold(const Eigen::MatrixXd& x, double threshold);

// Errors: an empty or non-finite M; no convergence within max_iterations.
absl::StatusOr<PcpResult> SolvePcp(const Eigen::MatrixXd& m, const PcpOptions& options = {});

}  // namespace attnlab

#endif  // ATTNLAB_SOLVERS_PCP_H_

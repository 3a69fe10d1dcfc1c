// The `kpca_reconstruction_error` metric: paper 4's kernel-PCA reconstruction error as the
// authors' code measures it (kpca_reconstruction_error.proto).
#ifndef ATTNLAB_PLUGINS_METRICS_KPCA_RECONSTRUCTION_ERROR_KPCA_RECONSTRUCTION_ERROR_H_
#define ATTNLAB_PLUGINS_METRICS_KPCA_RECONSTRUCTION_ERROR_KPCA_RECONSTRUCTION_ERROR_H_

#include "Eigen/Core"

namespace attnlab {

// One head of one sample, from its queries q (n x m), keys k (n x m), values v (n x dv) and
// weights a (n x n): the sum over queries i of
// exp(q^_i . q^_i + 2 log a_i0 - 2 q^_i . k^_0) - ||(a v)_i||^2, q^ and k^ standardized per row
// (sample standard deviation).
double KpcaReconstructionErrorSum(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                                  const Eigen::MatrixXd& v, const Eigen::MatrixXd& a);

// The largest difference between a and softmax(scale q^ k^T): 0 up to rounding for a head of
// `standardized_softmax`.
double StandardizedSoftmaxMismatch(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k,
                                   const Eigen::MatrixXd& a, double scale);

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_METRICS_KPCA_RECONSTRUCTION_ERROR_KPCA_RECONSTRUCTION_ERROR_H_

// The `kpca_value_alignment` metric: how much of the leading eigenspace of the keys' Gram matrix
// an attention head's values span (paper 4's kernel-PCA structure).
#ifndef ATTNLAB_PLUGINS_METRICS_KPCA_VALUE_ALIGNMENT_KPCA_VALUE_ALIGNMENT_H_
#define ATTNLAB_PLUGINS_METRICS_KPCA_VALUE_ALIGNMENT_KPCA_VALUE_ALIGNMENT_H_

#include "Eigen/Core"

namespace attnlab {

// ||U^T Q||_F^2 / dv for keys k (n x m), values v (n x dv, dv <= n), U the top dv eigenvectors
// of G = exp(scale k k^T) and Q an orthonormal basis of v's columns (rank-deficient values
// count their rank's share).
double KpcaValueAlignment(const Eigen::MatrixXd& k, const Eigen::MatrixXd& v, double scale);

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_METRICS_KPCA_VALUE_ALIGNMENT_KPCA_VALUE_ALIGNMENT_H_

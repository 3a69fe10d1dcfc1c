#include "attention/kernels/reference_product.h"

#include <algorithm>
#include <vector>

namespace attnlab {

template <typename T>
Matrix<T> ReferenceProduct(const Matrix<T>& a, const Matrix<T>& b) {
  Matrix<T> out(a.rows(), b.cols());
  std::vector<double> row(b.cols());
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (Eigen::Index k = 0; k < a.cols(); ++k) {
      const double a_ik = a(i, k);
      for (Eigen::Index j = 0; j < b.cols(); ++j) row[j] += a_ik * b(k, j);
    }
    for (Eigen::Index j = 0; j < b.cols(); ++j) out(i, j) = T(row[j]);
  }
  return out;
}

template Matrix<float> ReferenceProduct(const Matrix<float>&, const Matrix<float>&);
template Matrix<double> ReferenceProduct(const Matrix<double>&, const Matrix<double>&);

}  // namespace attnlab

// For the kernels' tests: a * b, multiplied out plainly with double accumulators, as the
// expected value of the products under test. Compiled once (reference_product.cc), so that no
// test file instantiates Eigen's GEMM for its expected values.
#ifndef ATTNLAB_ATTENTION_KERNELS_REFERENCE_PRODUCT_H_
#define ATTNLAB_ATTENTION_KERNELS_REFERENCE_PRODUCT_H_

#include "attention/tensor.h"

namespace attnlab {

// Call with T given (ReferenceProduct<T>(a.transpose(), b)) where an operand is an expression.
template <typename T>
Matrix<T> ReferenceProduct(const Matrix<T>& a, const Matrix<T>& b);

extern template Matrix<float> ReferenceProduct(const Matrix<float>&, const Matrix<float>&);
extern template Matrix<double> ReferenceProduct(const Matrix<double>&, const Matrix<double>&);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_REFERENCE_PRODUCT_H_

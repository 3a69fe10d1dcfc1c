// Eigen-backed tensors. A Tensor<T> is a batch of equally shaped row-major matrices,
// [batch, rows, cols], stored as one (batch*rows) x cols matrix: a whole-batch product with a
// weight matrix is then a single GEMM, and sample b is a zero-copy block.
#ifndef ATTNLAB_ATTENTION_TENSOR_H_
#define ATTNLAB_ATTENTION_TENSOR_H_

#include <string>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"

namespace attnlab {

template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

struct Shape {
  int batch = 0;
  int rows = 0;
  int cols = 0;

  int sample_size() const { return rows * cols; }
  bool operator==(const Shape& o) const {
    return batch == o.batch && rows == o.rows && cols == o.cols;
  }
  bool operator!=(const Shape& o) const { return !(*this == o); }
  std::string ToString() const { return absl::StrCat("[", batch, ", ", rows, ", ", cols, "]"); }
};

template <typename T>
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(const Shape& shape) { Resize(shape); }

  // Keeps the allocation when the element count is unchanged (Eigen's resize is a no-op then),
  // so a training loop that reuses its tensors allocates nothing after the first step.
  void Resize(const Shape& shape) {
    shape_ = shape;
    data_.resize(static_cast<Eigen::Index>(shape.batch) * shape.rows, shape.cols);
  }
  void SetZero() { data_.setZero(); }

  const Shape& shape() const { return shape_; }
  int batch() const { return shape_.batch; }
  int rows() const { return shape_.rows; }
  int cols() const { return shape_.cols; }

  // All samples stacked: (batch*rows) x cols.
  Matrix<T>& flat() { return data_; }
  const Matrix<T>& flat() const { return data_; }

  // Sample b as a rows x cols block.
  auto sample(int b) { return data_.middleRows(static_cast<Eigen::Index>(b) * shape_.rows, shape_.rows); }
  auto sample(int b) const {
    return data_.middleRows(static_cast<Eigen::Index>(b) * shape_.rows, shape_.rows);
  }

  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }
  Eigen::Index size() const { return data_.size(); }

 private:
  Shape shape_;
  Matrix<T> data_;
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_TENSOR_H_

// out = lhs * rhs on the ExecContext's threads, split into blocks that depend on the shape only
// (columns, or 256 rows when the output is narrow): every block is the same product whatever the
// thread count, so the result is bit-identical with 1 or N threads (Eigen's own threaded GEMM
// picks its blocking by thread count). Each block is a Product (attention/product.h).
// ParallelAffine adds a bias row as well.
#ifndef ATTNLAB_ATTENTION_KERNELS_PARALLEL_PRODUCT_H_
#define ATTNLAB_ATTENTION_KERNELS_PARALLEL_PRODUCT_H_

#include <algorithm>
#include <vector>

#include "attention/exec_context.h"
#include "attention/kernels/parallel.h"
#include "attention/kernels/product.h"

namespace attnlab {

namespace parallel_product_internal {

// Output blocks: columns where the output is at least 2 kColumns wide, else kRows high. Column
// blocks are half the output rounded down to kColumns (so at least kColumns), at most
// kMaxColumns: two threads share every wide product, in few library calls.
constexpr int kColumns = 128, kMaxColumns = 512, kRows = 256;
constexpr bool ColumnBlocks(int cols) { return cols >= 2 * kColumns; }
constexpr int ColumnBlockWidth(int cols) {
  return std::min(kMaxColumns, cols / 2 / kColumns * kColumns);
}
constexpr bool OneBlock(int rows, int cols) { return !ColumnBlocks(cols) && rows <= kRows; }

// out (+)= lhs * rhs, plus `bias` (out.cols() entries, or null) in every row, plus `addend`
// (null, or out's shape with row stride ld_addend; not with accumulate).
template <typename L, typename R, typename O, typename T>
void Blocks(ExecContext& ctx, const L& lhs, const R& rhs, O& out, bool accumulate, const T* bias,
            const T* addend = nullptr, int64_t ld_addend = 0) {
  const int cols = static_cast<int>(rhs.cols()), rows = static_cast<int>(lhs.rows());
  if constexpr (product_internal::CopiedRhs<R>()) {
    // A transposed weight matrix is copied row-major once here, not once per block.
    using Buffer = product_internal::ThreadBuffer<T, 1>;
    Buffer& buffer = Buffer::Get();
    if (rows > kRows && !ColumnBlocks(cols) && rhs.size() <= product_internal::kMaxCopiedRhs &&
        !buffer.in_use) {
      const auto copy = product_internal::PaddedCopy(rhs, buffer.values);
      buffer.in_use = true;
      Blocks(ctx, lhs, copy.leftCols(cols), out, accumulate, bias, addend, ld_addend);
      buffer.in_use = false;
      return;
    }
  }
  // The bias and addend go with each block (Product), not in a pass of their own over out.
  auto block_product = [&](const auto& lhs_block, const auto& rhs_block, auto&& out_block,
                           int row, int col) {
    Product(lhs_block, rhs_block, out_block, accumulate, T(1),
            bias == nullptr ? nullptr : bias + col,
            addend == nullptr ? nullptr : addend + row * ld_addend + col, ld_addend);
  };
  if (ColumnBlocks(cols)) {
    const int block_width = ColumnBlockWidth(cols);
    const int blocks = (cols + block_width - 1) / block_width;
    ParallelFor(ctx, blocks, [&](int begin, int end) {
      for (int block = begin; block < end; ++block) {
        const int col = block * block_width, width = std::min(block_width, cols - col);
        block_product(lhs, rhs.middleCols(col, width), out.middleCols(col, width), 0, col);
      }
    });
    return;
  }
  const int blocks = (rows + kRows - 1) / kRows;
  ParallelFor(ctx, blocks, [&](int begin, int end) {
    for (int block = begin; block < end; ++block) {
      const int row = block * kRows, height = std::min(kRows, rows - row);
      block_product(lhs.middleRows(row, height), rhs, out.middleRows(row, height), row, 0);
    }
  });
}

}  // namespace parallel_product_internal

// With accumulate, out += lhs * rhs.
template <typename L, typename R, typename O>
void ParallelProduct(ExecContext& ctx, const L& lhs, const R& rhs, O&& out,
                     bool accumulate = false) {
  using T = typename std::decay_t<O>::Scalar;
  parallel_product_internal::Blocks(ctx, lhs, rhs, out, accumulate, static_cast<const T*>(nullptr));
}

// out = lhs * rhs + bias in every row: a layer's affine map of its tokens, in one pass over
// out. bias is a row-major 1 x out.cols() matrix (a bias parameter's value).
template <typename L, typename R, typename B, typename O>
void ParallelAffine(ExecContext& ctx, const L& lhs, const R& rhs, const B& bias, O&& out) {
  eigen_assert(bias.size() == rhs.cols() && bias.innerStride() == 1);
  parallel_product_internal::Blocks(ctx, lhs, rhs, out, /*accumulate=*/false, bias.data());
}

// out = residual + lhs * rhs (+ bias in every row, unless null): an affine map's output added to
// a residual connection in the same pass. residual has out's shape, row-major (it may be out).
template <typename L, typename R, typename D, typename O>
void ParallelAffineAdd(ExecContext& ctx, const L& lhs, const R& rhs,
                       const typename std::decay_t<O>::Scalar* bias, const D& residual, O&& out) {
  eigen_assert(residual.rows() == out.rows() && residual.cols() == out.cols() &&
               product_internal::RowMajorView<D>());
  parallel_product_internal::Blocks(ctx, lhs, rhs, out, /*accumulate=*/false, bias,
                                    residual.data(), int64_t(residual.outerStride()));
}

// out = a^T b, a and b holding one token per row, and, unless null, *a_sums and *b_sums = the
// column sums of a and b (1 x cols): a layer's weight and bias gradients from its input and
// output gradient. The tokens go in chunks, each summed right after the product has read it,
// while it is in cache (a separate sum reads the whole gradient again from memory). An output
// that ParallelProduct keeps in one block (a 64 x 192 weight gradient) would leave the other
// threads idle: there the tokens are split instead, into groups of fixed size whose partial
// products are added in group order, so that the bits do not depend on the thread count.
template <typename A, typename B, typename O>
void TokenProducts(ExecContext& ctx, const A& a, const B& b, O&& out,
                   Matrix<typename std::decay_t<O>::Scalar>* a_sums,
                   Matrix<typename std::decay_t<O>::Scalar>* b_sums) {
  using T = typename std::decay_t<O>::Scalar;
  constexpr int kChunkTokens = 256, kGroupTokens = 2 * kChunkTokens;
  const int tokens = static_cast<int>(a.rows());
  eigen_assert(b.rows() == tokens);
  if (a_sums != nullptr) a_sums->setZero(1, a.cols());
  if (b_sums != nullptr) b_sums->setZero(1, b.cols());
  if (tokens == 0) out.setZero();
  // Tokens [first, last) into `product` and the sums (either may be null).
  auto group = [&](int first, int last, auto&& product, T* a_sum, T* b_sum) {
    for (int row = first; row < last; row += kChunkTokens) {
      const int count = std::min(kChunkTokens, last - row);
      const auto a_chunk = a.middleRows(row, count);
      const auto b_chunk = b.middleRows(row, count);
      ParallelProduct(ctx, a_chunk.transpose(), b_chunk, product, /*accumulate=*/row > first);
      for (int i = 0; i < count; ++i) {
        if (a_sum != nullptr) Eigen::Map<Matrix<T>>(a_sum, 1, a.cols()) += a_chunk.row(i);
        if (b_sum != nullptr) Eigen::Map<Matrix<T>>(b_sum, 1, b.cols()) += b_chunk.row(i);
      }
    }
  };
  T* const a_sum = a_sums == nullptr ? nullptr : a_sums->data();
  T* const b_sum = b_sums == nullptr ? nullptr : b_sums->data();
  const int groups = (tokens + kGroupTokens - 1) / kGroupTokens;
  if (groups <= 1 || !parallel_product_internal::OneBlock(out.rows(), out.cols())) {
    group(0, tokens, out, a_sum, b_sum);
    return;
  }
  // Group 0 writes out and the sums; group g > 0 its partial product and sums in `partials`:
  // this thread's buffer, or, while a task that this thread runs as it waits holds that, its own.
  using Buffer = product_internal::ThreadBuffer<T, 3>;
  Buffer& buffer = Buffer::Get();
  const bool own_buffer = buffer.in_use;
  std::vector<T> own;
  std::vector<T>& partials = own_buffer ? own : buffer.values;
  const int64_t stride = out.size() + a.cols() + b.cols();
  if (partials.size() < size_t((groups - 1) * stride)) partials.resize((groups - 1) * stride);
  if (!own_buffer) buffer.in_use = true;
  ParallelFor(ctx, groups, [&](int begin, int end) {
    for (int g = begin; g < end; ++g) {
      const int first = g * kGroupTokens, last = std::min(tokens, first + kGroupTokens);
      if (g == 0) {
        group(first, last, out, a_sum, b_sum);
        continue;
      }
      T* partial = partials.data() + (g - 1) * stride;
      std::fill(partial + out.size(), partial + stride, T(0));  // the sums
      group(first, last, Eigen::Map<Matrix<T>>(partial, out.rows(), out.cols()),
            a_sum == nullptr ? nullptr : partial + out.size(),
            b_sum == nullptr ? nullptr : partial + out.size() + a.cols());
    }
  });
  for (int g = 1; g < groups; ++g) {
    const T* partial = partials.data() + (g - 1) * stride;
    out += Eigen::Map<const Matrix<T>>(partial, out.rows(), out.cols());
    const T* sums = partial + out.size();
    if (a_sums != nullptr) *a_sums += Eigen::Map<const Matrix<T>>(sums, 1, a.cols());
    if (b_sums != nullptr) *b_sums += Eigen::Map<const Matrix<T>>(sums + a.cols(), 1, b.cols());
  }
  if (!own_buffer) buffer.in_use = false;
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_PARALLEL_PRODUCT_H_

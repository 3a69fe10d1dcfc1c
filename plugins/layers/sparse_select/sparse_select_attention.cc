#include "plugins/layers/sparse_select/sparse_select_attention.h"

#include <cmath>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "attention/kernels/gaussian.h"
#include "attention/kernels/parallel.h"
#include "attention/kernels/parallel_product.h"
#include "attention/kernels/product.h"
#include "attention/kernels/token_passes.h"
#include "attention/kernels/weighted_row_sum.h"
#include "attention/plugin_registry.h"

namespace attnlab {
namespace {

// Plain loops over a sample's T tokens (rows of `tokens`, row-major, of which the first `dim`
// entries are the token; dim is paper 3's d = 5). A Product per sample costs more in dispatch
// than these few multiply-adds, and the kernels' token passes (token_passes.h) read rows of
// exactly `dim` entries, not the marks' column after them.
//
// Each loop runs at a token width kDim that is a compile-time constant for widths 1-8
// (WithTokenDim), and 0 past them (the width read at run time). At a constant width the compiler
// unrolls the row and keeps the sums in registers: with a run-time width every += went through
// memory, as the output might alias the tokens, and the chain of stores and reloads set the step's
// pace.
template <int kDim>
using TokenDim = std::integral_constant<int, kDim>;

template <typename Body>
void WithTokenDim(int dim, Body&& body) {
  switch (dim) {
    case 1:
      return body(TokenDim<1>());
    case 2:
      return body(TokenDim<2>());
    case 3:
      return body(TokenDim<3>());
    case 4:
      return body(TokenDim<4>());
    case 5:
      return body(TokenDim<5>());
    case 6:
      return body(TokenDim<6>());
    case 7:
      return body(TokenDim<7>());
    case 8:
      return body(TokenDim<8>());
    default:
      return body(TokenDim<0>());
  }
}

// ds(t) = <token t, g>: one sample's dL/dscores from dL/dout = g.
template <typename X, typename G, typename D>
void TokenGradientDots(const X& tokens, int dim, const G& g, D& ds) {
  using S = typename D::Scalar;
  const int64_t stride = tokens.outerStride();
  WithTokenDim(dim, [&](auto width) {
    constexpr int kDim = decltype(width)::value;
    if constexpr (kDim > 0) {
      S gj[kDim];  // a copy: ds might alias g
      for (int j = 0; j < kDim; ++j) gj[j] = g.data()[j];
      for (Eigen::Index t = 0; t < tokens.rows(); ++t) {
        const auto* x = tokens.data() + t * stride;
        S sum = 0;
        for (int j = 0; j < kDim; ++j) sum += x[j] * gj[j];
        ds(t) = sum;
      }
    } else {
      for (Eigen::Index t = 0; t < tokens.rows(); ++t) {
        const auto* x = tokens.data() + t * stride;
        S sum = 0;
        for (int j = 0; j < dim; ++j) sum += x[j] * g.data()[j];
        ds(t) = sum;
      }
    }
  });
}

// out = sum_t a(t) token t: one sample's output from its weights.
template <typename A, typename X, typename O>
void WeightedTokens(const A& a, const X& tokens, int dim, O&& out) {
  const int64_t stride = tokens.outerStride();
  auto* o = out.data();
  using S = typename std::decay_t<O>::Scalar;
  WithTokenDim(dim, [&](auto width) {
    constexpr int kDim = decltype(width)::value;
    if constexpr (kDim > 0) {
      // Two sums a column, over even and odd tokens: half the chain of dependent adds.
      S even[kDim] = {}, odd[kDim] = {};
      Eigen::Index t = 0;
      for (; t + 1 < tokens.rows(); t += 2) {
        const auto* x = tokens.data() + t * stride;
        const S w0 = a(t), w1 = a(t + 1);
        for (int j = 0; j < kDim; ++j) {
          even[j] += w0 * x[j];
          odd[j] += w1 * x[stride + j];
        }
      }
      if (t < tokens.rows()) {
        const auto* x = tokens.data() + t * stride;
        for (int j = 0; j < kDim; ++j) even[j] += a(t) * x[j];
      }
      for (int j = 0; j < kDim; ++j) o[j] = even[j] + odd[j];
    } else {
      for (int j = 0; j < dim; ++j) o[j] = 0;
      for (Eigen::Index t = 0; t < tokens.rows(); ++t) {
        const auto* x = tokens.data() + t * stride;
        const S w = a(t);
        for (int j = 0; j < dim; ++j) o[j] += w * x[j];
      }
    }
  });
}

// dL/dtoken t = a(t) g, for every token: one sample's input gradient (its marks' column apart).
template <typename A, typename G, typename D>
void TokenGradients(const A& a, const G& g, int dim, D&& dx) {
  const int64_t stride = dx.outerStride();
  WithTokenDim(dim, [&](auto width) {
    constexpr int kDim = decltype(width)::value;
    const int n = kDim > 0 ? kDim : dim;
    for (Eigen::Index t = 0; t < dx.rows(); ++t) {
      auto* d = dx.data() + t * stride;
      for (int j = 0; j < n; ++j) d[j] = a(t) * g.data()[j];
    }
  });
}

}  // namespace

template <typename T>
absl::StatusOr<std::unique_ptr<SparseSelectAttention<T>>> SparseSelectAttention<T>::Create(
    const Config& config) {
  if (config.encoding_dim() <= 0) {
    return FieldError("encoding_dim", "missing or not > 0: the positional encoding dimension d_e");
  }
  if (config.max_len() < 0) return FieldError("max_len", "must be >= 0");
  if (config.sampler() == Config::PROJECTED && config.positional() != Config::STOCHASTIC) {
    return FieldError("sampler",
                      "PROJECTED draws stochastic encodings; needs positional: STOCHASTIC");
  }
  if (config.distribution() != Config::NORMAL) {
    if (config.sampler() == Config::PROJECTED) {
      return FieldError("distribution",
                        "sampler: PROJECTED draws normal encodings only; use sampler: FULL");
    }
    if (config.positional() == Config::SINUSOIDAL) {
      return FieldError("distribution", "sinusoidal encodings are not drawn");
    }
    if (config.has_positions()) {
      return FieldError("distribution", "the positions are given, not drawn");
    }
  }
  if (config.positional() == Config::SINUSOIDAL) {
    if (config.encoding_dim() % 2 != 0) {
      return FieldError("encoding_dim", "sinusoidal encodings need an even d_e (sin, cos pairs)");
    }
    if (config.has_positions()) return FieldError("positions", "sinusoidal encodings are computed");
  }
  if (config.positional() == Config::STOCHASTIC) {
    if (config.max_len() != 0) return FieldError("max_len", "only for encodings kept per position");
    if (config.has_positions()) {
      return FieldError("positions", "stochastic encodings are drawn per sample, not given");
    }
  }
  const std::string name = MechanismName(config.mechanism());
  ASSIGN_OR_RETURN(std::unique_ptr<Mechanism<T>> mechanism,
                   CreateMechanism<T>(name, config.mechanism_config()));
  if (dynamic_cast<WeightsMap<T>*>(mechanism.get()) == nullptr) {
    return FieldError("mechanism", absl::StrCat("sparse_select computes its scores itself: it "
                                                "takes a map from scores to weights (softmax, "
                                                "sigmoid, relu, sparsemax), not '",
                                                name, "'"));
  }
  return std::unique_ptr<SparseSelectAttention<T>>(
      new SparseSelectAttention<T>(config, std::move(mechanism)));
}

template <typename T>
absl::StatusOr<Shape> SparseSelectAttention<T>::Setup(const Shape& input, ExecContext& ctx) {
  if (input.cols < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sparse_select needs [batch, T, d + 1] inputs (tokens and a column marking y), got ",
        input.ToString()));
  }
  dim_ = input.cols - 1;
  encoding_dim_ = config_.encoding_dim();
  HeadShape shape;
  shape.qk_dim = encoding_dim_;
  shape.value_dim = dim_;
  shape.width = input.cols;
  shape.single_query = true;
  if (absl::Status s = mechanism_->Setup(shape); !s.ok()) return FieldError("mechanism", s);
  max_len_ = config_.max_len() > 0 ? config_.max_len() : input.rows;
  if (max_len_ < input.rows) {
    return FieldError("max_len",
                      absl::StrCat(max_len_, " is shorter than the inputs (T = ", input.rows, ")"));
  }
  w_.name = "w";
  RETURN_IF_ERROR(
      InitParameter(config_.w(), {ParamSpec::ZEROS}, encoding_dim_, encoding_dim_, "w", ctx, &w_));
  if (!stochastic()) {
    positions_.name = "positions";
    RETURN_IF_ERROR(InitParameter(config_.positions(),
                                  {ParamSpec::NORMAL, 1.0 / std::sqrt(double(encoding_dim_))},
                                  max_len_, encoding_dim_, "positions", ctx, &positions_));
    if (config_.positional() == Config::SINUSOIDAL) {
      SinusoidalEncodings(&positions_.value);
    } else {
      ReshapeNormalDraws(positions_.value.data(), max_len_);
    }
    positions_.frozen = config_.positional() != Config::LEARNED;
  }
  return OutputShape(input);
}

template <typename T>
absl::StatusOr<Shape> SparseSelectAttention<T>::OutputShape(const Shape& input) const {
  if (input.cols != dim_ + 1 || input.rows < 1) {
    return absl::InvalidArgumentError(absl::StrCat("sparse_select was set up for [batch, T, ",
                                                   dim_ + 1, "] inputs, got ", input.ToString()));
  }
  if (!stochastic() && input.rows > max_len_) {
    return absl::InvalidArgumentError(absl::StrCat("sequences of ", input.rows,
                                                   " tokens but positional encodings for only ",
                                                   max_len_, " positions (raise max_len)"));
  }
  return Shape{input.batch, 1, dim_};
}

template <typename T>
std::vector<Parameter<T>*> SparseSelectAttention<T>::parameters() {
  if (stochastic()) return {&w_};
  return {&w_, &positions_};
}

template <typename T>
void SparseSelectAttention<T>::Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) {
  if (projected()) return ForwardProjected(in, out, ctx);
  if (!stochastic()) return ForwardShared(in, out, ctx);
  input_ = &in;
  const int batch = in.batch();
  seq_len_ = in.rows();
  const uint64_t seed = seed_ = ctx.rng()();
  projected_.resize(int64_t(batch) * (dim_ + 1), encoding_dim_);
  queries_.resize(batch, encoding_dim_);
  keys_dir_.resize(batch, encoding_dim_);
  marks_.resize(batch, seq_len_);
  probs_.Resize({batch, 1, seq_len_});
  map_state_.resize(batch, map_->RowStateSize());
  out->Resize({batch, 1, dim_});
  const T scale = static_cast<T>(1 / std::sqrt(double(encoding_dim_)));
  ParallelFor(ctx, batch, [&](int begin, int end) {
    // This thread's scratch.
    Matrix<T> drawn(seq_len_, encoding_dim_), weighted(seq_len_, dim_ + 1);
    for (int b = begin; b < end; ++b) {
      // One stream per sample: the draws do not depend on how samples split across threads.
      GaussianStream(StreamSeed(seed, b)).Fill(drawn.data(), drawn.size(), scale);
      ReshapeNormalDraws(drawn.data(), seq_len_);
      const auto& p = drawn;
      const auto x = in.sample(b);
      auto q = queries_.row(b);
      q.setZero();
      for (int t = 0; t < seq_len_; ++t) {
        marks_(b, t) = x(t, dim_) > T(0.5) ? T(1) : T(0);
        if (marks_(b, t) != 0) q += p.row(t);
      }
      // (W q)^T, then the scores p_i^T W q.
      TokenDots(w_.value.data(), encoding_dim_, encoding_dim_, q.data(), 1, &keys_dir_(b, 0));
      auto a = probs_.sample(b);
      TokenDots(p.data(), seq_len_, encoding_dim_, &keys_dir_(b, 0), 1, a.data());
      map_->Map(a, map_state_.row(b));
      WeightedTokens(a, x, dim_, out->sample(b));
      weighted.leftCols(dim_) = a.transpose().asDiagonal() * x.leftCols(dim_);
      weighted.col(dim_) = a.transpose();
      WeightedRowSum(weighted, p, projected_.middleRows(int64_t(b) * (dim_ + 1), dim_ + 1));
    }
  });
}

template <typename T>
void SparseSelectAttention<T>::Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in,
                                        ExecContext& ctx) {
  if (projected()) return BackwardProjected(grad_out, grad_in, ctx);
  if (!stochastic()) return BackwardShared(grad_out, grad_in, ctx);
  const Tensor<T>& in = *input_;
  const int batch = in.batch();
  grad_scores_.resize(batch, seq_len_);
  r_.resize(batch, encoding_dim_);
  if (grad_in != nullptr) grad_in->Resize(in.shape());
  const bool from_projections = map_->SoftmaxJacobian();
  const T scale = static_cast<T>(1 / std::sqrt(double(encoding_dim_)));
  ParallelFor(ctx, batch, [&](int begin, int end) {
    Matrix<T> drawn;  // this thread's scratch, for maps without softmax's Jacobian
    Eigen::Matrix<T, 1, Eigen::Dynamic> f(dim_);  // a sample's output
    for (int b = begin; b < end; ++b) {
      const auto g = grad_out.sample(b);  // 1 x d
      const auto x = in.sample(b);
      const auto a = probs_.sample(b);
      if (from_projections) {
        // r = P^T (a .* X g^T) - (f . g) P^T a, from the projections kept by Forward.
        const auto projected = projected_.middleRows(int64_t(b) * (dim_ + 1), dim_ + 1);
        WeightedTokens(a, x, dim_, f);
        const T f_dot_g = f.cwiseProduct(g).sum();
        WeightedTokenSums(projected.data(), dim_, encoding_dim_, g.data(), 1, &r_(b, 0));
        r_.row(b) -= f_dot_g * projected.row(dim_);
      } else {
        // The forward's encodings again (its stream), then r = P^T ds with ds from the map.
        drawn.resize(seq_len_, encoding_dim_);
        GaussianStream(StreamSeed(seed_, b)).Fill(drawn.data(), drawn.size(), scale);
        ReshapeNormalDraws(drawn.data(), seq_len_);
        auto ds = grad_scores_.row(b);
        TokenGradientDots(x, dim_, g, ds);  // dL/da_i = g . x_i
        map_->MapBackward(a, map_state_.row(b), ds);
        WeightedTokenSums(drawn.data(), seq_len_, encoding_dim_, ds.data(), 1, &r_(b, 0));
      }
      if (grad_in != nullptr) {
        auto dx = grad_in->sample(b);
        TokenGradients(a, g, dim_, dx);
        dx.col(dim_).setZero();  // the marks are data, not a differentiable input
      }
    }
  });
  // s_bi = p_bi^T W q_b: dW = sum_b (sum_i ds_bi p_bi) q_b^T.
  Product(r_.transpose(), queries_, w_.grad, /*accumulate=*/false);
}

template <typename T>
void SparseSelectAttention<T>::ForwardShared(const Tensor<T>& in, Tensor<T>* out,
                                             ExecContext& ctx) {
  input_ = &in;
  const int batch = in.batch();
  seq_len_ = in.rows();
  const auto p = positions_.value.topRows(seq_len_);
  marks_.resize(batch, seq_len_);
  queries_.resize(batch, encoding_dim_);
  ParallelFor(ctx, batch, [&](int begin, int end) {
    for (int b = begin; b < end; ++b) {  // q_b = sum_{j in y} p_j: |y| rows, not a product
      // Locals and raw pointers: the stores to marks_ would otherwise reload every member.
      const int seq_len = seq_len_, stride = dim_ + 1;
      const T* mark_in = in.sample(b).data() + dim_;
      T* mark = &marks_(b, 0);
      auto q = queries_.row(b);
      q.setZero();
      for (int t = 0; t < seq_len; ++t) {
        const bool marked = mark_in[int64_t{t} * stride] > T(0.5);
        mark[t] = marked ? T(1) : T(0);
        if (marked) q += p.row(t);
      }
    }
  });
  keys_dir_.resize(batch, encoding_dim_);
  grad_scores_.resize(batch, seq_len_);                             // the scores for now
  ParallelProduct(ctx, queries_, w_.value.transpose(), keys_dir_);  // (W q_b)^T
  ParallelProduct(ctx, keys_dir_, p.transpose(), grad_scores_);     // s_bi = p_i . W q_b
  probs_.Resize({batch, 1, seq_len_});
  map_state_.resize(batch, map_->RowStateSize());
  out->Resize({batch, 1, dim_});
  ParallelFor(ctx, batch, [&](int begin, int end) {
    for (int b = begin; b < end; ++b) {
      auto a = probs_.sample(b);
      a = grad_scores_.row(b);
      map_->Map(a, map_state_.row(b));
      WeightedTokens(a, in.sample(b), dim_, out->sample(b));
    }
  });
}

template <typename T>
void SparseSelectAttention<T>::BackwardShared(const Tensor<T>& grad_out, Tensor<T>* grad_in,
                                              ExecContext& ctx) {
  const Tensor<T>& in = *input_;
  const int batch = in.batch();
  if (grad_in != nullptr) grad_in->Resize(in.shape());
  ParallelFor(ctx, batch, [&](int begin, int end) {
    for (int b = begin; b < end; ++b) {
      const auto g = grad_out.sample(b);
      const auto a = probs_.sample(b);
      auto ds = grad_scores_.row(b);
      TokenGradientDots(in.sample(b), dim_, g, ds);  // dL/da
      map_->MapBackward(a, map_state_.row(b), ds);
      if (grad_in != nullptr) {
        auto dx = grad_in->sample(b);
        TokenGradients(a, g, dim_, dx);
        dx.col(dim_).setZero();  // the marks are data, not a differentiable input
      }
    }
  });
  const auto p = positions_.value.topRows(seq_len_);
  r_.resize(batch, encoding_dim_);
  ParallelProduct(ctx, grad_scores_, p, r_);  // r_b = sum_i ds_bi p_i
  ParallelProduct(ctx, r_.transpose(), queries_, w_.grad);
  positions_.grad.setZero();
  if (positions_.frozen) return;  // FIXED and SINUSOIDAL encodings: no one reads their gradient
  // p_i enters as a key (through s_i, direction W q) and, for i in y, through q.
  auto used = positions_.grad.topRows(seq_len_);
  Product(grad_scores_.transpose(), keys_dir_, used, /*accumulate=*/false);
  Matrix<T> r_w(r_.rows(), encoding_dim_);
  Product(r_, w_.value, r_w, /*accumulate=*/false);
  Product(marks_.transpose(), r_w, used, /*accumulate=*/true);
}

template <typename T>
void SparseSelectAttention<T>::ForwardProjected(const Tensor<T>& in, Tensor<T>* out,
                                                ExecContext& ctx) {
  input_ = &in;
  const int batch = in.batch();
  seq_len_ = in.rows();
  const uint64_t seed = ctx.rng()();
  const T scale = static_cast<T>(1 / std::sqrt(double(encoding_dim_)));
  marks_.resize(batch, seq_len_);
  marked_start_.assign(batch + 1, 0);
  for (int b = 0; b < batch; ++b) {
    int count = 0;
    for (int t = 0; t < seq_len_; ++t) {
      marks_(b, t) = in.sample(b)(t, dim_) > T(0.5) ? T(1) : T(0);
      count += marks_(b, t) != 0;
    }
    marked_start_[b + 1] = marked_start_[b] + count;
  }
  marked_rows_.resize(marked_start_[batch], encoding_dim_);
  queries_.resize(batch, encoding_dim_);
  // 1. The marked encodings, and q = their sum.
  ParallelFor(ctx, batch, [&](int begin, int end) {
    for (int b = begin; b < end; ++b) {
      auto rows =
          marked_rows_.middleRows(marked_start_[b], marked_start_[b + 1] - marked_start_[b]);
      GaussianStream(StreamSeed(seed, 2 * int64_t(b))).Fill(rows.data(), rows.size(), scale);
      queries_.row(b) = rows.colwise().sum();
    }
  });
  // 2. u = W q for the whole batch.
  keys_dir_.resize(batch, encoding_dim_);
  Product(queries_, w_.value.transpose(), keys_dir_, /*accumulate=*/false);
  // 3. Scores, attention, output, and the gradient's orthogonal normal.
  scores_.resize(batch, seq_len_);
  noise_.resize(batch, encoding_dim_);
  probs_.Resize({batch, 1, seq_len_});
  map_state_.resize(batch, map_->RowStateSize());
  out->Resize({batch, 1, dim_});
  ParallelFor(ctx, batch, [&](int begin, int end) {
    Eigen::Matrix<T, 1, Eigen::Dynamic> xi(seq_len_);
    for (int b = begin; b < end; ++b) {
      GaussianStream stream(StreamSeed(seed, 2 * int64_t(b) + 1));
      stream.Fill(xi.data(), seq_len_);
      const auto u = keys_dir_.row(b);
      const T u_norm = u.norm();
      auto s = scores_.row(b);
      int marked = marked_start_[b];
      for (int t = 0; t < seq_len_; ++t) {
        s[t] = marks_(b, t) != 0 ? marked_rows_.row(marked++).dot(u) : xi[t] * u_norm * scale;
      }
      auto a = probs_.sample(b);
      a = s;
      map_->Map(a, map_state_.row(b));
      WeightedTokens(a, in.sample(b), dim_, out->sample(b));
      auto z = noise_.row(b);
      stream.Fill(z.data(), encoding_dim_, scale);
      if (u_norm > 0) z -= (z.dot(u) / (u_norm * u_norm)) * u;
    }
  });
}

template <typename T>
void SparseSelectAttention<T>::BackwardProjected(const Tensor<T>& grad_out, Tensor<T>* grad_in,
                                                 ExecContext& ctx) {
  const Tensor<T>& in = *input_;
  const int batch = in.batch();
  grad_scores_.resize(batch, seq_len_);
  r_.resize(batch, encoding_dim_);
  if (grad_in != nullptr) grad_in->Resize(in.shape());
  ParallelFor(ctx, batch, [&](int begin, int end) {
    for (int b = begin; b < end; ++b) {
      const auto g = grad_out.sample(b);
      const auto x = in.sample(b);
      const auto a = probs_.sample(b);
      auto ds = grad_scores_.row(b);
      TokenGradientDots(x, dim_, g, ds);
      map_->MapBackward(a, map_state_.row(b), ds);
      // r = sum_i ds_i p_i: marked rows exactly; unmarked ones through their distribution
      // given the scores (see sparse_select.proto).
      const auto u = keys_dir_.row(b);
      const T u_norm2 = u.squaredNorm();
      auto r = r_.row(b);
      r.setZero();
      T along_u = 0, spread = 0;
      int marked = marked_start_[b];
      for (int t = 0; t < seq_len_; ++t) {
        if (marks_(b, t) != 0) {
          r += ds[t] * marked_rows_.row(marked++);
        } else {
          along_u += ds[t] * scores_(b, t);
          spread += ds[t] * ds[t];
        }
      }
      if (u_norm2 > 0) r += (along_u / u_norm2) * u;
      r += std::sqrt(spread) * noise_.row(b);
      if (grad_in != nullptr) {
        auto dx = grad_in->sample(b);
        TokenGradients(a, g, dim_, dx);
        dx.col(dim_).setZero();
      }
    }
  });
  Product(r_.transpose(), queries_, w_.grad, /*accumulate=*/false);
}

template <typename T>
void SparseSelectAttention<T>::ReshapeNormalDraws(T* rows, int count) const {
  const int dim = encoding_dim_;
  switch (config_.distribution()) {
    case Config::SPHERE:  // a normal vector's direction is uniform on the sphere
      for (int i = 0; i < count; ++i) {
        Eigen::Map<Eigen::Matrix<T, 1, Eigen::Dynamic>> row(rows + int64_t(i) * dim, dim);
        row /= row.norm();
      }
      return;
    case Config::RADEMACHER: {  // a normal's sign is a fair coin
      const T size = static_cast<T>(1 / std::sqrt(double(dim)));
      for (int64_t k = 0; k < int64_t(count) * dim; ++k) rows[k] = rows[k] < 0 ? -size : size;
      return;
    }
    default:
      return;
  }
}

template <typename T>
void SparseSelectAttention<T>::SinusoidalEncodings(Matrix<T>* p) const {
  const double scale = std::sqrt(2.0 / encoding_dim_);
  for (int t = 0; t < p->rows(); ++t) {
    for (int k = 0; 2 * k < encoding_dim_; ++k) {
      const double angle = t / std::pow(10000.0, 2.0 * k / encoding_dim_);
      (*p)(t, 2 * k) = static_cast<T>(scale * std::sin(angle));
      (*p)(t, 2 * k + 1) = static_cast<T>(scale * std::cos(angle));
    }
  }
}

template class SparseSelectAttention<float>;
template class SparseSelectAttention<double>;

// (sampler: PROJECTED is not among the examples: its weight gradient is a draw from the exact
// distribution, not the derivative of one draw of the forward pass, so finite differences do
// not apply; sparse_select_attention_test checks its moments against FULL instead.)
ATTNLAB_REGISTER_LAYER("sparse_select", plugins::SparseSelectConfig, SparseSelectAttention,
                       "paper 3's f(X, y) = sum_i softmax_i(p_i^T W sum_{j in y} p_j) x_i with "
                       "stochastic, fixed, learned or sinusoidal positional encodings",
                       {"encoding_dim: 6 w { init: NORMAL std: 0.5 }",
                        "encoding_dim: 6 distribution: SPHERE w { init: NORMAL std: 0.5 }",
                        "encoding_dim: 6 positional: FIXED max_len: 8 w { init: NORMAL std: 0.5 }",
                        "encoding_dim: 4 positional: LEARNED distribution: RADEMACHER "
                        "w { init: NORMAL std: 0.5 }",
                        "encoding_dim: 4 positional: SINUSOIDAL max_len: 8 "
                        "w { init: NORMAL std: 0.5 }",
                        // W frozen: the input gradient is exact; W's is another sampler's draw
                        // (sparse_select_attention_test checks it in distribution).
                        "encoding_dim: 5 sampler: PROJECTED w { init: NORMAL std: 0.7 frozen: "
                        "true }"});
ATTNLAB_PLUGIN_USES("layer", "sparse_select", "mechanism/softmax");  // its default mechanism

}  // namespace attnlab

// Penalties on query-key matrices (config: regularizers.proto), each with its exact gradient.
#include <cmath>

#include "absl/status/statusor.h"
#include "attention/base/field_error.h"
#include "attention/plugin_registry.h"
#include "plugins/regularizers/qk_penalties/qk_penalties.pb.h"

namespace attnlab {
namespace {

// Shared by all: the checked lambda.
template <typename T>
class WeightedPenalty : public Regularizer<T> {
 public:
  explicit WeightedPenalty(double lambda) : lambda_(static_cast<T>(lambda)) {}

 protected:
  T lambda_;
};

template <typename P>
absl::StatusOr<std::unique_ptr<P>> CreateWeighted(const plugins::RegularizerConfig& config) {
  if (!(config.lambda() >= 0)) return FieldError("lambda", "must be >= 0");
  return std::make_unique<P>(config.lambda());
}

template <typename T>
class Locater : public WeightedPenalty<T> {
 public:
  using WeightedPenalty<T>::WeightedPenalty;
  static absl::StatusOr<std::unique_ptr<Locater<T>>> Create(const plugins::RegularizerConfig& c) {
    return CreateWeighted<Locater<T>>(c);
  }
  // ||W - mI||^2 with m = tr(W)/d: the projection onto traceless matrices is orthogonal, so the
  // gradient is 2 lambda (W - mI).
  T Penalty(const Matrix<T>& w, Matrix<T>* grad) const override {
    const T mean = w.trace() / static_cast<T>(w.rows());
    Matrix<T> traceless = w;
    traceless.diagonal().array() -= mean;
    *grad = (2 * this->lambda_) * traceless;
    return this->lambda_ * traceless.squaredNorm();
  }
};

// A scale-free reading of LocAteR: ||W - mI||^2 / ||W||^2 = 1 - d m^2 / ||W||^2 is invariant to
// W -> cW, so, unlike locater, it cannot be lowered by shrinking W_QK; it is lowered by growing
// |m| against ||W||, which moves the mean (locater_anchored holds it).
// With V = ||W - mI||^2 and F = ||W||^2: grad = 2 lambda ((W - mI) / F - V W / F^2).
template <typename T>
class LocaterScaleFree : public WeightedPenalty<T> {
 public:
  using WeightedPenalty<T>::WeightedPenalty;
  static absl::StatusOr<std::unique_ptr<LocaterScaleFree<T>>> Create(
      const plugins::RegularizerConfig& c) {
    return CreateWeighted<LocaterScaleFree<T>>(c);
  }
  T Penalty(const Matrix<T>& w, Matrix<T>* grad) const override {
    const T squared_norm = w.squaredNorm();
    if (squared_norm == 0) {  // W = 0: no scale to be free of
      grad->setZero(w.rows(), w.cols());
      return 0;
    }
    const T mean = w.trace() / static_cast<T>(w.rows());
    Matrix<T> traceless = w;
    traceless.diagonal().array() -= mean;
    const T spread = traceless.squaredNorm();
    *grad = (2 * this->lambda_ / squared_norm) * (traceless - (spread / squared_norm) * w);
    return this->lambda_ * spread / squared_norm;
  }
};

// ||W - aI||^2 with a fixed anchor a: the spread around the mean plus d (m - a)^2, so the
// penalty holds the eigenvalue mean at a while it shrinks the spread. Gradient 2 lambda (W - aI).
template <typename T>
class LocaterAnchored : public WeightedPenalty<T> {
 public:
  LocaterAnchored(double lambda, double mean)
      : WeightedPenalty<T>(lambda), mean_(static_cast<T>(mean)) {}
  static absl::StatusOr<std::unique_ptr<LocaterAnchored<T>>> Create(
      const plugins::AnchoredLocaterConfig& c) {
    if (!(c.lambda() >= 0)) return FieldError("lambda", "must be >= 0");
    if (!c.has_mean()) {
      return FieldError("mean", "required: the eigenvalue mean the penalty keeps");
    }
    if (!std::isfinite(c.mean())) return FieldError("mean", "must be finite");
    return std::make_unique<LocaterAnchored<T>>(c.lambda(), c.mean());
  }
  T Penalty(const Matrix<T>& w, Matrix<T>* grad) const override {
    Matrix<T> offset = w;
    offset.diagonal().array() -= mean_;
    *grad = (2 * this->lambda_) * offset;
    return this->lambda_ * offset.squaredNorm();
  }

 private:
  T mean_;
};

template <typename T>
class Frobenius : public WeightedPenalty<T> {
 public:
  using WeightedPenalty<T>::WeightedPenalty;
  static absl::StatusOr<std::unique_ptr<Frobenius<T>>> Create(const plugins::RegularizerConfig& c) {
    return CreateWeighted<Frobenius<T>>(c);
  }
  T Penalty(const Matrix<T>& w, Matrix<T>* grad) const override {
    *grad = (2 * this->lambda_) * w;
    return this->lambda_ * w.squaredNorm();
  }
};

template <typename T>
class TraceVariance : public WeightedPenalty<T> {
 public:
  using WeightedPenalty<T>::WeightedPenalty;
  static absl::StatusOr<std::unique_ptr<TraceVariance<T>>> Create(
      const plugins::RegularizerConfig& c) {
    return CreateWeighted<TraceVariance<T>>(c);
  }
  // d tr(W^2) = 2 W^T, d tr(W)^2 = 2 tr(W) I.
  T Penalty(const Matrix<T>& w, Matrix<T>* grad) const override {
    const T d = static_cast<T>(w.rows());
    const T trace = w.trace();
    const T trace_of_square = w.cwiseProduct(w.transpose()).sum();
    *grad = (2 * this->lambda_ / d) * w.transpose();
    grad->diagonal().array() -= 2 * this->lambda_ * trace / (d * d);
    return this->lambda_ * (trace_of_square / d - (trace / d) * (trace / d));
  }
};

}  // namespace

ATTNLAB_REGISTER_REGULARIZER("locater", plugins::RegularizerConfig, Locater,
                             "lambda ||W_QK - (tr W_QK / d) I||_F^2 (LocAteR, our reading)");
ATTNLAB_REGISTER_REGULARIZER(
    "locater_scale_free", plugins::RegularizerConfig, LocaterScaleFree,
    "lambda ||W_QK - (tr W_QK / d) I||_F^2 / ||W_QK||_F^2 (LocAteR free of "
    "W_QK's scale: the spread relative to the norm)");
ATTNLAB_REGISTER_REGULARIZER("locater_anchored", plugins::AnchoredLocaterConfig, LocaterAnchored,
                             "lambda ||W_QK - mean I||_F^2 (LocAteR holding the eigenvalue mean at "
                             "a given value)");
ATTNLAB_REGISTER_REGULARIZER("frobenius", plugins::RegularizerConfig, Frobenius,
                             "lambda ||W_QK||_F^2");
ATTNLAB_REGISTER_REGULARIZER("trace_variance", plugins::RegularizerConfig, TraceVariance,
                             "lambda (tr(W_QK^2) / d - (tr W_QK / d)^2)");

}  // namespace attnlab

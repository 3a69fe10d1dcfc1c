// Losses. Margin losses take one score f per sample and a label y (targets [batch, 1, 1]) and
// are functions of the margin y*f; `squared` compares any prediction with a same-shaped target.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/loss.h"
#include "attention/plugin_registry.h"

namespace attnlab {
namespace {

absl::Status CheckScalarPerSample(const Shape& prediction, const Shape& target) {
  if (prediction.sample_size() != 1 || target.sample_size() != 1 ||
      prediction.batch != target.batch) {
    return absl::InvalidArgumentError(
        "a margin loss needs one score and one label per sample ([batch, 1, 1])");
  }
  return absl::OkStatus();
}

// A loss of the margin m = y*f: Margin()(m, &dl_dm) returns l(m) and sets dl/dm. Averaged over
// the batch.
template <typename T, typename Margin>
class MarginLoss : public Loss<T> {
 public:
  absl::Status Check(const Shape& p, const Shape& t) const override {
    return CheckScalarPerSample(p, t);
  }
  T Compute(const Tensor<T>& prediction, const Tensor<T>& target, Tensor<T>* grad,
            ExecContext&) override {
    const int n = prediction.batch();
    if (grad != nullptr) grad->Resize(prediction.shape());
    T total = 0;
    for (int i = 0; i < n; ++i) {
      const T y = target.data()[i];
      T dl_dm = 0;
      total += Margin()(y * prediction.data()[i], &dl_dm);
      if (grad != nullptr) grad->data()[i] = dl_dm * y / n;
    }
    return total / n;
  }
};

// log(1 + exp(-m)), computed as softplus(-m) so that large |m| neither overflows nor rounds to 0.
// One exponential serves the loss and its derivative.
struct Logistic {
  template <typename T>
  T operator()(T m, T* dl_dm) const {
    const T e = std::exp(-std::abs(m));
    *dl_dm = -(m >= 0 ? e : T(1)) / (1 + e);  // -sigmoid(-m)
    return std::max(-m, T(0)) + std::log1p(e);
  }
};

struct Correlation {
  template <typename T>
  T operator()(T m, T* dl_dm) const {
    *dl_dm = -1;
    return -m;
  }
};

struct Exponential {
  template <typename T>
  T operator()(T m, T* dl_dm) const {
    const T e = std::exp(-m);
    *dl_dm = -e;
    return e;
  }
};

template <typename T>
using LogisticLoss = MarginLoss<T, Logistic>;
template <typename T>
using CorrelationLoss = MarginLoss<T, Correlation>;
template <typename T>
using ExponentialLoss = MarginLoss<T, Exponential>;

// 1/2 ||f - y||^2 per sample, averaged over the batch.
template <typename T>
class SquaredLoss : public Loss<T> {
 public:
  absl::Status Check(const Shape& p, const Shape& t) const override {
    if (p != t) {
      return absl::InvalidArgumentError(
          absl::StrCat("squared loss needs targets shaped like the predictions"));
    }
    return absl::OkStatus();
  }
  T Compute(const Tensor<T>& p, const Tensor<T>& t, Tensor<T>* grad, ExecContext&) override {
    const T n = static_cast<T>(p.batch());
    if (grad != nullptr) {
      grad->Resize(p.shape());
      grad->flat() = (p.flat() - t.flat()) / n;
    }
    return static_cast<T>(0.5) * (p.flat() - t.flat()).squaredNorm() / n;
  }
};

}  // namespace

ATTNLAB_REGISTER_LOSS("logistic", LogisticLoss, "log(1 + exp(-y f)), mean over samples");
ATTNLAB_REGISTER_LOSS("correlation", CorrelationLoss, "-y f, mean over samples");
ATTNLAB_REGISTER_LOSS("exponential", ExponentialLoss, "exp(-y f), mean over samples");
ATTNLAB_REGISTER_LOSS("squared", SquaredLoss, "1/2 ||f - y||^2 per sample, mean over samples");

}  // namespace attnlab

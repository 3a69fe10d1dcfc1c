// `cross_entropy`: classification by softmax over the last axis. Predictions are logits
// [batch, rows, classes] and targets class ids [batch, rows, 1]; the loss is
// -log softmax(logits)[id] averaged over every row (a classifier's rows = 1).
#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/kernels/softmax.h"
#include "attention/loss.h"
#include "attention/plugin_registry.h"

namespace attnlab {
namespace {

template <typename T>
class CrossEntropyLoss : public Loss<T> {
 public:
  absl::Status Check(const Shape& p, const Shape& t) const override {
    if (t.batch != p.batch || t.rows != p.rows || t.cols != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("cross_entropy needs one class id per row of logits: targets [", p.batch,
                       ", ", p.rows, ", 1] for logits ", p.ToString(), ", got ", t.ToString()));
    }
    if (p.cols < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("cross_entropy needs logits over at least 2 classes, got ", p.ToString()));
    }
    return absl::OkStatus();
  }

  absl::Status Setup(const Shape& p, const Shape& t, ExecContext&) override {
    classes_ = p.cols;
    return Check(p, t);
  }

  absl::Status CheckTargetValues(const Tensor<T>& target) const override {
    for (Eigen::Index i = 0; i < target.size(); ++i) {
      const T id = target.data()[i];
      if (!(id >= 0 && id < classes_ && id == std::floor(id))) {
        return absl::InvalidArgumentError(
            absl::StrCat("cross_entropy: the data holds class ", id, ", outside 0..", classes_ - 1,
                         " (the model's last layer has ", classes_, " outputs)"));
      }
    }
    return absl::OkStatus();
  }

  T Compute(const Tensor<T>& prediction, const Tensor<T>& target, Tensor<T>* grad,
            ExecContext&) override {
    const Matrix<T>& logits = prediction.flat();
    const Eigen::Index n = logits.rows();
    T total = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const int id = static_cast<int>(target.data()[i]);
      total += LogSumExp(logits.row(i)) - logits(i, id);
    }
    if (grad != nullptr) {
      grad->Resize(prediction.shape());
      Matrix<T>& g = grad->flat();
      SoftmaxRows(logits, g);
      for (Eigen::Index i = 0; i < n; ++i) g(i, static_cast<int>(target.data()[i])) -= 1;
      g /= static_cast<T>(n);
    }
    return total / static_cast<T>(n);
  }

 private:
  int classes_ = 0;
};

}  // namespace

ATTNLAB_REGISTER_LOSS("cross_entropy", CrossEntropyLoss,
                      "-log softmax(logits)[class] per row, mean over rows (targets: class ids)");

}  // namespace attnlab

// The gradient checker must pass correct gradients and catch wrong ones.
#include "attention/gradient_check.h"

#include "gtest/gtest.h"

namespace attnlab {
namespace {

// y = x * W elementwise-squared: out = (x W)^2, with an optionally wrong backward: always, or
// only when no input gradient is asked for.
class SquaredLinear : public Layer<double> {
 public:
  explicit SquaredLinear(bool wrong, bool wrong_as_first_layer = false)
      : wrong_(wrong), wrong_as_first_layer_(wrong_as_first_layer) {}
  absl::StatusOr<Shape> Setup(const Shape& in, ExecContext& ctx) override {
    w_.name = "w";
    w_.value = Matrix<double>::Random(in.cols, 2);
    w_.grad.setZero(in.cols, 2);
    return Shape{in.batch, in.rows, 2};
  }
  absl::StatusOr<Shape> OutputShape(const Shape& in) const override {
    return Shape{in.batch, in.rows, 2};
  }
  void Forward(const Tensor<double>& in, Tensor<double>* out, ExecContext&) override {
    in_ = &in;
    pre_ = in.flat() * w_.value;
    out->Resize({in.batch(), in.rows(), 2});
    out->flat() = pre_.cwiseAbs2();
  }
  void Backward(const Tensor<double>& g, Tensor<double>* grad_in, ExecContext&) override {
    Matrix<double> d = 2 * g.flat().cwiseProduct(pre_);
    if (wrong_ || (wrong_as_first_layer_ && grad_in == nullptr)) d *= 1.01;
    w_.grad = in_->flat().transpose() * d;
    if (grad_in == nullptr) return;
    grad_in->Resize(in_->shape());
    grad_in->flat() = d * w_.value.transpose();
  }
  std::vector<Parameter<double>*> parameters() override { return {&w_}; }

 private:
  bool wrong_, wrong_as_first_layer_;
  Parameter<double> w_;
  const Tensor<double>* in_ = nullptr;
  Matrix<double> pre_;
};

Tensor<double> RandomInput() {
  Tensor<double> x({2, 3, 4});
  x.flat().setRandom();
  return x;
}

TEST(GradientCheckTest, AcceptsCorrectGradients) {
  SquaredLinear layer(false);
  ExecContext ctx(1);
  ASSERT_TRUE(layer.Setup({2, 3, 4}, ctx).ok());
  EXPECT_TRUE(CheckLayerGradients(layer, RandomInput()).ok());
}

TEST(GradientCheckTest, RejectsAOnePercentError) {
  SquaredLinear layer(true);
  ExecContext ctx(1);
  ASSERT_TRUE(layer.Setup({2, 3, 4}, ctx).ok());
  absl::Status status = CheckLayerGradients(layer, RandomInput());
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("gradient check failed"), std::string::npos);
}

TEST(GradientCheckTest, RejectsAnErrorOnlyInTheFirstLayerPath) {
  SquaredLinear layer(false, /*wrong_as_first_layer=*/true);
  ExecContext ctx(1);
  ASSERT_TRUE(layer.Setup({2, 3, 4}, ctx).ok());
  absl::Status status = CheckLayerGradients(layer, RandomInput());
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("no input gradient asked"), std::string::npos) << status;
}

}  // namespace
}  // namespace attnlab

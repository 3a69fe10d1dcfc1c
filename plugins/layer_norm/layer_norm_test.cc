#include "plugins/layer_norm/layer_norm.h"

#include <cmath>

#include "attention/gradient_check.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

std::unique_ptr<LayerNorm<double>> Make(const Shape& input) {
  auto layer = std::move(*LayerNorm<double>::Create({}));
  ExecContext ctx(1);
  EXPECT_TRUE(layer->Setup(input, ctx).ok());
  return layer;
}

TEST(LayerNormTest, ForwardByHand) {
  auto layer = Make({1, 1, 4});
  Tensor<double> x({1, 1, 4}), out;
  x.flat() << 1, 2, 3, 6;  // mean 3, variance (4 + 1 + 0 + 9) / 4 = 3.5
  ExecContext ctx(1);
  layer->Forward(x, &out, ctx);
  const double s = std::sqrt(3.5 + 1e-5);
  EXPECT_NEAR(out.data()[0], -2 / s, 1e-12);
  EXPECT_NEAR(out.data()[3], 3 / s, 1e-12);
  layer->parameters()[0]->value << 2, 2, 2, 2;  // gamma
  layer->parameters()[1]->value << 1, 1, 1, 1;  // beta
  layer->Forward(x, &out, ctx);
  EXPECT_NEAR(out.data()[1], 2 * -1 / s + 1, 1e-12);
}

TEST(LayerNormTest, GradientCheck) {
  auto layer = Make({3, 4, 5});
  for (Parameter<double>* p : layer->parameters()) p->value.setRandom();
  Tensor<double> x({3, 4, 5});
  x.flat().setRandom();
  absl::Status status = CheckLayerGradients(*layer, x);
  EXPECT_TRUE(status.ok()) << status;
}

}  // namespace
}  // namespace attnlab

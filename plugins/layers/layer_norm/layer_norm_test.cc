#include "plugins/layers/layer_norm/layer_norm.h"

#include <cmath>

#include "attention/gradient_check.h"
#include "gtest/gtest.h"
#include "tbb/task_arena.h"

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

// More rows than one block of the backward's partial sums: dgamma and dbeta are the column sums
// of dy .* normalized and dy, and 1 and 2 threads give the same bits, forward and backward.
TEST(LayerNormTest, ParameterGradientsOverManyBlocksAndThreads) {
  const Shape shape{7, 100, 6};  // 700 rows: blocks of 256, 256, 188
  auto layer = Make(shape);
  for (Parameter<double>* p : layer->parameters()) p->value.setRandom();
  Tensor<double> x(shape), grad_out(shape);
  x.flat().setRandom();
  grad_out.flat().setRandom();
  Matrix<double> gamma_grad[2], beta_grad[2], grad_in[2], output[2];
  for (int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    arena.execute([&] {
      ExecContext ctx(1, threads);
      Tensor<double> out, dx;
      layer->Forward(x, &out, ctx);
      layer->Backward(grad_out, &dx, ctx);
      gamma_grad[threads - 1] = layer->parameters()[0]->grad;
      beta_grad[threads - 1] = layer->parameters()[1]->grad;
      grad_in[threads - 1] = dx.flat();
      output[threads - 1] = out.flat();
      if (threads == 1) {
        // normalized = (out - beta) / gamma
        const Matrix<double> normalized =
            ((out.flat().rowwise() - layer->parameters()[1]->value.row(0)).array().rowwise() /
             layer->parameters()[0]->value.row(0).array())
                .matrix();
        const Matrix<double> want_gamma = grad_out.flat().cwiseProduct(normalized).colwise().sum();
        const Matrix<double> want_beta = grad_out.flat().colwise().sum();
        EXPECT_LE((gamma_grad[0] - want_gamma).cwiseAbs().maxCoeff(), 1e-10);
        EXPECT_LE((beta_grad[0] - want_beta).cwiseAbs().maxCoeff(), 1e-10);
      }
    });
  }
  EXPECT_EQ(gamma_grad[0], gamma_grad[1]);
  EXPECT_EQ(beta_grad[0], beta_grad[1]);
  EXPECT_EQ(grad_in[0], grad_in[1]);
  EXPECT_EQ(output[0], output[1]);
}

}  // namespace
}  // namespace attnlab

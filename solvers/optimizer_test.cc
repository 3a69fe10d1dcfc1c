#include "solvers/optimizer.h"

#include <cmath>
#include <random>
#include <vector>

#include "attention/base/field_error.h"
#include "gtest/gtest.h"
#include "solvers/schedule.h"
#include "tbb/task_arena.h"

namespace attnlab {
namespace {

Parameter<double> Param(std::initializer_list<double> value, std::initializer_list<double> grad) {
  Parameter<double> p;
  p.value.resize(value.size(), 1);
  p.grad.resize(grad.size(), 1);
  int i = 0;
  for (double v : value) p.value(i++, 0) = v;
  i = 0;
  for (double g : grad) p.grad(i++, 0) = g;
  return p;
}

ExecContext& OneThread() {
  static ExecContext ctx(1);
  return ctx;
}

std::unique_ptr<Optimizer<double>> Make(const OptimizerSpec& spec) {
  auto optimizer = CreateOptimizer<double>(spec);
  EXPECT_TRUE(optimizer.ok()) << optimizer.status();
  return std::move(*optimizer);
}

TEST(OptimizerTest, GradientDescent) {
  OptimizerSpec spec;
  spec.mutable_gd();
  spec.set_lr(0.5);
  Parameter<double> p = Param({1, 2}, {2, -2});
  Make(spec)->Step({&p}, 0, OneThread());
  EXPECT_DOUBLE_EQ(p.value(0, 0), 0.0);
  EXPECT_DOUBLE_EQ(p.value(1, 0), 3.0);
}

TEST(OptimizerTest, NormalizedPerParameterAndGlobal) {
  OptimizerSpec spec;
  spec.mutable_normalized_gd();
  spec.set_lr(1);
  Parameter<double> a = Param({0, 0}, {3, 4}), b = Param({0}, {-10});
  Make(spec)->Step({&a, &b}, 0, OneThread());
  EXPECT_NEAR(a.value(0, 0), -0.6, 1e-12);
  EXPECT_NEAR(a.value(1, 0), -0.8, 1e-12);
  EXPECT_NEAR(b.value(0, 0), 1.0, 1e-12);  // each parameter moves by exactly lr

  spec.mutable_normalized_gd()->set_normalization(NormalizedGradientDescent::GLOBAL);
  a = Param({0, 0}, {3, 4});
  b = Param({0}, {0});
  Make(spec)->Step({&a, &b}, 0, OneThread());
  EXPECT_NEAR(a.value(1, 0), -0.8, 1e-12);
  EXPECT_EQ(b.value(0, 0), 0.0);
}

TEST(OptimizerTest, FrozenParametersStay) {
  OptimizerSpec spec;
  spec.mutable_gd();
  spec.set_lr(1);
  Parameter<double> p = Param({1}, {1});
  p.frozen = true;
  Make(spec)->Step({&p}, 0, OneThread());
  EXPECT_EQ(p.value(0, 0), 1.0);
}

TEST(OptimizerTest, MomentumAndNesterovByHand) {
  OptimizerSpec spec;
  spec.mutable_sgd()->set_momentum(0.5);
  spec.set_lr(0.1);
  auto heavy_ball = Make(spec);
  Parameter<double> p = Param({0}, {1});
  heavy_ball->Step({&p}, 0, OneThread());  // v = 1, x = -0.1
  heavy_ball->Step({&p}, 1, OneThread());  // v = 1.5, x = -0.25
  EXPECT_NEAR(p.value(0, 0), -0.25, 1e-15);

  spec.mutable_sgd()->set_nesterov(true);
  auto nesterov = Make(spec);
  p = Param({0}, {1});
  nesterov->Step({&p}, 0, OneThread());  // v = 1, x -= 0.1 * (1 + 0.5)
  EXPECT_NEAR(p.value(0, 0), -0.15, 1e-15);
}

TEST(OptimizerTest, AdamFirstStepIsLrTimesSign) {
  OptimizerSpec spec;
  spec.mutable_adam();
  spec.set_lr(0.01);
  Parameter<double> p = Param({1, 1}, {1e-3, -50});
  Make(spec)->Step({&p}, 0, OneThread());
  EXPECT_NEAR(p.value(0, 0), 1 - 0.01, 1e-7);
  EXPECT_NEAR(p.value(1, 0), 1 + 0.01, 1e-7);
}

TEST(OptimizerTest, AdamWDecaysDecoupled) {
  OptimizerSpec spec;
  spec.mutable_adamw()->set_weight_decay(0.1);
  spec.set_lr(0.5);
  Parameter<double> p = Param({2}, {0});
  Make(spec)->Step({&p}, 0, OneThread());
  EXPECT_NEAR(p.value(0, 0), 2 * (1 - 0.05), 1e-12);  // zero gradient: only the decay acts
}

// The updates are element-wise, in blocks split over the threads: two threads must give the
// bits one gives, for parameters of one block and of many blocks with a partial last one.
TEST(OptimizerTest, ThreadsGiveEqualBits) {
  OptimizerSpec adamw, nesterov;
  adamw.mutable_adamw()->set_weight_decay(0.01);
  adamw.set_lr(1e-3);
  nesterov.mutable_sgd()->set_momentum(0.9);
  nesterov.mutable_sgd()->set_nesterov(true);
  nesterov.mutable_sgd()->set_weight_decay(1e-4);
  nesterov.set_lr(0.1);
  for (const OptimizerSpec& spec : {adamw, nesterov}) {
    std::vector<Parameter<double>> start, runs[2];
    std::mt19937_64 rng(7);
    std::normal_distribution<double> normal;
    for (Eigen::Index size : {Eigen::Index{5}, Eigen::Index{1024} * 70 + 3}) {
      Parameter<double> p;
      p.value = Matrix<double>::NullaryExpr(size, 1, [&] { return normal(rng); });
      p.grad = Matrix<double>::NullaryExpr(size, 1, [&] { return normal(rng); });
      start.push_back(p);
    }
    for (int threads = 1; threads <= 2; ++threads) {
      std::vector<Parameter<double>>& params = runs[threads - 1];
      params = start;
      std::vector<Parameter<double>*> pointers = {&params[0], &params[1]};
      ExecContext ctx(1, threads);
      tbb::task_arena arena(threads);
      auto optimizer = Make(spec);
      arena.execute([&] {
        for (int step = 0; step < 3; ++step) optimizer->Step(pointers, step, ctx);
      });
    }
    for (int i = 0; i < 2; ++i) {
      EXPECT_TRUE(runs[0][i].value != start[i].value) << spec.ShortDebugString() << " " << i;
      EXPECT_TRUE(runs[0][i].value == runs[1][i].value) << spec.ShortDebugString() << " " << i;
    }
  }
}

TEST(ScheduleTest, StepCosineAndWarmup) {
  ScheduleSpec step;
  step.mutable_step()->add_at_step(50000);
  step.mutable_step()->set_factor(1.0 / 3);
  EXPECT_EQ(ScheduleFactor(step, 49999), 1.0);
  EXPECT_NEAR(ScheduleFactor(step, 50000), 1.0 / 3, 1e-15);

  ScheduleSpec cosine;
  cosine.mutable_cosine()->set_total_steps(100);
  cosine.mutable_cosine()->set_min_factor(0.1);
  EXPECT_NEAR(ScheduleFactor(cosine, 0), 1.0, 1e-15);
  EXPECT_NEAR(ScheduleFactor(cosine, 50), 0.55, 1e-15);
  EXPECT_NEAR(ScheduleFactor(cosine, 100), 0.1, 1e-15);

  ScheduleSpec warmup;
  warmup.set_warmup_steps(4);
  EXPECT_NEAR(ScheduleFactor(warmup, 0), 0.25, 1e-15);
  EXPECT_NEAR(ScheduleFactor(warmup, 4), 1.0, 1e-15);
}

TEST(OptimizerTest, ErrorsNameTheField) {
  OptimizerSpec spec;
  spec.set_lr(0.1);
  EXPECT_EQ(ErrorField(CreateOptimizer<double>(spec).status()), "method");
  spec.mutable_gd();
  spec.set_lr(0);
  EXPECT_EQ(ErrorField(CreateOptimizer<double>(spec).status()), "lr");
  spec.set_lr(1);
  spec.mutable_schedule()->mutable_step()->set_factor(0.5);
  EXPECT_EQ(ErrorField(CreateOptimizer<float>(spec).status()), "schedule.step.at_step");
  spec.clear_schedule();
  spec.mutable_adam()->set_beta2(1.0);
  EXPECT_EQ(ErrorField(CreateOptimizer<float>(spec).status()), "adam.beta2");
}

}  // namespace
}  // namespace attnlab

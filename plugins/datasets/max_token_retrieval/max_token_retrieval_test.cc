#include "plugins/datasets/max_token_retrieval/max_token_retrieval.h"

#include "gtest/gtest.h"

namespace attnlab {
namespace {

std::unique_ptr<MaxTokenRetrieval<double>> Make(int seq_len, int dim, int validation_size,
                                                uint64_t seed) {
  plugins::MaxTokenRetrievalConfig config;
  config.set_seq_len(seq_len);
  config.set_dim(dim);
  config.set_validation_size(validation_size);
  auto made = MaxTokenRetrieval<double>::Create(config);
  EXPECT_TRUE(made.ok()) << made.status();
  EXPECT_TRUE((*made)->Setup({"", seed}).ok());
  return std::move(*made);
}

// Each target is the token with the largest <x_t, u>, checked against every other token.
TEST(MaxTokenRetrievalTest, TargetsAreTheHighestScoringTokens) {
  auto data = Make(7, 4, 0, 3);
  EXPECT_NEAR(data->direction().norm(), 1, 1e-12);
  ExecContext ctx(11);
  Batch<double> batch;
  data->Next(50, ctx, &batch);
  ASSERT_EQ(batch.inputs.shape(), (Shape{50, 7, 4}));
  ASSERT_EQ(batch.targets.shape(), (Shape{50, 1, 4}));
  for (int b = 0; b < 50; ++b) {
    const double target_score = batch.targets.sample(b).row(0).dot(data->direction().transpose());
    bool found = false;
    for (int t = 0; t < 7; ++t) {
      const auto token = batch.inputs.sample(b).row(t);
      EXPECT_LE(token.dot(data->direction().transpose()), target_score);
      found = found || (token - batch.targets.sample(b).row(0)).norm() == 0;
    }
    EXPECT_TRUE(found) << "sample " << b << "'s target is none of its tokens";
  }
}

// By hand, d = 1: u = +-1, so the target is the largest (or smallest) of the T numbers.
TEST(MaxTokenRetrievalTest, OneDimensionByHand) {
  auto data = Make(3, 1, 0, 5);
  const double u = data->direction()(0);
  ASSERT_EQ(std::abs(u), 1);
  ExecContext ctx(2);
  Batch<double> batch;
  data->Next(10, ctx, &batch);
  for (int b = 0; b < 10; ++b) {
    const auto x = batch.inputs.sample(b).col(0);
    EXPECT_EQ(batch.targets.sample(b)(0, 0), u > 0 ? x.maxCoeff() : x.minCoeff());
  }
}

TEST(MaxTokenRetrievalTest, DrawsDependOnSeedsNotThreads) {
  auto data = Make(6, 3, 8, 1);
  Batch<double> one, two;
  ExecContext ctx1(9, 1), ctx2(9, 2);
  data->Next(33, ctx1, &one);
  data->Next(33, ctx2, &two);
  EXPECT_EQ(one.inputs.flat(), two.inputs.flat());
  EXPECT_EQ(one.targets.flat(), two.targets.flat());
  // The validation set and u come from the dataset's seed alone.
  auto again = Make(6, 3, 8, 1), other = Make(6, 3, 8, 2);
  ASSERT_EQ(data->validation().size(), 1u);
  EXPECT_EQ(data->validation()[0].name, "test");
  EXPECT_EQ(data->validation()[0].batch.inputs.flat(), again->validation()[0].batch.inputs.flat());
  EXPECT_NE(data->direction(), other->direction());
}

TEST(MaxTokenRetrievalTest, ConfigErrorsNameTheField) {
  plugins::MaxTokenRetrievalConfig config;
  config.set_dim(2);
  EXPECT_EQ(MaxTokenRetrieval<double>::Create(config).status().message(), "seq_len: must be > 0");
  config.set_seq_len(3);
  config.set_validation_size(-1);
  EXPECT_EQ(MaxTokenRetrieval<double>::Create(config).status().message(),
            "validation_size: must be >= 0");
}

}  // namespace
}  // namespace attnlab

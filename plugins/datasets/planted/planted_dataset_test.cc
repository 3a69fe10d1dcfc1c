#include "plugins/datasets/planted/planted_dataset.h"

#include <set>

#include "attention/base/field_error.h"
#include "datasets/dataset_testing.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

const char kPlanted[] = R"pb(
  num_sequences: 400 seq_len: 7 dim: 3 noise_std: 0.2 score_coordinate: 2
  group { first: 0 count: 1 shift: [ 1, 0, 0 ] score: 1 }
  group { first: 1 count: 3 shift: [ -1, 1, 0 ] score: 0.5 }
  group { first: 4 count: 3 shift: [ -0.5, -0.5, 0 ] score: 0.5 })pb";

TEST(PlantedDatasetTest, PlantsGroupsAndScores) {
  auto dataset = MakeDataset<double>("planted", kPlanted, /*seed=*/5);
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  const Tensor<double>& x = (*dataset)->train()->inputs;
  EXPECT_EQ(x.shape(), (Shape{400, 7, 3}));
  Eigen::RowVector3d mean0 = Eigen::RowVector3d::Zero(), mean5 = Eigen::RowVector3d::Zero();
  for (int i = 0; i < 400; ++i) {
    EXPECT_EQ(x.sample(i)(0, 2), 1.0);
    EXPECT_EQ(x.sample(i)(3, 2), 0.5);
    mean0 += x.sample(i).row(0) / 400;
    mean5 += x.sample(i).row(5) / 400;
  }
  EXPECT_NEAR(mean0[0], 1, 0.04);  // 4 standard errors of 0.2/sqrt(400)
  EXPECT_NEAR(mean0[1], 0, 0.04);
  EXPECT_NEAR(mean5[1], -0.5, 0.04);
  EXPECT_EQ((*dataset)->train()->targets.flat().sum(), 400.0);
}

TEST(PlantedDatasetTest, TheDataSeedDecides) {
  auto a = MakeDataset<double>("planted", kPlanted, 5);
  auto b = MakeDataset<double>("planted", kPlanted, 5);
  auto c = MakeDataset<double>("planted", kPlanted, 6);
  EXPECT_EQ((*a)->train()->inputs.flat(), (*b)->train()->inputs.flat());
  EXPECT_NE((*a)->train()->inputs.flat(), (*c)->train()->inputs.flat());
}

// The W-parametrization's data: a query row before the tokens, every row on the unit sphere,
// random labels.
TEST(PlantedDatasetTest, QueryRowsUnitNormAndRandomLabels) {
  const std::string text = std::string(kPlanted) + " query_row: true unit_norm: true "
                                                   "random_labels: true";
  auto dataset = MakeDataset<double>("planted", text, 5);
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  const Tensor<double>& x = (*dataset)->train()->inputs;
  EXPECT_EQ(x.shape(), (Shape{400, 8, 3}));
  int positive = 0;
  for (int i = 0; i < 400; ++i) {
    for (int t = 0; t < 8; ++t) EXPECT_NEAR(x.sample(i).row(t).norm(), 1, 1e-12);
    // Row 1 is token 0: its shift (1, 0, 0) and score 1, scaled to norm 1.
    EXPECT_GT(x.sample(i)(1, 0), 0.4);
    const double label = (*dataset)->train()->targets.data()[i];
    EXPECT_TRUE(label == 1 || label == -1);
    positive += label > 0;
  }
  EXPECT_NEAR(positive, 200, 40);  // 4 standard deviations of Binomial(400, 1/2)
  EXPECT_EQ(ErrorField(MakeDataset<double>("planted", text + " label: 1", 5).status()),
            "config.random_labels");
}

TEST(PlantedDatasetTest, BadGroupsNameTheField) {
  EXPECT_EQ(ErrorField(MakeDataset<double>("planted", std::string(kPlanted) +
                                                          " group { first: 5 count: 4 }")
                           .status()),
            "config.group[3]");
  EXPECT_EQ(ErrorField(MakeDataset<double>("planted", std::string(kPlanted) +
                                                          " group { first: 0 count: 1 shift: 1 }")
                           .status()),
            "config.group[3].shift");
}

TEST(PlantedDatasetTest, MinibatchesAreSubsetsWithoutReplacement) {
  auto dataset = MakeDataset<double>("planted", kPlanted, 5);
  ExecContext ctx(3);
  Batch<double> batch;
  (*dataset)->Next(50, ctx, &batch);
  EXPECT_EQ(batch.inputs.shape(), (Shape{50, 7, 3}));
  std::set<double> firsts;  // a noisy coordinate identifies the sample
  for (int i = 0; i < 50; ++i) firsts.insert(batch.inputs.sample(i)(0, 0));
  EXPECT_EQ(firsts.size(), 50u);
}

}  // namespace
}  // namespace attnlab

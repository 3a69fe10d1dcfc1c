#include "plugins/datasets/sequences/sequences_dataset.h"

#include "attention/base/field_error.h"
#include "datasets/dataset_testing.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(SequencesDatasetTest, ReadsTokensAndLabels) {
  auto dataset = MakeDataset<double>("sequences", R"pb(
    sequence { token { x: [ 1, 2 ] } token { x: [ 3, 4 ] } }
    sequence { label: -1 token { x: [ 5, 6 ] } token { x: [ 7, 8 ] } })pb");
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  const Batch<double>& train = *(*dataset)->train();
  EXPECT_EQ(train.inputs.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(train.inputs.sample(1)(0, 1), 6.0);
  EXPECT_EQ(train.targets.data()[0], 1.0);  // absent label: +1
  EXPECT_EQ(train.targets.data()[1], -1.0);
}

TEST(SequencesDatasetTest, RaggedInputNamesTheField) {
  auto dataset = MakeDataset<float>("sequences", R"pb(
    sequence { token { x: [ 1, 2 ] } token { x: [ 3, 4 ] } }
    sequence { token { x: [ 5, 6 ] } token { x: [ 7 ] } })pb");
  EXPECT_EQ(ErrorField(dataset.status()), "config.sequence[1].token[1].x");
  EXPECT_EQ(ErrorField(MakeDataset<float>("sequences", "").status()), "config.sequence");
}

}  // namespace
}  // namespace attnlab

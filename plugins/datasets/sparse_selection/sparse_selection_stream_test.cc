#include "plugins/datasets/sparse_selection/sparse_selection_stream.h"

#include "attention/base/field_error.h"
#include "datasets/dataset_testing.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

const char kSts[] = "seq_len: 50 q: 3 dim: 5 validation_size: 16 validation_seq_len: [ 50, 100 ]";

TEST(SparseSelectionTest, BatchesMarkYAndAverageIt) {
  auto dataset = MakeDataset<double>("sparse_selection", kSts, 3);
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  EXPECT_EQ((*dataset)->train(), nullptr);  // a stream
  ExecContext ctx(1);
  Batch<double> batch;
  (*dataset)->Next(64, ctx, &batch);
  EXPECT_EQ(batch.inputs.shape(), (Shape{64, 50, 6}));
  EXPECT_EQ(batch.targets.shape(), (Shape{64, 1, 5}));
  double sum = 0, sum_sq = 0;
  for (int b = 0; b < 64; ++b) {
    auto x = batch.inputs.sample(b);
    EXPECT_EQ(x.col(5).sum(), 3.0);
    Eigen::RowVectorXd mean = Eigen::RowVectorXd::Zero(5);
    for (int t = 0; t < 50; ++t) {
      if (x(t, 5) == 1) mean += x.row(t).head(5) / 3;
    }
    EXPECT_LT((mean - batch.targets.sample(b)).norm(), 1e-12);
    sum += x.leftCols(5).sum();
    sum_sq += x.leftCols(5).squaredNorm();
  }
  const double n = 64 * 50 * 5;
  EXPECT_NEAR(sum / n, 0, 0.05);
  EXPECT_NEAR(sum_sq / n, 1, 0.05);
  EXPECT_EQ((*dataset)->marked_column(), 5);
}

TEST(SparseSelectionTest, FreshBatchesAndFixedValidationSets) {
  auto a = MakeDataset<float>("sparse_selection", kSts, 3);
  auto b = MakeDataset<float>("sparse_selection", kSts, 3);
  ExecContext ctx(1);
  Batch<float> first, second;
  (*a)->Next(8, ctx, &first);
  (*a)->Next(8, ctx, &second);
  EXPECT_NE(first.inputs.flat(), second.inputs.flat());
  const auto& validation = (*a)->validation();
  ASSERT_EQ(validation.size(), 2u);
  EXPECT_EQ(validation[1].name, "T100");
  EXPECT_EQ(validation[1].batch.inputs.shape(), (Shape{16, 100, 6}));
  EXPECT_EQ(validation[0].batch.inputs.flat(), (*b)->validation()[0].batch.inputs.flat());
}

TEST(SparseSelectionTest, BadSpecsNameTheField) {
  EXPECT_EQ(
      ErrorField(MakeDataset<double>("sparse_selection", "seq_len: 50 q: 51 dim: 5").status()),
      "config.q");
  EXPECT_EQ(ErrorField(MakeDataset<double>("sparse_selection",
                                           std::string(kSts) + " validation_seq_len: 100")
                           .status()),
            "config.validation_seq_len");
}

}  // namespace
}  // namespace attnlab

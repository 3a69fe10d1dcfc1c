#include "datasets/dataset.h"

#include <set>

#include "attention/base/field_error.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "tbb/task_arena.h"

namespace attnlab {
namespace {

DatasetSpec Parse(const std::string& text) {
  DatasetSpec spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &spec)) << text;
  return spec;
}

TEST(TokenSequencesTest, ReadsTokensAndLabels) {
  auto dataset = CreateDataset<double>(Parse(R"pb(
    sequences {
      sequence { token { x: [ 1, 2 ] } token { x: [ 3, 4 ] } }
      sequence { label: -1 token { x: [ 5, 6 ] } token { x: [ 7, 8 ] } }
    })pb"));
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  const Batch<double>& train = *(*dataset)->train();
  EXPECT_EQ(train.inputs.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(train.inputs.sample(1)(0, 1), 6.0);
  EXPECT_EQ(train.targets.data()[0], 1.0);  // absent label: +1
  EXPECT_EQ(train.targets.data()[1], -1.0);
}

TEST(TokenSequencesTest, RaggedInputNamesTheField) {
  auto dataset = CreateDataset<float>(Parse(R"pb(
    sequences {
      sequence { token { x: [ 1, 2 ] } token { x: [ 3, 4 ] } }
      sequence { token { x: [ 5, 6 ] } token { x: [ 7 ] } }
    })pb"));
  EXPECT_EQ(ErrorField(dataset.status()), "sequences.sequence[1].token[1].x");
  EXPECT_EQ(ErrorField(CreateDataset<float>(DatasetSpec()).status()), "source");
}

const char kPlanted[] = R"pb(
  seed: 5
  planted {
    num_sequences: 400 seq_len: 7 dim: 3 noise_std: 0.2 score_coordinate: 2
    group { first: 0 count: 1 shift: [ 1, 0, 0 ] score: 1 }
    group { first: 1 count: 3 shift: [ -1, 1, 0 ] score: 0.5 }
    group { first: 4 count: 3 shift: [ -0.5, -0.5, 0 ] score: 0.5 }
  })pb";

TEST(PlantedTokensTest, PlantsGroupsAndScores) {
  auto dataset = CreateDataset<double>(Parse(kPlanted));
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

TEST(PlantedTokensTest, TheDataSeedDecides) {
  auto a = CreateDataset<double>(Parse(kPlanted));
  auto b = CreateDataset<double>(Parse(kPlanted));
  DatasetSpec other = Parse(kPlanted);
  other.set_seed(6);
  auto c = CreateDataset<double>(other);
  EXPECT_EQ((*a)->train()->inputs.flat(), (*b)->train()->inputs.flat());
  EXPECT_NE((*a)->train()->inputs.flat(), (*c)->train()->inputs.flat());
}

// The W-parametrization's data: a query row before the tokens, every row on the unit sphere,
// random labels; the tokens of a spec without those options are drawn as before.
TEST(PlantedTokensTest, QueryRowsUnitNormAndRandomLabels) {
  DatasetSpec spec = Parse(kPlanted);
  spec.mutable_planted()->set_query_row(true);
  spec.mutable_planted()->set_unit_norm(true);
  spec.mutable_planted()->set_random_labels(true);
  auto dataset = CreateDataset<double>(spec);
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
  spec.mutable_planted()->add_label(1);
  EXPECT_EQ(ErrorField(CreateDataset<double>(spec).status()), "planted.random_labels");
}

TEST(PlantedTokensTest, BadGroupsNameTheField) {
  DatasetSpec spec = Parse(kPlanted);
  spec.mutable_planted()->mutable_group(2)->set_count(4);
  EXPECT_EQ(ErrorField(CreateDataset<double>(spec).status()), "planted.group[2]");
  spec = Parse(kPlanted);
  spec.mutable_planted()->mutable_group(1)->add_shift(0);
  EXPECT_EQ(ErrorField(CreateDataset<double>(spec).status()), "planted.group[1].shift");
}

TEST(DatasetTest, MinibatchesAreSubsetsWithoutReplacement) {
  auto dataset = CreateDataset<double>(Parse(kPlanted));
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

namespace attnlab {
namespace {

const char kSts[] = R"pb(
  seed: 3
  sparse_selection {
    seq_len: 50 q: 3 dim: 5 validation_size: 16 validation_seq_len: [ 50, 100 ]
  })pb";

TEST(SparseSelectionTest, BatchesMarkYAndAverageIt) {
  auto dataset = CreateDataset<double>(Parse(kSts));
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
}

TEST(SparseSelectionTest, FreshBatchesAndFixedValidationSets) {
  auto a = CreateDataset<float>(Parse(kSts));
  auto b = CreateDataset<float>(Parse(kSts));
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

// Samples are drawn (a stream) or copied (a fixed set) on the context's threads: two threads
// must give the batch one gives.
TEST(DatasetTest, ThreadsGiveTheSameBatch) {
  for (const char* text : {kSts, kPlanted}) {
    auto dataset = CreateDataset<float>(Parse(text));
    ASSERT_TRUE(dataset.ok()) << dataset.status();
    Batch<float> batches[2];
    for (int threads = 1; threads <= 2; ++threads) {
      ExecContext ctx(5, threads);
      tbb::task_arena arena(threads);
      arena.execute([&] { (*dataset)->Next(200, ctx, &batches[threads - 1]); });
    }
    EXPECT_EQ(batches[0].inputs.flat(), batches[1].inputs.flat()) << text;
    EXPECT_EQ(batches[0].targets.flat(), batches[1].targets.flat()) << text;
  }
}

TEST(SparseSelectionTest, BadSpecsNameTheField) {
  DatasetSpec spec = Parse(kSts);
  spec.mutable_sparse_selection()->set_q(51);
  EXPECT_EQ(ErrorField(CreateDataset<double>(spec).status()), "sparse_selection.q");
  spec = Parse(kSts);
  spec.mutable_sparse_selection()->add_validation_seq_len(100);
  EXPECT_EQ(ErrorField(CreateDataset<double>(spec).status()),
            "sparse_selection.validation_seq_len");
}

}  // namespace
}  // namespace attnlab

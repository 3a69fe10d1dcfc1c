#include "datasets/shared_dataset.h"

#include "absl/strings/str_cat.h"
#include "datasets/dataset_testing.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

DatasetSpec Planted(int seed, int seq_len = 4) {
  absl::StatusOr<DatasetSpec> spec =
      DatasetSpecFor("planted",
                     absl::StrCat("num_sequences: 10 seq_len: ", seq_len,
                                  " dim: 3 group { first: 0 count: 1 shift: [1, 0, 0] score: 1 }"),
                     seed);
  EXPECT_TRUE(spec.ok()) << spec.status();
  return spec.value_or(DatasetSpec());
}

TEST(SharedDatasetTest, TrialsReadingTheSameDataShareOneDataset) {
  auto first = SharedDataset<double>(Planted(1));
  auto second = SharedDataset<double>(Planted(1));
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->get(), second->get());
  // Another seed, another base directory or another precision is other data.
  auto other_seed = SharedDataset<double>(Planted(2));
  auto other_dir = SharedDataset<double>(Planted(1), "elsewhere");
  auto in_float = SharedDataset<float>(Planted(1));
  ASSERT_TRUE(other_seed.ok() && other_dir.ok() && in_float.ok());
  EXPECT_NE(first->get(), other_seed->get());
  EXPECT_NE(first->get(), other_dir->get());
  EXPECT_EQ((*first)->train()->inputs.shape(), (Shape{10, 4, 3}));
}

TEST(SharedDatasetTest, DataNoTrialHoldsIsBuiltAgain) {
  std::weak_ptr<const Dataset<double>> released;
  {
    auto dataset = SharedDataset<double>(Planted(3));
    ASSERT_TRUE(dataset.ok());
    released = *dataset;
  }
  EXPECT_TRUE(released.expired());
  auto again = SharedDataset<double>(Planted(3));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->train()->inputs.shape(), (Shape{10, 4, 3}));
}

TEST(SharedDatasetTest, ABadSpecGivesCreateDatasetsError) {
  DatasetSpec spec = Planted(1, /*seq_len=*/0);
  auto dataset = SharedDataset<double>(spec);
  ASSERT_FALSE(dataset.ok());
  EXPECT_EQ(dataset.status(), CreateDataset<double>(spec).status());
}

}  // namespace
}  // namespace attnlab

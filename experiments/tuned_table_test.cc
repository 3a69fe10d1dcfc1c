#include "experiments/tuned_table.h"

#include <tuple>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

// Trials of (model, lr, seed) with their final error and parameter count.
ExperimentResult Result(const std::vector<std::tuple<std::string, std::string, int, double>>& rows,
                        bool with_lr = true) {
  ExperimentResult result;
  result.metric_names = {"err", "params"};
  for (const auto& [model, lr, seed, err] : rows) {
    Trial trial;
    trial.id = model + lr + std::to_string(seed);
    trial.labels = {{"model", model}};
    if (with_lr) trial.labels.push_back({"lr", lr});
    trial.labels.push_back({"seed", std::to_string(seed)});
    TrialResult done;
    done.points = {{10, "err", err}, {10, "params", model == "fc m=2" ? 20.0 : 10.0}};
    result.trials.push_back(trial);
    result.results.push_back(done);
    result.errors.emplace_back();
  }
  return result;
}

TEST(TunedTableTest, EachModelAtItsBestRateBesideTheReferences) {
  // fc m=1: lr a has mean 0.5, lr b mean 0.3 (best); fc m=2: a 0.2 (best), b 0.4.
  const ExperimentResult tuned = Result({{"fc m=1", "a", 0, 0.4},
                                         {"fc m=1", "a", 1, 0.6},
                                         {"fc m=1", "b", 0, 0.2},
                                         {"fc m=1", "b", 1, 0.4},
                                         {"fc m=2", "a", 0, 0.2},
                                         {"fc m=2", "a", 1, 0.2},
                                         {"fc m=2", "b", 0, 0.4},
                                         {"fc m=2", "b", 1, 0.4}});
  // The references: predicting 0 (0.8) and fc m=1's untuned trials, which are left out.
  const ExperimentResult references =
      Result({{"zero", "", 0, 0.8}, {"zero", "", 1, 0.8}, {"fc m=1", "", 0, 0.9}}, false);
  absl::StatusOr<std::vector<TunedRow>> rows =
      TunedRows(tuned, references, "model", "lr", "err", "params");
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[0].model, "fc m=1");
  EXPECT_EQ((*rows)[0].best, "b");
  EXPECT_EQ((*rows)[0].tried, 2);
  EXPECT_DOUBLE_EQ((*rows)[0].mean, 0.3);
  EXPECT_EQ((*rows)[1].best, "a");
  EXPECT_DOUBLE_EQ((*rows)[1].params, 20);
  EXPECT_EQ((*rows)[2].model, "zero");
  EXPECT_EQ((*rows)[2].best, "");
  EXPECT_EQ((*rows)[2].seeds, 2);
  const std::string text = TunedTableText(*rows, "lr", "err", "zero");
  EXPECT_NE(text.find("fc m=1          10  b (of 2)"), std::string::npos) << text;
  EXPECT_NE(text.find("0.375"), std::string::npos) << text;  // 0.3 / 0.8
  EXPECT_EQ(TunedTableCsv(*rows).substr(0, 40), "model,best,tried,params,mean,sd,seeds\nfc");
  EXPECT_EQ(TunedRows(tuned, references, "model", "rate", "err", "params").status().message(),
            "no sweep axis 'rate'");
}

}  // namespace
}  // namespace attnlab

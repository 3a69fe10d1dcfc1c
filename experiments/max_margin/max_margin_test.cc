// Paper 1 reproduced: the outcomes TARGETS.md asks of setups 1a-1d, asserted on the numbers the
// shipped specs produce (double precision, full 1000 iterations).
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "datasets/dataset.h"
#include "experiments/trials/runner.h"
#include "gtest/gtest.h"
#include "solvers/att_svm.h"

namespace attnlab {
namespace {

class MaxMarginTest : public ::testing::Test {
 protected:
  void Run(const std::string& setup) {
    auto parsed = ReadSpecFile("experiments/max_margin/" + setup + ".textproto");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    RunOptions options;
    options.out_dir = ::testing::TempDir() + "/max_margin_" + setup;
    options.progress = false;
    auto result = RunExperiment(*parsed, options);
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ(result->failed, 0) << result->errors[0];
    result_ = std::move(*result);
  }

  // The result of the trial whose sweep columns have these labels.
  const TrialResult& Trial(const std::vector<std::pair<std::string, std::string>>& labels) {
    for (size_t i = 0; i < result_.trials.size(); ++i) {
      bool match = true;
      for (const auto& [column, label] : labels) {
        for (const auto& [c, l] : result_.trials[i].labels) match &= c != column || l == label;
      }
      if (match) return *result_.results[i];
    }
    ADD_FAILURE() << "no trial " << labels[0].first << "=" << labels[0].second << " ...";
    return *result_.results[0];
  }
  const TrialResult& Trial(const std::string& column, const std::string& label) {
    return Trial({{column, label}});
  }

  ExperimentResult result_;
};

const char* const kInits1ab[] = {"1", "0.5", "0", "-0.5", "-1", "-1.5"};

TEST_F(MaxMarginTest, Setup1aConvergesGloballyFromEveryInit) {
  Run("1a");
  for (const char* s : kInits1ab) {
    const TrialResult& trial = Trial("s", s);
    EXPECT_GT(trial.At(200, "corr_mm"), 0.99) << "s=" << s;
    EXPECT_GT(trial.Final("corr_mm"), 0.9995) << "s=" << s;
    EXPECT_GT(trial.Final("p_opt"), 0.9999) << "s=" << s;
  }
}

TEST_F(MaxMarginTest, Setup1bSomeInitsSelectTheLocallyOptimalToken) {
  Run("1b");
  for (const char* s : {"-1", "-1.5"}) {
    const TrialResult& trial = Trial("s", s);
    EXPECT_GT(trial.Final("corr_local"), 0.999) << "s=" << s;
    EXPECT_GT(trial.Final("p_local"), 0.999) << "s=" << s;
    EXPECT_LT(trial.Final("corr_mm"), 0.9) << "s=" << s;
  }
  for (const char* s : {"1", "0.5", "0", "-0.5"}) {
    const TrialResult& trial = Trial("s", s);
    EXPECT_GT(trial.Final("corr_mm"), 0.999) << "s=" << s;
    EXPECT_GT(trial.Final("p_opt"), 0.999) << "s=" << s;
  }
}

const char* const kInits1c[] = {"1", "0.5", "0", "-0.5", "-1", "-1.5"};

// On the authors' data (their notebook's torch draw), with their key and query maps
// W = diag(1, 1, 0) and with W = I.
TEST_F(MaxMarginTest, Setup1cOnTheAuthorsDataNormalizedGdPassesCorr0999By200) {
  Run("1c");
  for (const char* p0 : kInits1c) {
    // Normalized GD: TARGETS' corr > 0.999 by iteration 200 holds from every init with the
    // authors' W (0.99930-0.99968); with W = I from 5 of 6 (p0 = 1: 0.998955, past 0.999 at
    // iteration 210).
    const TrialResult& diag =
        Trial({{"w", "diag(1,1,0)"}, {"optimizer", "normalized_gd"}, {"p0", p0}});
    EXPECT_GT(diag.At(200, "corr_mm"), 0.999) << "p0=" << p0;
    const TrialResult& identity = Trial({{"w", "I"}, {"optimizer", "normalized_gd"}, {"p0", p0}});
    EXPECT_GT(identity.At(200, "corr_mm"), 0.9989) << "p0=" << p0;
    EXPECT_GT(identity.At(210, "corr_mm"), 0.999) << "p0=" << p0;
    for (const TrialResult* ngd : {&diag, &identity}) {
      EXPECT_GT(ngd->Final("corr_mm"), 0.9997) << "p0=" << p0;
      EXPECT_GT(ngd->Final("p_opt"), 0.999999) << "p0=" << p0;
    }
    // Plain GD (lr 1): corr rises while ||p|| grows only logarithmically: x1.3-1.7 from
    // iteration 200 to 1000, against x5 for normalized GD's linear growth.
    for (const char* w : {"diag(1,1,0)", "I"}) {
      const TrialResult& gd = Trial({{"w", w}, {"optimizer", "gd"}, {"p0", p0}});
      const TrialResult& ngd = Trial({{"w", w}, {"optimizer", "normalized_gd"}, {"p0", p0}});
      EXPECT_GT(gd.Final("corr_mm"), 0.975) << "w=" << w << " p0=" << p0;
      EXPECT_GT(gd.Final("corr_mm"), gd.At(500, "corr_mm")) << "w=" << w << " p0=" << p0;
      EXPECT_GT(gd.At(500, "corr_mm"), gd.At(200, "corr_mm")) << "w=" << w << " p0=" << p0;
      EXPECT_GT(gd.Final("p_opt"), 0.99) << "w=" << w << " p0=" << p0;
      EXPECT_GT(ngd.Final("p_norm") / ngd.At(200, "p_norm"), 4.5) << "w=" << w << " p0=" << p0;
      EXPECT_LT(gd.Final("p_norm") / gd.At(200, "p_norm"), 2) << "w=" << w << " p0=" << p0;
    }
  }
}

// On our own draw (the planted generator, seed 0) the direction is the same, reached later.
TEST_F(MaxMarginTest, Setup1cOnOurDrawConvergesLater) {
  Run("1c_planted");
  for (const char* p0 : kInits1c) {
    // corr 0.9936-0.9947 at 200 (||p|| ~ 20; 1 - corr shrinks like 1/||p||^2), past 0.999 near
    // iteration 410.
    const TrialResult& ngd = Trial({{"optimizer", "normalized_gd"}, {"p0", p0}});
    EXPECT_GT(ngd.At(200, "corr_mm"), 0.99) << "p0=" << p0;
    EXPECT_GT(ngd.At(500, "corr_mm"), 0.999) << "p0=" << p0;
    EXPECT_GT(ngd.Final("corr_mm"), 0.9998) << "p0=" << p0;
    // Plain GD: 0.929-0.934 at 1000.
    const TrialResult& gd = Trial({{"optimizer", "gd"}, {"p0", p0}});
    EXPECT_GT(gd.Final("corr_mm"), 0.92) << "p0=" << p0;
    EXPECT_GT(gd.Final("corr_mm"), gd.At(500, "corr_mm")) << "p0=" << p0;
  }
}

TEST_F(MaxMarginTest, Setup1dJointTrainingFindsVmmAndTheRelaxedSvm) {
  Run("1d");
  const TrialResult& tight = Trial("x3", "tight");
  EXPECT_GT(tight.Final("corr_v"), 0.99);
  EXPECT_GT(tight.Final("corr_p_mm"), 0.99);
  const TrialResult& loose = Trial("x3", "non-tight");
  EXPECT_GT(loose.Final("corr_v"), 0.99);
  EXPECT_GT(loose.Final("corr_p_relaxed"), 0.99);
  // Not the (unrelaxed) ATT-SVM: 0.981 there against 0.999995 for the relaxed one.
  EXPECT_LT(loose.Final("corr_p_mm"), 0.99);
  EXPECT_GT(loose.Final("corr_p_relaxed") - loose.Final("corr_p_mm"), 0.01);
}

// The ATT-SVM of every paper setup is solved to KKT residuals far below 1e-8.
TEST(MaxMarginSolverTest, KktResidualsOnThePaperSetups) {
  for (const char* setup : {"1a", "1b", "1c", "1c_planted", "1d"}) {
    auto parsed = ReadSpecFile(std::string("experiments/max_margin/") + setup + ".textproto");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    auto dataset = CreateDataset<double>(parsed->spec.dataset());
    ASSERT_TRUE(dataset.ok()) << dataset.status();
    const Batch<double>& train = *(*dataset)->train();
    std::vector<Eigen::MatrixXd> tokens;
    for (int i = 0; i < train.inputs.batch(); ++i) tokens.push_back(train.inputs.sample(i));
    const int d = train.inputs.cols();
    Eigen::MatrixXd w = Eigen::MatrixXd::Identity(d, d);
    if (std::string(setup) <= "1b") w(2, 2) = 0;  // 1a, 1b: W = diag(1, 1, 0); 1c: also I
    // The selected token: 0 in 1a-1c (the highest score), 1 in 1d.
    const std::vector<int> selected(tokens.size(), std::string(setup) == "1d" ? 1 : 0);
    auto solution = SolveAttSvm(tokens, w, selected, Eigen::VectorXd::Ones(tokens.size()));
    ASSERT_TRUE(solution.ok()) << setup << ": " << solution.status();
    EXPECT_LT(solution->kkt.Max(), 1e-8) << setup;
    std::printf("%s: ||p_mm|| = %.6f, max KKT residual %.2e\n", setup, solution->x.norm(),
                solution->kkt.Max());
  }
}

}  // namespace
}  // namespace attnlab

#include <cmath>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "attention/base/files.h"
#include "experiments/reproduction/check.h"
#include "experiments/reproduction/claims_runner.h"
#include "experiments/reproduction/claims_report.h"
#include "experiments/reproduction/verdict.h"
#include "experiments/store/program.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

template <typename Message>
Message Parse(const std::string& text) {
  Message message;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &message)) << text;
  return message;
}

// Run "r": axis s in {a, b} (lambda 0 and 1) times seeds 1-3; metric m at steps 0 and 10:
// m(0) = 1 everywhere; m(10) = seed for s = a, 2 * seed + 1 for s = b.
RunOutcomes Runs() {
  RunOutcome run;
  run.name = "r";
  run.spec_hash = "0123456789ab";
  for (const char* s : {"a", "b"}) {
    for (int seed = 1; seed <= 3; ++seed) {
      Trial trial;
      trial.id = std::string(s) + std::to_string(seed);
      trial.labels = {
          {"s", s}, {"lambda", s[0] == 'a' ? "0" : "1"}, {"seed", std::to_string(seed)}};
      TrialResult result;
      result.points = {{0, "m", 1.0}, {10, "m", s[0] == 'a' ? seed : 2.0 * seed + 1}};
      result.code.commit = "abcdef0123";
      result.code.tree = "clean";
      run.trials.push_back(trial);
      run.results.push_back(result);
      run.errors.push_back("");
    }
  }
  RunOutcomes runs;
  runs["r"] = run;
  return runs;
}

CheckOutcome Evaluate(const std::string& check, const RunOutcomes& runs = Runs()) {
  absl::StatusOr<CheckOutcome> outcome = EvaluateCheck(Parse<Check>(check), runs);
  EXPECT_TRUE(outcome.ok()) << outcome.status();
  return outcome.value_or(CheckOutcome());
}

TEST(CheckTest, MeanWithItsSpreadAgainstAMargin) {
  // s = a at step 10: 1, 2, 3 -> mean 2, sd 1.
  const std::string check = R"pb(name: "m" run: "r" where: "s=a" value { metric: "m" })pb";
  CheckOutcome outcome = Evaluate(check + " reproduced { op: GT value: 0 margin_sd: 1 }");
  EXPECT_DOUBLE_EQ(outcome.mean, 2);
  EXPECT_DOUBLE_EQ(outcome.stddev, 1);
  EXPECT_EQ(outcome.trials, 3);
  EXPECT_EQ(outcome.level, Level::kReproduced);
  EXPECT_EQ(outcome.rule, "mean - 1 sd > 0 (our bar)");
  EXPECT_EQ(outcome.Number(), "2 +- 1 (mean +- sd of 3)");
  EXPECT_EQ(Evaluate(check + " reproduced { op: GT value: 0 margin_sd: 2 }").level, Level::kNot);
  EXPECT_EQ(Evaluate(check + " reproduced { op: LT value: 4.5 margin_sd: 2 }").level,
            Level::kReproduced);
  EXPECT_EQ(Evaluate(check + " reproduced { op: LT value: 4 margin_sd: 2 }").level, Level::kNot);
  // |2 - 2.5| + 1 sd = 1.5.
  const CheckOutcome within =
      Evaluate(check + " reproduced { op: WITHIN value: 2.5 tolerance: 1.5 margin_sd: 1 }");
  EXPECT_EQ(within.level, Level::kReproduced);
  EXPECT_EQ(within.rule, "mean +- 1 sd within 1.5 of 2.5 (our bar)");
  EXPECT_EQ(
      Evaluate(check + " reproduced { op: WITHIN value: 2.5 tolerance: 1.4 margin_sd: 1 }").level,
      Level::kNot);
  EXPECT_EQ(outcome.commits, (std::set<std::string>{"abcdef0"}));
  EXPECT_EQ(outcome.specs, (std::set<std::string>{"r:0123456789ab"}));
}

TEST(CheckTest, LeastLargestAndPartialCredit) {
  // Every trial at step 10: 1, 2, 3, 3, 5, 7.
  const std::string check = R"pb(name: "m" run: "r" where: "s=a|b" value { metric: "m" step: 10 }
    aggregate: MIN reproduced { op: GT value: 2 } partly { op: GT value: 6 aggregate: MAX })pb";
  const CheckOutcome outcome = Evaluate(check);
  EXPECT_EQ(outcome.value, 1);
  EXPECT_EQ(outcome.max, 7);
  EXPECT_EQ(outcome.level, Level::kPartly);
  EXPECT_EQ(outcome.rule, "> 2 (our bar); partly: largest > 6 (our bar)");
  EXPECT_EQ(outcome.Number(), "1 (least of 6; range 1 to 7)");
}

TEST(CheckTest, AFractionOfTrainingReadsTheNearestLoggedStep) {
  // Logged at steps 0 and 10; s = b seed 3 is 1 at step 0 and 7 at step 10.
  auto at = [](double fraction) {
    return Evaluate(
               absl::StrCat(
                   R"pb(run: "r" where: "s=b" where: "seed=3" value { metric: "m" fraction: )pb",
                   fraction, " }"))
        .value;
  };
  EXPECT_DOUBLE_EQ(at(0.8), 7);  // step 8 -> 10
  EXPECT_DOUBLE_EQ(at(0.4), 1);  // step 4 -> 0
  EXPECT_DOUBLE_EQ(at(0.5), 1);  // a tie takes the earlier step
  EXPECT_DOUBLE_EQ(at(1), 7);
  // The plateau reading: the last value less the one at 0.8 of training.
  EXPECT_DOUBLE_EQ(Evaluate(R"pb(run: "r" where: "s=b" value { metric: "m" }
                                 less { metric: "m" fraction: 0.4 } aggregate: MAX)pb").value, 6);
  EXPECT_EQ(
      std::string(
          EvaluateCheck(Parse<Check>(R"pb(run: "r" value { metric: "m" fraction: 1.5 })pb"), Runs())
              .status()
              .message()),
      "value.fraction: must be in [0, 1] and not given with a step, got 1.5");
}

TEST(CheckTest, GrowthDifferencePairingAndRankCorrelation) {
  // m(10) / m(0) for s = b: 3, 5, 7.
  EXPECT_DOUBLE_EQ(Evaluate(R"pb(run: "r" where: "s=b" value { metric: "m" step: 10 }
                                 over { metric: "m" step: 0 } aggregate: MIN)pb").value, 3);
  EXPECT_DOUBLE_EQ(Evaluate(R"pb(run: "r" where: "s=b" value { metric: "m" }
                                 less { metric: "m" step: 0 } aggregate: MAX)pb").value, 6);
  // s = b minus s = a at the same seed: seed + 1 = 2, 3, 4.
  const CheckOutcome paired = Evaluate(R"pb(run: "r" where: "s=b" value { metric: "m" }
                                            minus { where: "s=a" })pb");
  EXPECT_DOUBLE_EQ(paired.mean, 3);
  EXPECT_DOUBLE_EQ(paired.min, 2);
  // s = b over s = a at the same seed: (2 seed + 1) / seed = 3, 2.5, 7/3.
  EXPECT_DOUBLE_EQ(Evaluate(R"pb(run: "r" where: "s=b" value { metric: "m" }
                                 over_paired { where: "s=a" } aggregate: MAX)pb").value, 3);
  // Ranks of lambda (2,2,2,5,5,5) against those of m (1,2,3.5,3.5,5,6): 12 / sqrt(13.5 * 17).
  const CheckOutcome rank = Evaluate(R"pb(run: "r" value { metric: "m" } aggregate: SPEARMAN
                                          versus { axis: "lambda" } reproduced { op: GT value: 0.7 })pb");
  EXPECT_NEAR(rank.value, 12 / std::sqrt(13.5 * 17), 1e-12);
  EXPECT_EQ(rank.level, Level::kReproduced);
}

// Run "grid": widths m in {1, 2} times lr in {a, b} times seeds 1, 2; the error is lowest at
// lr a for m = 1 (1, 2 against 5, 6) and at lr b for m = 2 (4, 4 against 3, 1).
RunOutcomes Grid() {
  RunOutcome run;
  run.name = "grid";
  const double error[2][2][2] = {{{1, 2}, {5, 6}}, {{4, 4}, {3, 1}}};
  for (int m = 0; m < 2; ++m) {
    for (int lr = 0; lr < 2; ++lr) {
      for (int seed = 0; seed < 2; ++seed) {
        Trial trial;
        trial.labels = {{"m", std::to_string(m + 1)}, {"lr", lr ? "b" : "a"},
                        {"seed", std::to_string(seed + 1)}};
        TrialResult result;
        result.points = {{10, "err", error[m][lr][seed]}};
        run.trials.push_back(trial);
        run.results.push_back(result);
        run.errors.push_back("");
      }
    }
  }
  RunOutcomes runs;
  runs["grid"] = run;
  return runs;
}

TEST(CheckTest, BestOverTunesEachGroupBeforeAggregating) {
  const CheckOutcome best = Evaluate(R"pb(run: "grid" value { metric: "err" } best_over: "lr"
                                          aggregate: MAX)pb", Grid());
  // Kept: m = 1 at lr a (1, 2) and m = 2 at lr b (3, 1).
  EXPECT_EQ(best.trials, 4);
  EXPECT_DOUBLE_EQ(best.max, 3);
  EXPECT_DOUBLE_EQ(best.mean, 7.0 / 4);
  EXPECT_EQ(best.chosen, (std::vector<std::string>{"m=1: lr=a", "m=2: lr=b"}));
  EXPECT_EQ(best.Number(), "3 (largest of 4; range 1 to 3); best m=1: lr=a, m=2: lr=b");
  const CheckOutcome worst = Evaluate(R"pb(run: "grid" where: "m=2" value { metric: "err" }
                                           best_over: "lr" best_highest: true)pb", Grid());
  EXPECT_DOUBLE_EQ(worst.mean, 4);
  // Chosen by another quantity: the value is err - 10 * (its step-10 value); by err itself.
  const CheckOutcome by = Evaluate(R"pb(run: "grid" where: "m=2" value { metric: "err" }
                                        best_over: "lr" best_by { metric: "err" step: 10 }
                                        less { metric: "err" step: 10 })pb", Grid());
  EXPECT_EQ(by.chosen, (std::vector<std::string>{"m=2: lr=b"}));
  EXPECT_EQ(EvaluateCheck(Parse<Check>(R"pb(run: "grid" value { metric: "err" } best_over: "x")pb"),
                          Grid()).status().message(),
            "best_over: run grid has no axis 'x'");
}

// Run "curve": a penalty p on a grid f1 < f2 < f3 and one other, "loc", seeds 1 and 2, with a
// norm and a perplexity each; loc's norm lies between two grid points at each seed.
RunOutcomes Curve(double loc_norm_seed2 = 5) {
  RunOutcome run;
  run.name = "curve";
  const std::vector<std::tuple<std::string, int, double, double>> rows = {
      {"f1", 1, 1, 10}, {"f2", 1, 3, 20}, {"f3", 1, 5, 40}, {"loc", 1, 2, 12},
      {"f1", 2, 2, 10}, {"f2", 2, 4, 30}, {"f3", 2, 6, 50}, {"loc", 2, loc_norm_seed2, 20}};
  for (const auto& [p, seed, norm, ppl] : rows) {
    Trial trial;
    trial.id = p + std::to_string(seed);
    trial.labels = {{"p", p}, {"seed", std::to_string(seed)}};
    TrialResult result;
    result.points = {{10, "norm", norm}, {10, "ppl", ppl}};
    run.trials.push_back(trial);
    run.results.push_back(result);
    run.errors.push_back("");
  }
  RunOutcomes runs;
  runs["curve"] = run;
  return runs;
}

TEST(CheckTest, MatchedByInterpolatesTheBaselineAtTheTrialsOwnQuantity) {
  // Seed 1: norm 2 lies halfway between f1 (10) and f2 (20): 15, so 12 / 15 = 0.8. Seed 2:
  // norm 5 halfway between f2 (30) and f3 (50): 40, so 20 / 40 = 0.5.
  const CheckOutcome ratio = Evaluate(R"pb(run: "curve" where: "p=loc" value { metric: "ppl" }
                                           over_paired { where: "p=f1|f2|f3" matched_by { metric: "norm" } })pb",
                                      Curve());
  EXPECT_EQ(ratio.trials, 2);
  EXPECT_DOUBLE_EQ(ratio.mean, 0.65);
  EXPECT_DOUBLE_EQ(ratio.min, 0.5);
  const CheckOutcome difference = Evaluate(R"pb(run: "curve" where: "p=loc" value { metric: "ppl" }
                                                minus { where: "p=f1|f2|f3" matched_by { metric: "norm" } })pb",
                                           Curve());
  EXPECT_DOUBLE_EQ(difference.mean, -11.5);
  // Outside the grid: not evaluated, and the row says why.
  const CheckOutcome outside = Evaluate(R"pb(run: "curve" where: "p=loc" value { metric: "ppl" }
                                             over_paired { where: "p=f1|f2|f3" matched_by { metric: "norm" } })pb",
                                        Curve(7));
  EXPECT_EQ(
      outside.error,
      "trial loc2 (p=loc seed=2): its matched_by quantity 7 is outside run curve's range 2 to 6 "
      "at its seed (extend the baseline's grid)");
  // A curve of one point is a mistake of the claims file.
  EXPECT_EQ(EvaluateCheck(Parse<Check>(R"pb(run: "curve" where: "p=loc" value { metric: "ppl" }
                                            minus { where: "p=f1" matched_by { metric: "norm" } })pb"),
                          Curve())
                .status()
                .message(),
            "minus.matched_by: 1 trials of run curve have seed 1 (a curve needs at least two)");
}

TEST(CheckTest, ClaimsFileMistakesNameTheField) {
  auto error = [](const std::string& text) {
    return std::string(EvaluateCheck(Parse<Check>(text), Runs()).status().message());
  };
  EXPECT_EQ(error(R"pb(run: "x" value { metric: "m" })pb"), "run: no run named 'x'");
  EXPECT_EQ(error(R"pb(run: "r" where: "t=1" value { metric: "m" })pb"),
            "where: run r has no axis 't'; its axes: s, lambda, seed");
  EXPECT_EQ(error(R"pb(run: "r" where: "s=c" value { metric: "m" })pb"),
            "where: no trial of run r matches s=c");
  EXPECT_EQ(error(R"pb(run: "r" value { metric: "m" step: 5 })pb"),
            "value: run r has no metric 'm' at step 5 (not a logged step)");
  EXPECT_EQ(error(R"pb(run: "r" value { metric: "q" })pb"), "value: run r has no metric 'q'");
  EXPECT_EQ(
      error(R"pb(run: "r" value { metric: "m" } minus { where: "s=a" where: "seed=1" })pb"),
      "minus: 0 trials of run r have seed 2 (s=a lambda=0 seed=2 needs exactly one to pair with)");
}

TEST(CheckTest, MissingRunsAndFailedTrialsAreNotComputed) {
  RunOutcomes runs = Runs();
  runs["r"].results[4].reset();
  runs["r"].errors[4] = "diverged at step 3";
  const CheckOutcome failed = Evaluate(R"pb(name: "m" run: "r" value { metric: "m" })pb", runs);
  EXPECT_EQ(failed.error, "trial b2 (s=b lambda=1 seed=2) of run r failed: diverged at step 3");
  EXPECT_EQ(failed.Number(), "n/a");
  runs["r"].status = absl::NotFoundError("wiki.valid.tokens: cannot read");
  EXPECT_EQ(Evaluate(R"pb(run: "r" value { metric: "m" })pb", runs).error,
            "run r did not run: wiki.valid.tokens: cannot read");
}

TEST(CheckTest, PairedEffectsAreJudgedByTheirInterval) {
  // s = b minus s = a at the same seed: 2, 3, 4: mean 3, sd 1, 95% t-interval 3 -+ 4.303 / sqrt(3).
  const std::string check = R"pb(name: "effect" run: "r" where: "s=b" value { metric: "m" }
                                  minus { where: "s=a" })pb";
  const double half = 4.303 / std::sqrt(3.0);
  const CheckOutcome met = Evaluate(check + " reproduced { op: GT value: 0 }");
  EXPECT_TRUE(met.paired);
  EXPECT_NEAR(met.low, 3 - half, 1e-12);
  EXPECT_NEAR(met.high, 3 + half, 1e-12);
  EXPECT_EQ(met.level, Level::kReproduced);
  EXPECT_EQ(met.rule, "its 95% interval > 0 (our bar)");
  EXPECT_EQ(met.Number(), "3 +- 1 (mean +- sd of 3 seeds; 95% t-interval 0.516 to 5.48)");
  // The interval straddles 3: noise, neither side shown; past its top: not met.
  EXPECT_EQ(Evaluate(check + " reproduced { op: GT value: 3 }").level, Level::kNoise);
  EXPECT_EQ(Evaluate(check + " reproduced { op: GT value: 6 }").level, Level::kNot);
  // A weaker bar the whole interval clears: partly; the paper's bar says so.
  const CheckOutcome partly =
      Evaluate(check + " reproduced { op: GT value: 6 } partly { op: GT value: 0 source: PAPER }");
  EXPECT_EQ(partly.level, Level::kPartly);
  EXPECT_EQ(partly.rule, "its 95% interval > 6 (our bar); partly: > 0 (the paper's bar)");
}

TEST(CheckTest, ACurveIsJudgedAtEveryPoint) {
  // s = b: m is 1, 1, 1 at step 0 and 3, 5, 7 at step 10.
  const std::string curve = R"pb(name: "m over training" run: "r" where: "s=b"
                                  curve { metric: "m" step: 0 } curve { metric: "m" step: 10 })pb";
  const CheckOutcome mixed = Evaluate(curve + " reproduced { op: GT value: 2 }");
  ASSERT_EQ(mixed.points.size(), 2u);
  EXPECT_EQ(mixed.points[0].name, "m at step 0");
  EXPECT_EQ(mixed.points[0].level, Level::kNot);
  EXPECT_EQ(mixed.points[1].level, Level::kReproduced);
  EXPECT_EQ(mixed.level, Level::kMixed);
  EXPECT_EQ(mixed.Number(),
            "over the curve: m at step 0: 1 +- 0 (mean +- sd of 3) not met; m at step 10: 5 +- 2 "
            "(mean +- sd of 3) met");
  EXPECT_EQ(Evaluate(curve + " reproduced { op: GT value: 0.5 }").level, Level::kReproduced);
  // Over trials: s = a (mean 2) and s = b (mean 5) at step 10, against > 3.
  const CheckOutcome over_trials = Evaluate(R"pb(name: "m by s" run: "r" value { metric: "m" }
                                                 curve_where: "s=a" curve_where: "s=b"
                                                 reproduced { op: GT value: 3 })pb");
  ASSERT_EQ(over_trials.points.size(), 2u);
  EXPECT_EQ(over_trials.points[0].name, "s=a");
  EXPECT_EQ(over_trials.level, Level::kMixed);
  EXPECT_EQ(Evaluate(curve + " reproduced { op: GT value: 9 }").level, Level::kNot);
}

TEST(CheckTest, ACurveContradictedWithNoPointMetIsNotMet) {
  // s = b minus s = a at the same seed: 0, 0, 0 at step 0; 2, 3, 4 at step 10 (95% t-interval
  // 0.516 to 5.48).
  const std::string curve = R"pb(name: "effect" run: "r" where: "s=b" minus { where: "s=a" }
                                  curve { metric: "m" step: 0 } curve { metric: "m" step: 10 })pb";
  // Against > 3: step 0 is below the bar, step 10 straddles it. Noise does not rescue the miss.
  const CheckOutcome contradicted = Evaluate(curve + " reproduced { op: GT value: 3 }");
  ASSERT_EQ(contradicted.points.size(), 2u);
  EXPECT_EQ(contradicted.points[0].level, Level::kNot);
  EXPECT_EQ(contradicted.points[1].level, Level::kNoise);
  EXPECT_EQ(contradicted.level, Level::kNot);
  // Against < 3: step 0 is met, step 10 straddles: not shown over the curve, nor contradicted.
  const CheckOutcome unshown = Evaluate(curve + " reproduced { op: LT value: 3 }");
  EXPECT_EQ(unshown.points[0].level, Level::kReproduced);
  EXPECT_EQ(unshown.level, Level::kNoise);
}

// Run "moves": metrics x and y over steps 0-3; seed 1's y rises with x, seed 2's falls.
RunOutcomes Moves() {
  RunOutcome run;
  run.name = "moves";
  for (int seed = 1; seed <= 2; ++seed) {
    Trial trial;
    trial.labels = {{"seed", std::to_string(seed)}};
    TrialResult result;
    for (int step = 0; step < 4; ++step) {
      result.points.push_back({step, "x", 1.0 + step});
      result.points.push_back({step, "y", seed == 1 ? 1.0 + step * step : 4.0 - step});
    }
    result.points.push_back({9, "z", 1});
    run.trials.push_back(trial);
    run.results.push_back(result);
    run.errors.push_back("");
  }
  RunOutcomes runs;
  runs["moves"] = run;
  return runs;
}

TEST(CheckTest, CoMovementAlongTraining) {
  const CheckOutcome least = Evaluate(R"pb(run: "moves" value { metric: "y" } versus { metric: "x" }
                                           along_training: true aggregate: MIN)pb", Moves());
  EXPECT_DOUBLE_EQ(least.max, 1);
  EXPECT_DOUBLE_EQ(least.value, -1);
  EXPECT_EQ(EvaluateCheck(Parse<Check>(R"pb(run: "moves" value { metric: "y" } versus { metric: "z" }
                                            along_training: true)pb"), Moves())
                .status()
                .message(),
            "along_training: run moves logs 'y' and 'z' together at 0 steps (needs at least 3)");
  EXPECT_FALSE(EvaluateCheck(Parse<Check>(R"pb(run: "moves" value { metric: "y" step: 1 }
                                               versus { metric: "x" } along_training: true)pb"),
                             Moves())
                   .ok());
}

Claim ClaimWith(const std::string& checks) {
  return Parse<Claim>(R"pb(id: "c" words: "m grows")pb" + checks);
}

constexpr char kMet[] =
    R"pb(check { name: "met" run: "r" value { metric: "m" } reproduced { op: GT value: 0 } })pb";
constexpr char kMissed[] =
    R"pb(check { name: "missed" run: "r" value { metric: "m" } reproduced { op: GT value: 100 } })pb";
constexpr char kHalf[] =
    R"pb(check { name: "half" run: "r" value { metric: "m" } reproduced { op: GT value: 100 }
                                       partly { op: GT value: 1 } })pb";
// s = b minus s = a: interval 0.516 to 5.48 straddles 3.
constexpr char kStraddles[] =
    R"pb(check { name: "straddles" run: "r" where: "s=b" value { metric: "m" }
                 minus { where: "s=a" } reproduced { op: GT value: 3 } })pb";

// `check` marked as its claim's deciding check.
std::string Central(const std::string& check) {
  return absl::StrCat("check { central: true ", check.substr(check.find('{') + 1));
}

absl::StatusOr<ClaimOutcome> JudgeText(const std::string& checks) {
  return JudgeClaim(ClaimWith(checks), Runs());
}

Verdict Judge(const std::string& checks) {
  absl::StatusOr<ClaimOutcome> outcome = JudgeText(checks);
  EXPECT_TRUE(outcome.ok()) << outcome.status();
  return outcome.ok() ? outcome->verdict : Verdict::kNotEvaluated;
}

TEST(VerdictTest, TheCentralCheckDecidesAndDisagreementIsMixed) {
  EXPECT_EQ(Judge(Central(kMet) + kMet), Verdict::kReproduced);
  EXPECT_EQ(Judge(Central(kMissed)), Verdict::kNotReproduced);
  EXPECT_EQ(Judge(Central(kMissed) + kMissed), Verdict::kNotReproduced);
  // One check met and one not: mixed, whichever is central, naming both.
  absl::StatusOr<ClaimOutcome> mixed = JudgeText(Central(kMet) + kMissed);
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  EXPECT_EQ(mixed->verdict, Verdict::kMixed);
  EXPECT_EQ(mixed->reason, "held: met. Contradicted: missed.");
  EXPECT_EQ(Judge(Central(kMissed) + kMet), Verdict::kMixed);
  // Partly only when the central check passes its declared weaker bar and nothing contradicts.
  EXPECT_EQ(Judge(Central(kHalf)), Verdict::kPartly);
  EXPECT_EQ(Judge(Central(kHalf) + kMet), Verdict::kPartly);
  EXPECT_EQ(Judge(Central(kHalf) + kMissed), Verdict::kMixed);
  EXPECT_EQ(Judge(Central(kMet) + kHalf), Verdict::kPartly);
}

TEST(VerdictTest, AStraddlingIntervalIsNoise) {
  absl::StatusOr<ClaimOutcome> noise = JudgeText(Central(kStraddles));
  ASSERT_TRUE(noise.ok()) << noise.status();
  EXPECT_EQ(noise->verdict, Verdict::kNoise);
  EXPECT_EQ(noise->reason,
            "straddles: 3 +- 1 (mean +- sd of 3 seeds; 95% t-interval 0.516 to 5.48): its "
            "interval holds both sides of the bar (its 95% interval > 3 (our bar))");
  // Noise beside a met check neither supports nor contradicts it.
  EXPECT_EQ(Judge(Central(kMet) + kStraddles), Verdict::kReproduced);
  // The central check's noise decides even beside a miss.
  EXPECT_EQ(Judge(Central(kStraddles) + kMissed), Verdict::kNoise);
}

TEST(VerdictTest, ACurveMetAtSomePointsOnlyIsMixed) {
  absl::StatusOr<ClaimOutcome> outcome = JudgeText(R"pb(check {
        central: true name: "curve" run: "r" where: "s=b"
        curve { metric: "m" step: 0 } curve { metric: "m" step: 10 }
        reproduced { op: GT value: 2 } })pb");
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->verdict, Verdict::kMixed);
  EXPECT_EQ(outcome->reason, "held: curve at m at step 10. Contradicted: curve at m at step 0.");
  EXPECT_EQ(Judge(R"pb(check { central: true name: "curve" run: "r" where: "s=b"
                     curve { metric: "m" step: 0 } curve { metric: "m" step: 10 }
                     reproduced { op: GT value: 9 } } check { name: "met" run: "r"
                     value { metric: "m" } reproduced { op: GT value: 0 } })pb"),
            Verdict::kMixed);
}

TEST(VerdictTest, ACurveAgainstItsBarWhereNoPointIsMetIsNotReproduced) {
  const std::string curve = R"pb(check { central: true name: "effect" run: "r" where: "s=b"
                                  minus { where: "s=a" }
                                  curve { metric: "m" step: 0 } curve { metric: "m" step: 10 })pb";
  EXPECT_EQ(Judge(curve + " reproduced { op: GT value: 3 } }"), Verdict::kNotReproduced);
  // Met at one point, noise at the other: inconclusive, saying where it was met.
  absl::StatusOr<ClaimOutcome> noise = JudgeText(curve + " reproduced { op: LT value: 3 } }");
  ASSERT_TRUE(noise.ok()) << noise.status();
  EXPECT_EQ(noise->verdict, Verdict::kNoise);
  EXPECT_EQ(noise->reason,
            "effect: over the curve: m at step 0: 0 +- 0 (mean +- sd of 3 seeds; 95% t-interval 0 "
            "to 0) met; m at step 10: 3 +- 1 (mean +- sd of 3 seeds; 95% t-interval 0.516 to 5.48) "
            "noise: met only at m at step 0; the other points' intervals hold both sides of the "
            "bar (its 95% interval < 3 (our bar) at each point)");
}

TEST(VerdictTest, AnEffectItsMatchedControlGivesTooIsNotSpecific) {
  // The control: m against s = a's at the same seed, by more than 5 (interval 0.5 to 5.5: noise).
  const std::string control = R"pb(control { name: "against a" run: "r" where: "s=b"
                                      value { metric: "m" } minus { where: "s=a" }
                                      reproduced { op: GT value: 5 } })pb";
  absl::StatusOr<ClaimOutcome> outcome = JudgeText(Central(kMet) + control);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->verdict, Verdict::kNotSpecific);
  EXPECT_EQ(outcome->reason, "against its matched control the effect does not hold: against a");
  EXPECT_EQ(Judge(Central(kMet) + R"pb(control { name: "against a" run: "r" where: "s=b"
                                         value { metric: "m" } minus { where: "s=a" }
                                         reproduced { op: GT value: 0 } })pb"),
            Verdict::kReproduced);
}

TEST(VerdictTest, ClaimsFileMistakes) {
  EXPECT_EQ(JudgeText("").status().message(), "claim c: check: list at least one");
  EXPECT_EQ(JudgeText(kMet).status().message(),
            "claim c: check: mark exactly one check `central: true` (the one that decides the "
            "claim), found 0");
  EXPECT_EQ(JudgeText(Central(kMet) + Central(kMet)).status().message(),
            "claim c: check: mark exactly one check `central: true` (the one that decides the "
            "claim), found 2");
}

TEST(VerdictTest, FailedPreconditionIsInconclusive) {
  absl::StatusOr<ClaimOutcome> outcome =
      JudgeText(Central(kMet) + R"pb(precondition { name: "baseline beats 0" run: "r"
                  value { metric: "m" } aggregate: MIN reproduced { op: GT value: 1.5 } })pb");
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->verdict, Verdict::kInconclusive);
  EXPECT_EQ(outcome->reason,
            "baseline beats 0 is 1 (least of 6; range 1 to 7), and the comparison needs > 1.5 "
            "(our bar)");
}

// The central check: s = a's m, mean 2, against the bar `bar`; each cause's intervention reads
// `intervention` and is judged by the central check's bar.
std::vector<CauseOutcome> Causes(double bar, const std::string& causes) {
  absl::StatusOr<ClaimOutcome> outcome = JudgeText(absl::StrCat(
      R"pb(check { central: true name: "m" run: "r" where: "s=a" value { metric: "m" }
                   reproduced { op: GT value: )pb",
      bar, " } } ", causes));
  EXPECT_TRUE(outcome.ok()) << outcome.status();
  return outcome.ok() ? outcome->causes : std::vector<CauseOutcome>{};
}

TEST(VerdictTest, ACauseIsEstablishedOnlyByAnIntervention) {
  // Interventions: s = b's m (mean 5) and m at step 0 (mean 1).
  const std::string to_b =
      R"pb(intervention { name: "at b" run: "r" where: "s=b" value { metric: "m" } })pb";
  const std::string to_start =
      R"pb(intervention { name: "at 0" run: "r" where: "s=a" value { metric: "m" step: 0 } })pb";
  // Bar 4: the intervention crosses it.
  std::vector<CauseOutcome> causes = Causes(4, absl::StrCat("cause { kind: SCALE text: \"b\" ",
                                                            to_b, " }"));
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].status, CauseStatus::kEstablished);
  EXPECT_DOUBLE_EQ(causes[0].closed, 1.5);
  // Bar 10: it closes 3 of the gap of 8: contributes; established when 30% was declared enough.
  causes = Causes(10, absl::StrCat("cause { kind: SCALE text: \"b\" ", to_b, " }",
                                   "cause { kind: SCALE text: \"b\" closes: 0.3 ", to_b, " }",
                                   "cause { kind: SCALE text: \"b\" closes: 0.5 ", to_b, " }",
                                   "cause { kind: DATA text: \"start\" ", to_start, " }",
                                   "cause { kind: READING text: \"untested\" evidence { name: "
                                   "\"e\" run: \"r\" value { metric: \"m\" } } }"));
  ASSERT_EQ(causes.size(), 5u);
  EXPECT_DOUBLE_EQ(causes[0].closed, 0.375);
  EXPECT_EQ(causes[0].status, CauseStatus::kContributes);
  EXPECT_EQ(causes[1].status, CauseStatus::kEstablished);
  EXPECT_EQ(causes[2].status, CauseStatus::kContributes);
  // Moving away from the bar establishes nothing; nor does evidence without an intervention.
  EXPECT_EQ(causes[3].status, CauseStatus::kNotEstablished);
  EXPECT_FALSE(causes[4].tested);
  EXPECT_EQ(causes[4].status, CauseStatus::kNotEstablished);
  // A reproduced claim carries no causes.
  EXPECT_TRUE(Causes(0, absl::StrCat("cause { kind: SCALE text: \"b\" ", to_b, " }")).empty());
}

TEST(VerdictTest, AnInterventionOnAPairedEffectIsMeasuredFromTheEndOfItsInterval) {
  // The central effect, b minus a at step 10 (interval 0.516 to 5.48 against > 2), is noise with
  // its mean (3) past the bar. The intervention, b minus a at step 0, is exactly 0: its interval
  // falls further below the bar. Measured from the mean it would "close" 300% of the gap.
  absl::StatusOr<ClaimOutcome> outcome = JudgeText(
      R"pb(check { central: true name: "effect" run: "r" where: "s=b" value { metric: "m" }
                   minus { where: "s=a" } reproduced { op: GT value: 2 } }
           cause { kind: SCALE text: "b" intervention { name: "at 0" run: "r" where: "s=b"
                   value { metric: "m" step: 0 } minus { where: "s=a" } } })pb");
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  ASSERT_EQ(outcome->causes.size(), 1u);
  const double low = 3 - 4.303 / std::sqrt(3.0);
  EXPECT_NEAR(outcome->causes[0].closed, (0 - low) / (2 - low), 1e-9);
  EXPECT_EQ(outcome->causes[0].status, CauseStatus::kNotEstablished);
  PaperOutcome paper;
  paper.outcomes.push_back(*outcome);
  const std::string summary = ClaimsSummary(paper);
  EXPECT_NE(summary.find("widening the gap to the bar by 35%"), std::string::npos) << summary;
}

PaperOutcome Paper() {
  PaperOutcome paper;
  paper.claims.file = Parse<ClaimsFile>(R"pb(number: 7 paper: "A paper")pb");
  paper.code.source = "s";
  paper.code.commit = "abcdef0123";
  for (const std::string& checks :
       {Central(kMet), Central(kMissed) + kMet, Central(kMissed), Central(kHalf)}) {
    ClaimOutcome outcome = JudgeClaim(ClaimWith(checks), Runs()).value();
    outcome.claim.set_id(std::to_string(paper.outcomes.size() + 1));
    paper.outcomes.push_back(outcome);
  }
  paper.outcomes[2].claim.add_deviation("lr 1e-3, not 2.5e-5");
  return paper;
}

TEST(ReportTest, TallyTableAndCsv) {
  const PaperOutcome paper = Paper();
  EXPECT_EQ(TallyLine(CountVerdicts(paper.outcomes)),
            "1 of 4 reproduced (1 partly, 1 mixed, 1 not reproduced)");
  const std::string md = ClaimsMarkdown(paper, "--paper=7");
  EXPECT_NE(md.find("# Paper 7 claims: A paper"), std::string::npos) << md;
  EXPECT_NE(md.find("`tools/bazel run //experiments:claims -- --paper=7`"), std::string::npos)
      << md;
  EXPECT_NE(md.find("**1 of 4 reproduced (1 partly, 1 mixed, 1 not reproduced).**"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| **3** m grows | Deviations from the paper: lr 1e-3, not 2.5e-5. | "
                    "central: missed"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("**mixed** | held: met. Contradicted: missed.<br>cause: none proposed |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| abcdef0 | r:0123456789ab |"), std::string::npos) << md;
  const std::string summary = ClaimsSummary(paper);
  EXPECT_NE(summary.find("  3  not reproduced        missed 3.5 +- 2.2 (mean +- sd of 6)\n    "
                         "cause: none proposed\n"),
            std::string::npos)
      << summary;
  const std::string csv = ClaimsCsv(paper);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "paper,claim,verdict,part,name,value,mean,sd,min,max,trials,low,high,rule,met,commits,"
            "specs");
  EXPECT_NE(csv.find("\n7,2,mixed,central check,missed,3.5,3.5,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n7,2,mixed,check,met,3.5,3.5,"), std::string::npos) << csv;
}

// CLAIMS.md text as ClaimsMarkdown writes it for trials of `code` that ran `plugins`.
std::string ClaimsMdOf(const CodeVersion& code, const std::set<std::string>& plugins) {
  PaperOutcome paper = Paper();
  paper.code = code;
  Trial trial;
  trial.code = code.ForPlugins(plugins);
  paper.runs["r"].trials.push_back(trial);
  return ClaimsMarkdown(paper, "--paper=7");
}

// CLAIMS.md as the claims command wrote it before programs: its key counts the CPU.
std::string OlderClaimsMdOf(CodeVersion code, const std::set<std::string>& plugins) {
  code = code.ForPlugins(plugins);
  code.machine = "AuthenticAMD family 26 model 2";
  code.products = "tuned xo";
  return absl::StrCat("# Paper 7 claims: A paper\n\n<!-- trial code: ", code.Key(),
                      "; plugins: ", absl::StrJoin(plugins, " "),
                      " -->\nGenerated by `tools/bazel run //experiments:claims -- --paper=7` "
                      "from `claims.textproto` and the runs it names, by trial ",
                      code.Describe(), ". Do not edit: rerun the command.\n");
}

TEST(ReportTest, ClaimsMarkdownNamesTheProgramAndEveryCpuItsTrialsRanOn) {
  PaperOutcome paper = Paper();
  paper.code.machine = "AuthenticAMD family 23 model 1";
  paper.code.products = "tuned xx";
  CodeVersion intel = paper.code;
  intel.machine = "GenuineIntel family 6 model 167";
  intel.products = "tuned oo";
  RunOutcome& run = paper.runs["r"];
  for (const CodeVersion* code : {&intel, &intel, &paper.code}) {
    Trial trial;
    trial.id = absl::StrCat("t", run.trials.size());
    trial.code = paper.code;
    run.trials.push_back(trial);
    TrialResult result;
    result.code = *code;
    run.results.push_back(result);
  }
  paper.runs["again"] = run;  // a second run reading the same trials counts them once
  const std::string md = ClaimsMarkdown(paper, "--paper=7");
  EXPECT_NE(md.find("<!-- trial program: " + ProgramKey(paper.code) + "; plugins:  -->"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("by trial " + DescribeProgram(paper.code) +
                    "; its trials ran on AuthenticAMD family 23 model 1 (products tuned xx): 1 trial; "
                    "GenuineIntel family 6 model 167 (products tuned oo): 2 trials. Do not edit"),
            std::string::npos)
      << md;
}

TEST(ReportTest, ReadmeStatusTableFromClaimsCsv) {
  const PaperOutcome paper = Paper();
  CodeVersion current;
  current.source = "5ca1ab1e5ca1ab1e";
  current.products = "xo";
  current.plugins = {{"plugins/metrics/used", "1111"}, {"plugins/metrics/unused", "2222"}};
  CodeVersion retuned = current, older = current, plugin_changed = current,
              other_plugin_changed = current;
  retuned.products = "ox";
  older.source = "0ddba110ddba110d";
  plugin_changed.plugins["plugins/metrics/used"] = "3333";
  other_plugin_changed.plugins["plugins/metrics/unused"] = "4444";
  const std::set<std::string> used = {"plugins/metrics/used"};
  const std::string table = ReadmeStatusTable(
      {{7, "A paper", "experiments/a/CLAIMS.md", ClaimsCsv(paper), "", ClaimsMdOf(current, used)},
       {8, "Another", "experiments/b/CLAIMS.md", ""},
       {9, "Quick only", "experiments/c/CLAIMS.md", "",
        "claim,verdict\nx,reproduced\ny,not reproduced\n"},
       {10, "Older", "experiments/d/CLAIMS.md", ClaimsCsv(paper), "", ClaimsMdOf(older, used)},
       {11,
        "Same specs",
        "experiments/e/CLAIMS.md",
        ClaimsCsv(paper),
        "",
        ClaimsMdOf(current, used),
        {{"r", "0123456789ab"}, {"unread", "000000000000"}}},
       {12,
        "Edited spec",
        "experiments/f/CLAIMS.md",
        ClaimsCsv(paper),
        "",
        ClaimsMdOf(current, used),
        {{"r", "fedcba987654"}}},
       {13, "Retuned", "experiments/g/CLAIMS.md", ClaimsCsv(paper), "", ClaimsMdOf(retuned, used)},
       {14, "Its plugin changed", "experiments/h/CLAIMS.md", ClaimsCsv(paper), "",
        ClaimsMdOf(plugin_changed, used)},
       {15, "Another plugin changed", "experiments/i/CLAIMS.md", ClaimsCsv(paper), "",
        ClaimsMdOf(other_plugin_changed, used)},
       {16, "This program, marked before programs", "experiments/j/CLAIMS.md", ClaimsCsv(paper),
        "", OlderClaimsMdOf(current, used)},
       {17, "Older, marked before programs", "experiments/k/CLAIMS.md", ClaimsCsv(paper), "",
        OlderClaimsMdOf(older, used)}},
      current);
  EXPECT_NE(table.find("| paper | claims | reproduced | partly | mixed | not specific | not "
                       "reproduced | inconclusive (noise) | inconclusive | not evaluated | table | "
                       "code |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| 7. A paper | 4 (full length) | 1 | 1 | 1 | 0 | 1 | 0 | 0 | 0 | "
                       "[experiments/a/CLAIMS.md](experiments/a/CLAIMS.md) | abcdef0 |"),
            std::string::npos)
      << table;
  // Trials of another program than this build's (the core, a plugin they ran, or built
  // otherwise): the row says so; a change to a plugin they did not run, or another CPU or
  // tuning (CLAIMS.md names the CPUs), does not.
  for (const int paper_number : {10, 14, 17}) {
    EXPECT_NE(table.find(absl::StrCat("| abcdef0; older trial code than this build's (`--paper=",
                                      paper_number, "` reruns its trials) |")),
              std::string::npos)
        << paper_number << table;
  }
  for (const char* md : {"g", "i", "j"}) {
    EXPECT_NE(table.find(absl::StrCat("[experiments/", md, "/CLAIMS.md](experiments/", md,
                                      "/CLAIMS.md) | abcdef0 |")),
              std::string::npos)
        << md << table;
  }
  // Trials of other specs than the repository's: the row names the runs.
  EXPECT_NE(table.find("[experiments/e/CLAIMS.md](experiments/e/CLAIMS.md) | abcdef0 |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| abcdef0; specs changed since (r: `--paper=12` reruns them) |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| 8. Another | 0 (not run yet) |"), std::string::npos) << table;
  EXPECT_NE(table.find("| 9. Quick only | 2 (shortened runs only (`--quick`)) | 1 | 0 | 0 | 0 | 1 "
                       "| 0 | 0 | 0 | "
                       "[experiments/c/claims_quick.csv](experiments/c/claims_quick.csv) |"),
            std::string::npos)
      << table;
  const std::string readme = "# x\n<!-- claims status -->\nold\n<!-- end claims status -->\nrest\n";
  EXPECT_EQ(ReplaceStatusTable(readme, "new\n").value(),
            "# x\n<!-- claims status -->\nnew\n<!-- end claims status -->\nrest\n");
  EXPECT_FALSE(ReplaceStatusTable("# x\n", "new\n").ok());
}

TEST(ReportTest, QuickVerdictChanges) {
  const PaperOutcome paper = Paper();
  EXPECT_EQ(QuickVerdictsCsv(paper),
            "claim,verdict\n1,reproduced\n2,mixed\n3,not reproduced\n4,partly reproduced\n");
  EXPECT_TRUE(QuickVerdictChanges(paper, QuickVerdictsCsv(paper)).empty());
  EXPECT_EQ(QuickVerdictChanges(
                paper, "claim,verdict\n1,reproduced\n2,reproduced\n4,partly reproduced\n5,mixed\n"),
            (std::vector<std::string>{
                "2: expected reproduced, got mixed (held: met. Contradicted: missed.)",
                "3: not in the committed quick verdicts (got not reproduced)",
                "5: in the committed quick verdicts (mixed) but not a claim"}));
}

// A one-trial spec that trains in milliseconds, written to dir/name.textproto.
void WriteTinySpec(const std::string& dir, const std::string& name) {
  ASSERT_TRUE(MakeDirectories(dir).ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/" + name + ".textproto", R"pb(
                model {
                  layer {
                    name: "attention"
                    plugin: "prompt"
                    config {
                      scale: 1
                      w { init: IDENTITY frozen: true }
                      v {
                        value: [ 0, 1 ]
                        frozen: true
                      }
                    }
                  }
                  loss { plugin: "logistic" }
                }
                dataset {
                  plugin: "sequences" config {
                    sequence {
                      token { x: [ 1, 1 ] }
                      token { x: [ 0, 0.5 ] }
                    }
                  }
                }
                optimizer {
                  plugin: "normalized_gd"
                  lr: 0.1
                }
                training { steps: 20 log_every: 10 }
                metric {
                  name: "corr"
                  plugin: "max_margin" config { layer: "attention" }
                })pb")
                  .ok());
}

// A claims file's mistakes surface before any trial trains: RunClaims dry-runs every run and
// checks every claim against the trials it would get.
TEST(ClaimsRunnerTest, MisnamedMetricFailsBeforeTraining) {
  const std::string dir = ::testing::TempDir() + "/claims_runner";
  WriteTinySpec(dir, "tiny");
  const std::string claims = R"pb(number: 9 paper: "p"
    run { name: "tiny" spec: "tiny.textproto" }
    claim { id: "c" words: "w" check { central: true run: "tiny" value { metric: "corr" step: 20 } } }
    claim { id: "d" words: "w" check { central: true run: "tiny" value { metric: "cor" } } })pb";
  ASSERT_TRUE(WriteFileAtomically(dir + "/claims.textproto", claims).ok());
  absl::StatusOr<ClaimsFileText> file = ReadClaimsFile(dir + "/claims.textproto");
  ASSERT_TRUE(file.ok()) << file.status();
  ClaimsOptions options;
  options.out_dir = dir + "/stores";
  options.progress = false;
  absl::StatusOr<PaperOutcome> paper = RunClaims(*file, options);
  EXPECT_EQ(paper.status().message(),
            dir + "/claims.textproto:4: claim d: check[0].value: run tiny has no metric 'cor'");
  EXPECT_FALSE(Exists(dir + "/stores")) << "nothing ran";
}

// A claims file of two claims: "c" reads run "other"; "d" reads run "judged" and misses, and
// its cause reads run "evidence".
ClaimsFileText ClaimsWithACause(const std::string& dir) {
  for (const char* run : {"other", "judged", "evidence"}) WriteTinySpec(dir, run);
  EXPECT_TRUE(WriteFileAtomically(dir + "/claims.textproto",
                                  R"pb(number: 9
                                       paper: "p"
                                       run { name: "other" spec: "other.textproto" }
                                       run { name: "judged" spec: "judged.textproto" }
                                       run { name: "evidence" spec: "evidence.textproto" }
                                       claim {
                                         id: "c"
                                         words: "w"
                                         check {
                                           central: true
                                           run: "other"
                                           value { metric: "corr" }
                                           reproduced { op: GT value: 0 }
                                         }
                                       }
                                       claim {
                                         id: "d"
                                         words: "w"
                                         check {
                                           central: true
                                           run: "judged"
                                           value { metric: "corr" }
                                           reproduced { op: GT value: 2 }
                                         }
                                         cause {
                                           kind: SCALE
                                           text: "t"
                                           evidence {
                                             run: "evidence"
                                             value { metric: "corr" }
                                           }
                                         }
                                       })pb")
                  .ok());
  absl::StatusOr<ClaimsFileText> file = ReadClaimsFile(dir + "/claims.textproto");
  EXPECT_TRUE(file.ok()) << file.status();
  return file.value_or(ClaimsFileText{});
}

// --quick runs what verdicts read and skips a run that only a cause reads.
TEST(ClaimsRunnerTest, QuickSkipsRunsOnlyCausesRead) {
  const std::string dir = ::testing::TempDir() + "/claims_quick";
  const ClaimsFileText file = ClaimsWithACause(dir);
  for (const bool quick : {false, true}) {
    ClaimsOptions options;
    options.out_dir = dir + (quick ? "/quick_stores" : "/stores");
    options.progress = false;
    options.quick = quick;
    absl::StatusOr<PaperOutcome> paper = RunClaims(file, options);
    ASSERT_TRUE(paper.ok()) << paper.status();
    EXPECT_EQ(paper->runs.at("judged").trials.size(), 1u) << quick;
    EXPECT_EQ(paper->runs.at("evidence").trials.size(), quick ? 0u : 1u) << quick;
    ASSERT_EQ(paper->outcomes.size(), 2u);
    EXPECT_EQ(paper->outcomes[1].verdict, Verdict::kNotReproduced) << quick;
  }
}

// --claim judges the claims asked for and runs only what they read, causes' evidence included.
TEST(ClaimsRunnerTest, ClaimsAskedForRunOnlyWhatTheyRead) {
  const std::string dir = ::testing::TempDir() + "/claims_asked";
  ClaimsOptions options;
  options.out_dir = dir + "/stores";
  options.progress = false;
  options.claims = {"d"};
  absl::StatusOr<PaperOutcome> paper = RunClaims(ClaimsWithACause(dir), options);
  ASSERT_TRUE(paper.ok()) << paper.status();
  EXPECT_EQ(paper->runs.at("other").trials.size(), 0u);
  EXPECT_EQ(paper->runs.at("other").status.message(),
            "skipped by --claim (no claim asked for reads it)");
  EXPECT_EQ(paper->runs.at("judged").trials.size(), 1u);
  EXPECT_EQ(paper->runs.at("evidence").trials.size(), 1u);
  ASSERT_EQ(paper->outcomes.size(), 1u);
  EXPECT_EQ(paper->outcomes[0].claim.id(), "d");
  EXPECT_EQ(paper->outcomes[0].verdict, Verdict::kNotReproduced);
  ASSERT_EQ(paper->outcomes[0].causes.size(), 1u);
  EXPECT_TRUE(paper->outcomes[0].causes[0].evidence[0].evaluated());
}

}  // namespace
}  // namespace attnlab

#include <cmath>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "attention/base/files.h"
#include "experiments/reproduction/check.h"
#include "experiments/reproduction/claims_runner.h"
#include "experiments/reproduction/claims_report.h"
#include "experiments/reproduction/verdict.h"
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
  EXPECT_EQ(outcome.rule, "mean - 1 sd > 0");
  EXPECT_EQ(outcome.Number(), "2 +- 1 (mean +- sd of 3)");
  EXPECT_EQ(Evaluate(check + " reproduced { op: GT value: 0 margin_sd: 2 }").level, Level::kNot);
  EXPECT_EQ(Evaluate(check + " reproduced { op: LT value: 4.5 margin_sd: 2 }").level,
            Level::kReproduced);
  EXPECT_EQ(Evaluate(check + " reproduced { op: LT value: 4 margin_sd: 2 }").level, Level::kNot);
  // |2 - 2.5| + 1 sd = 1.5.
  const CheckOutcome within =
      Evaluate(check + " reproduced { op: WITHIN value: 2.5 tolerance: 1.5 margin_sd: 1 }");
  EXPECT_EQ(within.level, Level::kReproduced);
  EXPECT_EQ(within.rule, "mean +- 1 sd within 1.5 of 2.5");
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
  EXPECT_EQ(outcome.rule, "> 2; partly: largest > 6");
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

Verdict Judge(const std::string& checks) {
  absl::StatusOr<ClaimOutcome> outcome = JudgeClaim(ClaimWith(checks), Runs());
  EXPECT_TRUE(outcome.ok()) << outcome.status();
  return outcome.ok() ? outcome->verdict : Verdict::kNotEvaluated;
}

TEST(VerdictTest, FollowsTheRules) {
  EXPECT_EQ(Judge(std::string(kMet) + kMet), Verdict::kReproduced);
  EXPECT_EQ(Judge(std::string(kMet) + kMissed), Verdict::kPartly);
  EXPECT_EQ(Judge(std::string(kHalf) + kHalf), Verdict::kPartly);
  EXPECT_EQ(Judge(std::string(kHalf) + kMissed), Verdict::kNotReproduced);
  EXPECT_EQ(Judge(kMissed), Verdict::kNotReproduced);
  EXPECT_EQ(JudgeClaim(ClaimWith(""), Runs()).status().message(),
            "claim c: check: list at least one");
}

TEST(VerdictTest, FailedPreconditionIsInconclusive) {
  absl::StatusOr<ClaimOutcome> outcome = JudgeClaim(
      ClaimWith(std::string(kMet) + R"pb(precondition { name: "baseline beats 0" run: "r"
                  value { metric: "m" } aggregate: MIN reproduced { op: GT value: 1.5 } })pb"),
      Runs());
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->verdict, Verdict::kInconclusive);
  EXPECT_EQ(outcome->reason,
            "baseline beats 0 is 1 (least of 6; range 1 to 7), and the comparison needs > 1.5");
  // Why the precondition failed can be established too.
  outcome = JudgeClaim(
      ClaimWith(std::string(kMet) + R"pb(precondition { name: "p" run: "r" value { metric: "m" }
                  aggregate: MIN reproduced { op: GT value: 1.5 } }
                cause { kind: CONFIGURATION text: "starts low" evidence { name: "e" run: "r"
                  value { metric: "m" step: 0 } reproduced { op: LT value: 2 } } })pb"),
      Runs());
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->verdict, Verdict::kInconclusive);
  ASSERT_EQ(outcome->causes.size(), 1u);
  EXPECT_TRUE(outcome->causes[0].shown);
}

TEST(VerdictTest, CauseIsEstablishedOnlyByItsEvidence) {
  absl::StatusOr<ClaimOutcome> outcome = JudgeClaim(ClaimWith(std::string(kMissed) + R"pb(
        cause { kind: SCALE text: "shown" evidence { name: "e" run: "r" value { metric: "m" }
                                                       reproduced { op: GT value: 0 } } }
        cause { kind: READING text: "not shown" evidence { name: "e" run: "r" value { metric: "m" }
                                                           reproduced { op: LT value: 0 } } }
        cause { kind: DATA text: "no run" })pb"),
      Runs());
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  ASSERT_EQ(outcome->causes.size(), 3u);
  EXPECT_TRUE(outcome->causes[0].shown);
  EXPECT_FALSE(outcome->causes[1].shown);
  EXPECT_FALSE(outcome->causes[2].shown);
  // Reproduced claims carry no causes.
  outcome =
      JudgeClaim(ClaimWith(std::string(kMet) + R"pb(cause { kind: SCALE text: "x" })pb"), Runs());
  ASSERT_TRUE(outcome.ok());
  EXPECT_TRUE(outcome->causes.empty());
}

PaperOutcome Paper() {
  PaperOutcome paper;
  paper.claims.file = Parse<ClaimsFile>(R"pb(number: 7 paper: "A paper")pb");
  paper.code.source = "s";
  paper.code.commit = "abcdef0123";
  for (const std::string& checks :
       {std::string(kMet), std::string(kMissed) + kMet, std::string(kMissed)}) {
    ClaimOutcome outcome = JudgeClaim(ClaimWith(checks), Runs()).value();
    outcome.claim.set_id(std::to_string(paper.outcomes.size() + 1));
    paper.outcomes.push_back(outcome);
  }
  return paper;
}

TEST(ReportTest, TallyTableAndCsv) {
  const PaperOutcome paper = Paper();
  EXPECT_EQ(TallyLine(CountVerdicts(paper.outcomes)),
            "1 of 3 reproduced (1 partly, 1 not reproduced)");
  const std::string md = ClaimsMarkdown(paper);
  EXPECT_NE(md.find("# Paper 7 claims: A paper"), std::string::npos) << md;
  EXPECT_NE(md.find("**1 of 3 reproduced (1 partly, 1 not reproduced).**"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| **3** m grows |"), std::string::npos) << md;
  EXPECT_NE(md.find("**not reproduced** | cause not established"), std::string::npos) << md;
  EXPECT_NE(md.find("| abcdef0 | r:0123456789ab |"), std::string::npos) << md;
  const std::string summary = ClaimsSummary(paper);
  EXPECT_NE(summary.find("  3  not reproduced     missed 3.5 +- 2.2 (mean +- sd of 6)\n    cause "
                         "not established (no run tests one)\n"),
            std::string::npos)
      << summary;
  const std::string csv = ClaimsCsv(paper);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "paper,claim,verdict,part,name,value,mean,sd,min,max,trials,rule,met,commits,specs");
  EXPECT_NE(csv.find("\n7,2,partly reproduced,check,missed,3.5,3.5,"), std::string::npos) << csv;
}

TEST(ReportTest, ReadmeStatusTableFromClaimsCsv) {
  const PaperOutcome paper = Paper();
  CodeVersion current;
  current.source = "5ca1ab1e5ca1ab1e";
  current.products = "xo";
  CodeVersion retuned = current, older = current;
  retuned.products = "ox";
  older.source = "0ddba110ddba110d";
  const std::string by_current = "Generated ... by " + current.Describe();
  const std::string table = ReadmeStatusTable(
      {{7, "A paper", "experiments/a/CLAIMS.md", ClaimsCsv(paper), "", by_current},
       {8, "Another", "experiments/b/CLAIMS.md", ""},
       {9, "Quick only", "experiments/c/CLAIMS.md", "",
        "claim,verdict\nx,reproduced\ny,not reproduced\n"},
       {10, "Older", "experiments/d/CLAIMS.md", ClaimsCsv(paper), "",
        "Generated ... by " + older.Describe()},
       {11,
        "Same specs",
        "experiments/e/CLAIMS.md",
        ClaimsCsv(paper),
        "",
        by_current,
        {{"r", "0123456789ab"}, {"unread", "000000000000"}}},
       {12,
        "Edited spec",
        "experiments/f/CLAIMS.md",
        ClaimsCsv(paper),
        "",
        by_current,
        {{"r", "fedcba987654"}}},
       {13, "Retuned", "experiments/g/CLAIMS.md", ClaimsCsv(paper), "",
        "Generated ... by " + retuned.Describe()}},
      current);
  EXPECT_NE(table.find("| 7. A paper | 1 of 3 reproduced (1 partly, 1 not reproduced) | "
                       "[experiments/a/CLAIMS.md](experiments/a/CLAIMS.md) | abcdef0 |"),
            std::string::npos)
      << table;
  // Trials of other code than this build's: the row says so.
  EXPECT_NE(table.find("| abcdef0; older trial code than this build's (`--paper=10` reruns its "
                       "trials) |"),
            std::string::npos)
      << table;
  // The same source built or tuned otherwise: the row says that, not "older".
  EXPECT_NE(table.find("| abcdef0; this trial code built or tuned otherwise (compiler, CPU or "
                       "product backends: `--paper=13` reruns its trials) |"),
            std::string::npos)
      << table;
  // Trials of other specs than the repository's: the row names the runs.
  EXPECT_NE(table.find("[experiments/e/CLAIMS.md](experiments/e/CLAIMS.md) | abcdef0 |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| abcdef0; specs changed since (r: `--paper=12` reruns them) |"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| 8. Another | not run yet |"), std::string::npos) << table;
  EXPECT_NE(table.find("| 9. Quick only | not run at full length yet; shortened runs (`--quick`): "
                       "1 of 2 reproduced (1 not reproduced) | "
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
            "claim,verdict\n1,reproduced\n2,partly reproduced\n3,not reproduced\n");
  EXPECT_TRUE(QuickVerdictChanges(paper, QuickVerdictsCsv(paper)).empty());
  EXPECT_EQ(QuickVerdictChanges(paper, "claim,verdict\n1,reproduced\n2,reproduced\n4,reproduced\n"),
            (std::vector<std::string>{
                "2: expected reproduced, got partly reproduced",
                "3: not in the committed quick verdicts (got not reproduced)",
                "4: in the committed quick verdicts (reproduced) but not a claim"}));
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
    claim { id: "c" words: "w" check { run: "tiny" value { metric: "corr" step: 20 } } }
    claim { id: "d" words: "w" check { run: "tiny" value { metric: "cor" } } })pb";
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
                                           run: "other"
                                           value { metric: "corr" }
                                           reproduced { op: GT value: 0 }
                                         }
                                       }
                                       claim {
                                         id: "d"
                                         words: "w"
                                         check {
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

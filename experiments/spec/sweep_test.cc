#include "experiments/spec/sweep.h"

#include <set>

#include "attention/base/field_error.h"
#include "experiments/spec/spec_loader.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

ExperimentSpec Parse(const std::string& text) {
  auto parsed = ParseSpecText(text, "t");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed->spec;
}

constexpr char kGrid[] = R"pb(
  optimizer { plugin: "gd" lr: 0.1 }
  training { steps: 10 seed: 9 }
  sweep {
    axis { field: "optimizer.lr" value: [ "0.1", "1" ] }
    axis { name: "steps" field: "training.steps" value: [ "5", "6", "7" ] label: [ "a", "b", "c" ] }
    seed: [ 1, 2 ]
  })pb";

TEST(SweepTest, ExpandsTheGridTimesSeedsInOrder) {
  auto trials = ExpandSweep(Parse(kGrid));
  ASSERT_TRUE(trials.ok()) << trials.status();
  ASSERT_EQ(trials->size(), 12u);
  const Trial& t = (*trials)[3];  // lr 0.1, steps 6, seed 2
  EXPECT_EQ(t.spec.optimizer().lr(), 0.1);
  EXPECT_EQ(t.spec.training().steps(), 6);
  EXPECT_EQ(t.spec.training().seed(), 2u);
  EXPECT_FALSE(t.spec.has_sweep());
  const std::vector<std::pair<std::string, std::string>> labels = {
      {"optimizer.lr", "0.1"}, {"steps", "b"}, {"seed", "2"}};
  EXPECT_EQ(t.labels, labels);
  EXPECT_EQ(SweepColumns(Parse(kGrid)),
            (std::vector<std::string>{"optimizer.lr", "steps", "seed"}));
}

TEST(SweepTest, IdsAreStableAndDistinct) {
  auto a = ExpandSweep(Parse(kGrid));
  auto b = ExpandSweep(Parse(kGrid));
  std::set<std::string> ids;
  for (size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ((*a)[i].id, (*b)[i].id);
    EXPECT_EQ((*a)[i].id.size(), 12u);
    ids.insert((*a)[i].id);
  }
  EXPECT_EQ(ids.size(), a->size());
}

TEST(SweepTest, NoSweepIsOneTrialWithTheTrainingSeed) {
  auto trials = ExpandSweep(Parse("training { steps: 3 seed: 4 }"));
  ASSERT_EQ(trials->size(), 1u);
  EXPECT_EQ((*trials)[0].spec.training().seed(), 4u);
}

// An axis of points sets several fields per point; points cross the other axes like values.
TEST(SweepTest, PointsSetSeveralFieldsTogether) {
  auto trials = ExpandSweep(Parse(R"pb(
    optimizer { plugin: "gd" lr: 0.1 }
    training { steps: 10 }
    sweep {
      axis {
        name: "variant"
        point { label: "as is" }
        point {
          label: "fast"
          set { field: "optimizer.lr" value: "1" }
          set { field: "training.steps" value: "5" }
        }
      }
      axis { field: "training.log_every" value: [ "1", "2" ] }
    })pb"));
  ASSERT_TRUE(trials.ok()) << trials.status();
  ASSERT_EQ(trials->size(), 4u);
  EXPECT_EQ((*trials)[0].spec.optimizer().lr(), 0.1);
  EXPECT_EQ((*trials)[0].spec.training().steps(), 10);
  const Trial& fast = (*trials)[3];
  EXPECT_EQ(fast.spec.optimizer().lr(), 1);
  EXPECT_EQ(fast.spec.training().steps(), 5);
  EXPECT_EQ(fast.labels[0], std::make_pair(std::string("variant"), std::string("fast")));
}

TEST(SweepTest, PointsNeedANameAndLabelsAndGoodFields) {
  auto error = [](const std::string& axis) {
    auto trials = ExpandSweep(Parse("training { steps: 1 } sweep { axis { " + axis + " } }"));
    return std::string(trials.status().message());
  };
  EXPECT_EQ(error("point { label: \"a\" }"),
            "sweep.axis[0].name: an axis of points needs a name");
  EXPECT_EQ(error("name: \"v\" point { }"),
            "sweep.axis[0].point[0].label: missing required field 'label'");
  EXPECT_EQ(error("name: \"v\" field: \"optimizer.lr\" point { label: \"a\" }"),
            "sweep.axis[0].point: give either points or field and values, not both");
  EXPECT_EQ(ErrorField(ExpandSweep(Parse(R"pb(
    training { steps: 1 }
    sweep { axis { name: "v" point { label: "a" set { field: "optimizer.lrr" value: "1" } } } }
  )pb")).status()), "sweep.axis[0].point[0].set[0]");
}

TEST(SweepTest, OverridesTheSweepReplacesAreFound) {
  const ExperimentSpec spec = Parse(R"pb(
    training { steps: 1 }
    sweep {
      axis { field: "optimizer" value: [ "{ plugin: 'gd' lr: 1 }" ] }
      axis { name: "m" field: "." value: [ "model { dtype: FLOAT }" ] }
      axis { name: "p" point { label: "a" set { field: "dataset.seed" value: "3" } } }
    })pb");
  for (const char* swept : {"optimizer.lr", "optimizer", "model.layer[0].plugin", "dataset",
                            "dataset.seed"}) {
    EXPECT_FALSE(CheckNotSwept(spec, swept, "").ok()) << swept;
  }
  for (const char* free : {"training.steps", "dataset.planted", "sweep.seed", "report"}) {
    EXPECT_TRUE(CheckNotSwept(spec, free, "").ok()) << free;
  }
  EXPECT_EQ(std::string(CheckNotSwept(spec, "model.dtype", "FLOAT").message()),
            "the sweep's axis 'm' (sweep.axis[1]) sets model in every trial and would replace "
            "this value; change the axis's values instead");
  // "." sets whole top-level fields: each is checked (an optimizer through "." was dropped).
  EXPECT_EQ(std::string(CheckNotSwept(spec, ".", "optimizer { plugin: 'adam' lr: nan }").message()),
            "the sweep's axis 'optimizer' (sweep.axis[0]) sets optimizer in every trial and would "
            "replace this value; change the axis's values instead");
  EXPECT_TRUE(CheckNotSwept(spec, ".", "training { steps: 2 } sweep { seed: 1 }").ok());
}

TEST(SweepTest, BadValuesNameTheAxisValue) {
  auto trials = ExpandSweep(Parse(R"pb(
    sweep { axis { field: "optimizer.lr" value: [ "0.1", "fast" ] } })pb"));
  EXPECT_EQ(ErrorField(trials.status()), "sweep.axis[0].value[1]");
  trials =
      ExpandSweep(Parse(R"pb(sweep { axis { field: "x" value: "1" label: [ "a", "b" ] } })pb"));
  EXPECT_EQ(ErrorField(trials.status()), "sweep.axis[0].label");
}

// Findings of the sweep fuzzer, kept: a grid of 20 axes x 10 values ran until memory ran out,
// and a repeated value gave two trials one store entry (their writes raced).
TEST(SweepTest, HugeGridsAndRepeatedTrialsAreErrors) {
  std::string text = "optimizer { plugin: 'gd' lr: 0.1 } sweep {";
  for (int a = 0; a < 20; ++a) {
    text +=
        R"pb( axis { field: "optimizer.lr" value: [ "1", "2", "3", "4", "5", "6", "7", "8", "9", "10" ] })pb";
  }
  auto trials = ExpandSweep(Parse(text + "}"));
  EXPECT_EQ(ErrorField(trials.status()), "sweep");
  EXPECT_NE(trials.status().message().find("the grid has over 2^64 trials; at most 100000"),
            std::string::npos) << trials.status();
  trials = ExpandSweep(Parse(R"pb(
    optimizer { plugin: "gd" lr: 0.1 }
    sweep { axis { field: "optimizer.lr" value: [ "0.5", "1", "1.0" ] } seed: [ 1, 2 ] })pb"));
  EXPECT_EQ(ErrorField(trials.status()), "sweep");
  EXPECT_NE(trials.status().message().find(
                "trials optimizer.lr=1 seed=1 and optimizer.lr=1.0 seed=1 are the same spec"),
            std::string::npos) << trials.status();
  trials = ExpandSweep(Parse(R"pb(sweep { seed: [ 3, 4, 3 ] })pb"));
  EXPECT_NE(trials.status().message().find("trials seed=3 and seed=3 are the same spec"),
            std::string::npos) << trials.status();
}

}  // namespace
}  // namespace attnlab

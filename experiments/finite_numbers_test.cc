#include "experiments/finite_numbers.h"

#include <string>

#include "attention/base/field_error.h"
#include "experiments/experiment.pb.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "plugins/prompt/prompt.pb.h"

namespace attnlab {
namespace {

ExperimentSpec Parse(const std::string& text) {
  ExperimentSpec spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &spec)) << text;
  return spec;
}

TEST(FiniteNumbersTest, FiniteSpecsPass) {
  EXPECT_TRUE(CheckFiniteNumbers(Parse(R"pb(
    dataset { images { mean: [0.5] std: [0.25] } }
    optimizer { lr: 0.1 }
    training { steps: 9223372036854775807 }
  )pb")).ok());
}

TEST(FiniteNumbersTest, NamesTheFirstNonFiniteField) {
  // std: inf made every normalized pixel 0 (the model trained at chance, exit 0).
  const absl::Status inf = CheckFiniteNumbers(Parse("dataset { images { std: [0.3, inf] } }"));
  EXPECT_EQ(ErrorField(inf), "dataset.images.std[1]");
  EXPECT_EQ(std::string(inf.message()), "dataset.images.std[1]: must be a finite number, got inf");
  EXPECT_EQ(ErrorField(CheckFiniteNumbers(Parse("optimizer { lr: nan }"))), "optimizer.lr");
  EXPECT_EQ(ErrorField(CheckFiniteNumbers(Parse("optimizer { lr: -inf }"))), "optimizer.lr");
}

TEST(FiniteNumbersTest, LooksInsidePluginConfigs) {
  const ExperimentSpec spec = Parse(R"pb(
    model {
      layer {
        plugin: "prompt"
        config {
          [type.googleapis.com/attnlab.plugins.PromptAttentionConfig] { p { value: [0, nan] } }
        }
      }
    })pb");
  EXPECT_EQ(ErrorField(CheckFiniteNumbers(spec)), "model.layer[0].config.p.value[1]");
}

}  // namespace
}  // namespace attnlab

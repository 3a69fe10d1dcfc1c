#include "experiments/finite_numbers.h"

#include <limits>
#include <memory>
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

// Property over the whole schema: every float or double field reachable in ExperimentSpec
// (through nested messages, 6 deep), set alone to inf or NaN, is the field the check names.
void SetEachNumber(google::protobuf::Message* message, const std::string& prefix, int depth,
                   int* checked) {
  const auto* descriptor = message->GetDescriptor();
  for (int f = 0; f < descriptor->field_count(); ++f) {
    const auto* field = descriptor->field(f);
    const std::string path = prefix.empty() ? field->name() : prefix + "." + field->name();
    const std::string at = field->is_repeated() ? path + "[0]" : path;
    std::unique_ptr<google::protobuf::Message> copy(message->New());
    const auto* reflection = copy->GetReflection();
    using google::protobuf::FieldDescriptor;
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (depth == 0 || field->message_type()->full_name() == "google.protobuf.Any") continue;
      google::protobuf::Message* child = field->is_repeated()
                                             ? reflection->AddMessage(copy.get(), field)
                                             : reflection->MutableMessage(copy.get(), field);
      SetEachNumber(child, at, depth - 1, checked);
      continue;
    }
    for (double bad : {std::numeric_limits<double>::infinity(),
                       std::numeric_limits<double>::quiet_NaN()}) {
      std::unique_ptr<google::protobuf::Message> one(message->New());
      if (field->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE) {
        field->is_repeated() ? one->GetReflection()->AddDouble(one.get(), field, bad)
                             : one->GetReflection()->SetDouble(one.get(), field, bad);
      } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_FLOAT) {
        field->is_repeated() ? one->GetReflection()->AddFloat(one.get(), field, float(bad))
                             : one->GetReflection()->SetFloat(one.get(), field, float(bad));
      } else {
        break;
      }
      const absl::Status status = CheckFiniteNumbers(*one);
      EXPECT_EQ(ErrorField(status), at.substr(at.rfind('.') + 1)) << at << " = " << bad;
      ++*checked;
    }
  }
}

TEST(FiniteNumbersTest, EveryNumberFieldOfTheSchemaIsChecked) {
  ExperimentSpec spec;
  int checked = 0;
  SetEachNumber(&spec, "", 6, &checked);
  EXPECT_GT(checked, 20);  // the schema's numbers: rates, noise, shifts, epsilons, ...
}

}  // namespace
}  // namespace attnlab

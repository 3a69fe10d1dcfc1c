#include "experiments/spec/finite_numbers.h"

#include <limits>
#include <memory>
#include <string>

#include "attention/base/field_error.h"
#include "attention/plugin_catalog.h"
#include "experiments/spec/experiment.pb.h"
#include "google/protobuf/any.pb.h"
#include "experiments/spec/spec_loader.h"
#include "gtest/gtest.h"
#include "plugins/layers/prompt/prompt.pb.h"

namespace attnlab {
namespace {

ExperimentSpec Parse(const std::string& text) {
  absl::StatusOr<ParsedSpec> parsed = ParseSpecText(text, "t.textproto");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? parsed->spec : ExperimentSpec();
}

TEST(FiniteNumbersTest, FiniteSpecsPass) {
  EXPECT_TRUE(CheckFiniteNumbers(Parse(R"pb(
    dataset { plugin: "images" config { mean: [0.5] std: [0.25] } }
    optimizer { lr: 0.1 }
    training { steps: 9223372036854775807 }
  )pb")).ok());
}

TEST(FiniteNumbersTest, NamesTheFirstNonFiniteField) {
  // std: inf made every normalized pixel 0 (the model trained at chance, exit 0).
  const absl::Status inf = CheckFiniteNumbers(Parse("dataset { plugin: 'images' config { std: [0.3, inf] } }"));
  EXPECT_EQ(ErrorField(inf), "dataset.config.std[1]");
  EXPECT_EQ(std::string(inf.message()), "dataset.config.std[1]: must be a finite number, got inf");
  EXPECT_EQ(ErrorField(CheckFiniteNumbers(Parse("optimizer { lr: nan }"))), "optimizer.lr");
  EXPECT_EQ(ErrorField(CheckFiniteNumbers(Parse("optimizer { lr: -inf }"))), "optimizer.lr");
}

TEST(FiniteNumbersTest, LooksInsidePluginConfigs) {
  // Refers to the config type, so that a static link keeps it for the parser to find.
  ASSERT_NE(plugins::PromptAttentionConfig::descriptor(), nullptr);
  const ExperimentSpec spec = Parse(R"pb(
    model {
      layer {
        plugin: "prompt"
        config {
          p { value: [0, nan] }
        }
      }
    })pb");
  EXPECT_EQ(ErrorField(CheckFiniteNumbers(spec)), "model.layer[0].config.p.value[1]");
}

// Property over the whole schema: every float or double field of every message reachable from
// ExperimentSpec or a plugin's config (6 deep), set alone to inf or NaN, is the field the check names. (The other
// tests check that paths through nested messages, repeated fields and Any configs add up.)
void CheckEveryNumberOf(const google::protobuf::Descriptor* type, int depth, int* checked) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Message* prototype =
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(type);
  for (int f = 0; f < type->field_count(); ++f) {
    const FieldDescriptor* field = type->field(f);
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (depth > 0 && field->message_type() != google::protobuf::Any::descriptor()) {
        CheckEveryNumberOf(field->message_type(), depth - 1, checked);
      }
      continue;
    }
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_DOUBLE &&
        field->cpp_type() != FieldDescriptor::CPPTYPE_FLOAT) {
      continue;
    }
    const std::string expected = field->is_repeated() ? field->name() + "[0]" : field->name();
    for (double bad : {std::numeric_limits<double>::infinity(),
                       std::numeric_limits<double>::quiet_NaN()}) {
      std::unique_ptr<google::protobuf::Message> one(prototype->New());
      const google::protobuf::Reflection* reflection = one->GetReflection();
      if (field->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE) {
        field->is_repeated() ? reflection->AddDouble(one.get(), field, bad)
                             : reflection->SetDouble(one.get(), field, bad);
      } else {
        field->is_repeated() ? reflection->AddFloat(one.get(), field, float(bad))
                             : reflection->SetFloat(one.get(), field, float(bad));
      }
      EXPECT_EQ(ErrorField(CheckFiniteNumbers(*one)), expected)
          << type->full_name() << "." << expected << " = " << bad;
      ++*checked;
    }
  }
}

TEST(FiniteNumbersTest, EveryNumberFieldOfTheSchemaIsChecked) {
  int checked = 0;
  CheckEveryNumberOf(ExperimentSpec::descriptor(), 6, &checked);
  // And of every registered plugin's config, which a spec holds in an Any.
  for (const PluginInfo* plugin : AllPlugins()) {
    if (plugin->config_type != nullptr) CheckEveryNumberOf(plugin->config_type, 6, &checked);
  }
  EXPECT_GT(checked, 40);  // the schema's numbers: rates, noise, shifts, epsilons, ...
}

}  // namespace
}  // namespace attnlab

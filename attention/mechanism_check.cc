#include "attention/mechanism_check.h"

#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "attention/attention_layer.h"
#include "attention/base/field_error.h"
#include "attention/gradient_check.h"
#include "attention/mechanism.h"
#include "attention/plugin_field.pb.h"
#include "attention/registry.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/text_format.h"

namespace attnlab {
namespace {

// `text` parsed as the registered plugin's config and packed as a spec packs it.
template <typename Product>
absl::StatusOr<google::protobuf::Any> PackConfig(const Registry<Product>& registry,
                                                 const std::string& name,
                                                 const std::string& text) {
  const auto* entry = registry.Find(name);
  if (entry == nullptr) return absl::NotFoundError(absl::StrCat("no ", registry.kind(), " ", name));
  google::protobuf::DynamicMessageFactory factory;
  std::unique_ptr<google::protobuf::Message> message(
      factory.GetPrototype(entry->config_type)->New());
  if (!google::protobuf::TextFormat::ParseFromString(text, message.get())) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": config does not parse: ", text));
  }
  google::protobuf::Any any;
  any.set_type_url("type.googleapis.com/" + entry->config_type->full_name());
  any.set_value(message->SerializeAsString());
  return any;
}

// A layer of type `layer` set up for `input`; NotFound when the mechanism refused the form.
template <typename T>
absl::StatusOr<std::unique_ptr<Layer<T>>> MakeLayer(const std::string& layer,
                                                   const google::protobuf::Any& config,
                                                   const Shape& input) {
  absl::StatusOr<std::unique_ptr<Layer<T>>> created = LayerRegistry<T>().Create(layer, config);
  if (!created.ok()) {
    if (ErrorField(created.status()) == "mechanism") {
      return absl::NotFoundError(created.status().message());
    }
    return created.status();
  }
  std::unique_ptr<Layer<T>> made = std::move(*created);
  ExecContext ctx(3);
  if (absl::Status s = made->Setup(input, ctx).status(); !s.ok()) {
    if (ErrorField(s) == "mechanism") return absl::NotFoundError(s.message());
    return s;
  }
  return made;
}

// Tokens at random, the last column marking tokens 1 and 3 (the layers that read marks, as
// paper 3's does its set y, take them; the others take the column as data).
Tensor<double> FormInput(const Shape& input) {
  Tensor<double> x(input);
  x.flat().setRandom();
  for (int b = 0; b < input.batch; ++b) {
    x.sample(b).col(input.cols - 1).setZero();
    x.sample(b)(1, input.cols - 1) = x.sample(b)(3, input.cols - 1) = 1;
  }
  return x;
}

absl::Status CheckForm(const std::string& layer, const google::protobuf::Any& config) {
  const Shape input{3, 5, 4};
  ASSIGN_OR_RETURN(std::unique_ptr<Layer<double>> in_double,
                   MakeLayer<double>(layer, config, input));
  ASSIGN_OR_RETURN(std::unique_ptr<Layer<float>> in_float, MakeLayer<float>(layer, config, input));
  Tensor<double> x = FormInput(input), out;
  ExecContext ctx(3), ctx_float(3);  // one stream each: the same draws (paper 3's encodings)
  in_double->Forward(x, &out, ctx);
  if (!out.flat().allFinite()) return absl::InternalError("forward is not finite");
  Tensor<float> xf(input), out_f;
  xf.flat() = x.flat().cast<float>();
  in_float->Forward(xf, &out_f, ctx_float);  // same seed in Setup: same parameters
  const double gap = (out.flat().cast<float>() - out_f.flat()).cwiseAbs().maxCoeff();
  if (!(gap < 1e-4)) return absl::InternalError(absl::StrCat("float forward differs by ", gap));
  if (AttentionLayer<double>* attention = in_double->AsAttention()) {
    if (!attention->attention().flat().allFinite()) {
      return absl::InternalError("attention weights are not finite");
    }
  }
  return CheckLayerGradients(*in_double, x);
}

// The field of a layer's config message that names its mechanism (plugin_kind "mechanism"), or
// null: the layer hosts none.
const google::protobuf::FieldDescriptor* MechanismField(const google::protobuf::Descriptor* type) {
  for (int i = 0; type != nullptr && i < type->field_count(); ++i) {
    if (type->field(i)->options().GetExtension(plugin_kind) == "mechanism") return type->field(i);
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<google::protobuf::Any> WithMechanism(const std::string& layer,
                                                    const std::string& form,
                                                    const std::string& name,
                                                    const google::protobuf::Any& mechanism_config) {
  ASSIGN_OR_RETURN(google::protobuf::Any config, PackConfig(LayerRegistry<double>(), layer, form));
  google::protobuf::DynamicMessageFactory factory;
  const auto* type = LayerRegistry<double>().Find(layer)->config_type;
  const google::protobuf::FieldDescriptor* field = MechanismField(type);
  if (field == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("layer ", layer, " hosts no mechanism"));
  }
  const std::string& config_field = field->options().GetExtension(plugin_config);
  std::unique_ptr<google::protobuf::Message> message(factory.GetPrototype(type)->New());
  message->ParseFromString(config.value());
  const auto* reflection = message->GetReflection();
  reflection->SetString(message.get(), field, name);
  reflection
      ->MutableMessage(message.get(), type->FindFieldByName(config_field.empty() ? "config"
                                                                                 : config_field),
                       &factory)
      ->ParseFromString(mechanism_config.SerializeAsString());
  config.set_value(message->SerializeAsString());
  return config;
}

absl::StatusOr<google::protobuf::Any> MechanismConfig(const std::string& name,
                                                      const std::string& config_text) {
  return PackConfig(MechanismRegistry<double>(), name, config_text);
}

absl::Status CheckMechanismInEveryLayer(const std::string& name, const std::string& config_text) {
  ASSIGN_OR_RETURN(google::protobuf::Any mechanism_config, MechanismConfig(name, config_text));
  // Every registered layer that hosts a mechanism, in each form it registered as an example.
  int accepted = 0;
  for (const std::string& layer : LayerRegistry<double>().Names()) {
    const auto* entry = LayerRegistry<double>().Find(layer);
    if (MechanismField(entry->config_type) == nullptr) continue;
    for (const std::string& form : entry->examples) {
      ASSIGN_OR_RETURN(google::protobuf::Any config,
                       WithMechanism(layer, form, name, mechanism_config));
      absl::Status status = CheckForm(layer, config);
      if (absl::IsNotFound(status)) continue;  // the mechanism refused this form
      if (!status.ok()) return PrefixErrorField(absl::StrCat(layer, " {", form, "}"), status);
      ++accepted;
    }
  }
  if (accepted == 0) return absl::InvalidArgumentError(name + " accepted no layer form");
  return absl::OkStatus();
}

}  // namespace attnlab

#include "attention/mechanism_check.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "attention/attention_layer.h"
#include "attention/base/field_error.h"
#include "attention/gradient_check.h"
#include "attention/mechanism.h"
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
  ASSIGN_OR_RETURN(std::unique_ptr<Layer<T>> made, LayerRegistry<T>().Create(layer, config));
  ExecContext ctx(3);
  if (absl::Status s = made->Setup(input, ctx).status(); !s.ok()) {
    if (ErrorField(s) == "mechanism") return absl::NotFoundError(s.message());
    return s;
  }
  return made;
}

absl::Status CheckForm(const std::string& layer, const google::protobuf::Any& config) {
  const Shape input{3, 5, 4};
  ASSIGN_OR_RETURN(std::unique_ptr<Layer<double>> in_double, MakeLayer<double>(layer, config, input));
  ASSIGN_OR_RETURN(std::unique_ptr<Layer<float>> in_float, MakeLayer<float>(layer, config, input));
  Tensor<double> x(input), out;
  x.flat().setRandom();
  ExecContext ctx(3);
  in_double->Forward(x, &out, ctx);
  if (!out.flat().allFinite()) return absl::InternalError("forward is not finite");
  Tensor<float> xf(input), out_f;
  xf.flat() = x.flat().cast<float>();
  in_float->Forward(xf, &out_f, ctx);  // same seed in Setup: same parameters
  const double gap = (out.flat().cast<float>() - out_f.flat()).cwiseAbs().maxCoeff();
  if (!(gap < 1e-4)) return absl::InternalError(absl::StrCat("float forward differs by ", gap));
  if (AttentionLayer<double>* attention = in_double->AsAttention()) {
    if (!attention->attention().flat().allFinite()) {
      return absl::InternalError("attention weights are not finite");
    }
  }
  return CheckLayerGradients(*in_double, x);
}

}  // namespace

absl::Status CheckMechanismInEveryLayer(const std::string& name, const std::string& config_text) {
  ASSIGN_OR_RETURN(google::protobuf::Any mechanism_config,
                   PackConfig(MechanismRegistry<double>(), name, config_text));
  // Value width = key width in the symmetric forms: PAP subtracts its output from the keys.
  const std::pair<const char*, const char*> forms[] = {
      {"attention", "qk_dim: 3 value_dim: 2"},
      {"attention", "causal: true qk_dim: 2 value_dim: 3"},
      {"attention", "heads: 2 qk_dim: 2 value_dim: 2 bias: true output_dim: 4"},
      {"attention", "symmetric: true heads: 2 qk_dim: 2 value_dim: 2 bias: true output_dim: 4"},
      {"attention", "symmetric: true causal: true qk_dim: 3 value_dim: 3 scale: 0.8"},
      {"prompt", "value_dim: 2 p { init: NORMAL std: 1 }"},
      {"prompt", "w { init: NORMAL std: 1 } p { init: NORMAL std: 1 } scale: 0.5"},
  };
  int accepted = 0;
  for (const auto& [layer, form] : forms) {
    ASSIGN_OR_RETURN(google::protobuf::Any config, PackConfig(LayerRegistry<double>(), layer, form));
    // The layer's config with the mechanism set: fields `mechanism` and `mechanism_config`.
    google::protobuf::DynamicMessageFactory factory;
    const auto* type = LayerRegistry<double>().Find(layer)->config_type;
    std::unique_ptr<google::protobuf::Message> message(factory.GetPrototype(type)->New());
    message->ParseFromString(config.value());
    const auto* reflection = message->GetReflection();
    reflection->SetString(message.get(), type->FindFieldByName("mechanism"), name);
    reflection->MutableMessage(message.get(), type->FindFieldByName("mechanism_config"), &factory)
        ->ParseFromString(mechanism_config.SerializeAsString());
    config.set_value(message->SerializeAsString());
    absl::Status status = CheckForm(layer, config);
    if (absl::IsNotFound(status)) continue;  // the mechanism refused this form
    if (!status.ok()) return PrefixErrorField(absl::StrCat(layer, " {", form, "}"), status);
    ++accepted;
  }
  if (accepted == 0) return absl::InvalidArgumentError(name + " accepted no layer form");
  return absl::OkStatus();
}

}  // namespace attnlab

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

// Tokens at random; for sparse_select, the last column marks y = {1, 3}.
Tensor<double> FormInput(const std::string& layer, const Shape& input) {
  Tensor<double> x(input);
  x.flat().setRandom();
  if (layer == "sparse_select") {
    for (int b = 0; b < input.batch; ++b) {
      x.sample(b).col(input.cols - 1).setZero();
      x.sample(b)(1, input.cols - 1) = x.sample(b)(3, input.cols - 1) = 1;
    }
  }
  return x;
}

absl::Status CheckForm(const std::string& layer, const google::protobuf::Any& config) {
  const Shape input{3, 5, 4};
  ASSIGN_OR_RETURN(std::unique_ptr<Layer<double>> in_double,
                   MakeLayer<double>(layer, config, input));
  ASSIGN_OR_RETURN(std::unique_ptr<Layer<float>> in_float, MakeLayer<float>(layer, config, input));
  Tensor<double> x = FormInput(layer, input), out;
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

// The layer's config `form` (text) with the mechanism set: fields `mechanism` and
// `mechanism_config` of the layer's config message.
absl::StatusOr<google::protobuf::Any> WithMechanism(const std::string& layer,
                                                    const std::string& form,
                                                    const std::string& name,
                                                    const google::protobuf::Any& mechanism_config) {
  ASSIGN_OR_RETURN(google::protobuf::Any config, PackConfig(LayerRegistry<double>(), layer, form));
  google::protobuf::DynamicMessageFactory factory;
  const auto* type = LayerRegistry<double>().Find(layer)->config_type;
  std::unique_ptr<google::protobuf::Message> message(factory.GetPrototype(type)->New());
  message->ParseFromString(config.value());
  const auto* reflection = message->GetReflection();
  reflection->SetString(message.get(), type->FindFieldByName("mechanism"), name);
  reflection->MutableMessage(message.get(), type->FindFieldByName("mechanism_config"), &factory)
      ->ParseFromString(mechanism_config.SerializeAsString());
  config.set_value(message->SerializeAsString());
  return config;
}

// sparse_select's PROJECTED sampler draws only what the scores and W's gradient need, so its
// W gradient is a draw of another sampler than FULL's and finite differences do not apply:
// over 20,000 draws of one sample, the output and W's gradient must have FULL's first and
// second moments (each within 5 standard errors of the difference).
absl::Status CheckSamplersAgree(const std::string& name, const google::protobuf::Any& mechanism) {
  const int n = 20000;
  const Shape input{1, 12, 3};
  const Tensor<double> x = FormInput("sparse_select", input);
  Tensor<double> grad_out({1, 1, 2});
  grad_out.flat() << 0.7, -1.3;
  std::vector<Eigen::ArrayXd> m1, m2, m4;
  for (const char* sampler : {"FULL", "PROJECTED"}) {
    ASSIGN_OR_RETURN(google::protobuf::Any config,
                     WithMechanism("sparse_select",
                                   absl::StrCat("encoding_dim: 4 w { init: NORMAL std: 0.8 } "
                                                "sampler: ", sampler),
                                   name, mechanism));
    ASSIGN_OR_RETURN(std::unique_ptr<Layer<double>> layer,
                     MakeLayer<double>("sparse_select", config, input));
    ExecContext ctx(11);
    Tensor<double> out, grad_in;
    const int entries = 2 + 16;  // f, then dW
    Eigen::ArrayXd s1 = Eigen::ArrayXd::Zero(entries), s2 = s1, s4 = s1, draw(entries);
    for (int i = 0; i < n; ++i) {
      layer->Forward(x, &out, ctx);
      layer->Backward(grad_out, &grad_in, ctx);
      draw << out.data()[0], out.data()[1],
          Eigen::Map<const Eigen::ArrayXd>(layer->parameters()[0]->grad.data(), 16);
      s1 += draw / n;
      s2 += draw.square() / n;
      s4 += draw.square().square() / n;
    }
    m1.push_back(s1);
    m2.push_back(s2);
    m4.push_back(s4);
  }
  for (Eigen::Index k = 0; k < m1[0].size(); ++k) {
    const double var = m2[0][k] - m1[0][k] * m1[0][k];
    const double var_of_square = m4[0][k] - m2[0][k] * m2[0][k];
    if (!(std::abs(m1[1][k] - m1[0][k]) <= 5 * std::sqrt(2 * var / n) + 1e-12) ||
        !(std::abs(m2[1][k] - m2[0][k]) <= 5 * std::sqrt(2 * var_of_square / n) + 1e-12)) {
      return absl::InternalError(absl::StrCat(
          "sparse_select's PROJECTED sampler differs from FULL in distribution at entry ", k,
          " (", k < 2 ? "output" : "dL/dW", "): mean ", m1[1][k], " against ", m1[0][k],
          ", second moment ", m2[1][k], " against ", m2[0][k]));
    }
  }
  return absl::OkStatus();
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
      {"prompt", "query: FIRST_ROW value_dim: 2 w { init: NORMAL std: 1 }"},
      // Every encoding and sampler of paper 3's layer (the samplers back-propagate differently).
      {"sparse_select", "encoding_dim: 5 w { init: NORMAL std: 0.7 }"},
      // W frozen: the input gradient is exact; W's is checked in distribution below.
      {"sparse_select",
       "encoding_dim: 5 sampler: PROJECTED w { init: NORMAL std: 0.7 frozen: true }"},
      {"sparse_select", "encoding_dim: 5 distribution: SPHERE w { init: NORMAL std: 0.7 }"},
      {"sparse_select", "encoding_dim: 5 distribution: RADEMACHER w { init: NORMAL std: 0.7 }"},
      {"sparse_select", "encoding_dim: 5 positional: FIXED w { init: NORMAL std: 0.7 }"},
      {"sparse_select", "encoding_dim: 3 positional: LEARNED w { init: NORMAL std: 0.7 }"},
      {"sparse_select", "encoding_dim: 4 positional: SINUSOIDAL w { init: NORMAL std: 0.7 }"},
  };
  int accepted = 0;
  bool sparse_select = false;
  for (const auto& [layer, form] : forms) {
    ASSIGN_OR_RETURN(google::protobuf::Any config,
                     WithMechanism(layer, form, name, mechanism_config));
    absl::Status status = CheckForm(layer, config);
    if (absl::IsNotFound(status)) continue;  // the mechanism refused this form
    if (!status.ok()) return PrefixErrorField(absl::StrCat(layer, " {", form, "}"), status);
    ++accepted;
    sparse_select = sparse_select || std::string(layer) == "sparse_select";
  }
  if (sparse_select) RETURN_IF_ERROR(CheckSamplersAgree(name, mechanism_config));
  if (accepted == 0) return absl::InvalidArgumentError(name + " accepted no layer form");
  return absl::OkStatus();
}

}  // namespace attnlab

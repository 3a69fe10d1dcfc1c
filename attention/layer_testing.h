// For layer plugins' tests: the layer a config's text describes, set up for an input shape
// (what the model does from a spec, without the registry).
#ifndef ATTNLAB_ATTENTION_LAYER_TESTING_H_
#define ATTNLAB_ATTENTION_LAYER_TESTING_H_

#include <cstdint>
#include <memory>
#include <string>

#include "attention/exec_context.h"
#include "attention/tensor.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace attnlab {

// LayerType has a Config message and a static Create(const Config&); a config that does not
// parse, create or set up fails the test (and gives null).
template <typename LayerType>
std::unique_ptr<LayerType> SetUpLayer(const std::string& config_text, const Shape& input,
                                      uint64_t seed = 1) {
  typename LayerType::Config config;
  if (!google::protobuf::TextFormat::ParseFromString(config_text, &config)) {
    ADD_FAILURE() << "cannot parse " << config_text;
    return nullptr;
  }
  auto layer = LayerType::Create(config);
  if (!layer.ok()) {
    ADD_FAILURE() << layer.status();
    return nullptr;
  }
  ExecContext ctx(seed);
  auto output = (*layer)->Setup(input, ctx);
  if (!output.ok()) {
    ADD_FAILURE() << output.status();
    return nullptr;
  }
  return std::move(*layer);
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_LAYER_TESTING_H_

// The layer, loss and regularizer registries, and the one-line registration macros plugins
// end with.
//
// A plugin's cc_library must have `alwayslink = 1`: the registration is a static initializer
// that no other code refers to, so without it the linker drops the object file and the plugin
// silently disappears from the registry.
#ifndef ATTNLAB_ATTENTION_PLUGIN_REGISTRY_H_
#define ATTNLAB_ATTENTION_PLUGIN_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "attention/layer.h"
#include "attention/loss.h"
#include "attention/regularizer.h"
#include "attention/registry.h"
#include "attention/base/status_macros.h"

namespace attnlab {

template <typename T>
Registry<Layer<T>>& LayerRegistry() {
  return Registry<Layer<T>>::Global("layer");
}

template <typename T>
Registry<Loss<T>>& LossRegistry() {
  return Registry<Loss<T>>::Global("loss");
}

template <typename T>
Registry<Regularizer<T>>& RegularizerRegistry() {
  return Registry<Regularizer<T>>::Global("regularizer");
}

// Registers Plugin<float> and Plugin<double> as Base<float> and Base<double> (Layer, Loss,
// Regularizer). Plugin<T> has
//   static absl::StatusOr<std::unique_ptr<Plugin<T>>> Create(const Config&);
// which checks the config (shape-dependent checks happen in Setup).
template <typename Config, template <typename> class Plugin, template <typename> class Base>
bool RegisterTyped(const char* file, Registry<Base<float>>& for_float,
                   Registry<Base<double>>& for_double, const std::string& name,
                   const std::string& summary, const std::vector<std::string>& examples) {
  auto register_for = [&](auto& registry, auto tag) {
    using T = decltype(tag);
    typename Registry<Base<T>>::Entry entry;
    entry.name = name;
    entry.summary = summary;
    entry.config_type = Config::descriptor();
    entry.examples = examples;
    entry.source_file = file;
    entry.factory = TypedFactory<Base<T>, Config>(
        [](const Config& config) -> absl::StatusOr<std::unique_ptr<Base<T>>> {
          ASSIGN_OR_RETURN(std::unique_ptr<Plugin<T>> plugin, Plugin<T>::Create(config));
          return std::unique_ptr<Base<T>>(std::move(plugin));
        });
    return registry.Register(std::move(entry));
  };
  return register_for(for_float, float{}) && register_for(for_double, double{});
}

// Losses without a config: Plugin<T> is default-constructible.
template <template <typename> class Plugin>
bool RegisterLoss(const char* file, const std::string& name, const std::string& summary) {
  auto register_for = [&](auto& registry, auto tag) {
    using T = decltype(tag);
    typename std::remove_reference_t<decltype(registry)>::Entry entry;
    entry.name = name;
    entry.summary = summary;
    entry.source_file = file;
    entry.factory = [](const google::protobuf::Any&) -> absl::StatusOr<std::unique_ptr<Loss<T>>> {
      return std::unique_ptr<Loss<T>>(new Plugin<T>());
    };
    return registry.Register(std::move(entry));
  };
  return register_for(LossRegistry<float>(), float{}) &&
         register_for(LossRegistry<double>(), double{});
}

}  // namespace attnlab

// At the end of a layer plugin's .cc:
//   ATTNLAB_REGISTER_LAYER("attention", AttentionConfig, MultiHeadAttention,
//                          "one-line summary", {"example config", ...});
#define ATTNLAB_REGISTER_LAYER(name, Config, Plugin, summary, ...)                               \
  static const bool ATTNLAB_CONCAT(attnlab_registered_layer_, __LINE__) =                        \
      ::attnlab::RegisterTyped<Config, Plugin, ::attnlab::Layer>(                                \
          __FILE__, ::attnlab::LayerRegistry<float>(), ::attnlab::LayerRegistry<double>(), name, \
          summary, __VA_ARGS__)

// A loss with a config (and possibly parameters), e.g. the language model head.
#define ATTNLAB_REGISTER_CONFIGURED_LOSS(name, Config, Plugin, summary, ...)                   \
  static const bool ATTNLAB_CONCAT(attnlab_registered_loss_, __LINE__) =                       \
      ::attnlab::RegisterTyped<Config, Plugin, ::attnlab::Loss>(                               \
          __FILE__, ::attnlab::LossRegistry<float>(), ::attnlab::LossRegistry<double>(), name, \
          summary, __VA_ARGS__)

#define ATTNLAB_REGISTER_REGULARIZER(name, Config, Plugin, summary)             \
  static const bool ATTNLAB_CONCAT(attnlab_registered_regularizer_, __LINE__) = \
      ::attnlab::RegisterTyped<Config, Plugin, ::attnlab::Regularizer>(         \
          __FILE__, ::attnlab::RegularizerRegistry<float>(),                    \
          ::attnlab::RegularizerRegistry<double>(), name, summary, {})

// At the end of a loss plugin's .cc: ATTNLAB_REGISTER_LOSS("logistic", LogisticLoss, "summary");
#define ATTNLAB_REGISTER_LOSS(name, Plugin, summary)                     \
  static const bool ATTNLAB_CONCAT(attnlab_registered_loss_, __LINE__) = \
      ::attnlab::RegisterLoss<Plugin>(__FILE__, name, summary)

#endif  // ATTNLAB_ATTENTION_PLUGIN_REGISTRY_H_

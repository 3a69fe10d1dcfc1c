// Every registered plugin of every kind, independent of the number type its products run in:
// what the spec loader needs to read a config written without its type URL, what a trial's
// code key needs to find the sources of the plugins its spec names, and what plugin listings
// print. Registry<Product>::Register (registry.h) adds each entry; nothing else writes here.
#ifndef ATTNLAB_ATTENTION_PLUGIN_CATALOG_H_
#define ATTNLAB_ATTENTION_PLUGIN_CATALOG_H_

#include <string>
#include <vector>

#include "google/protobuf/descriptor.h"

namespace attnlab {

struct PluginInfo {
  std::string kind;  // "layer", "mechanism", "metric", "dataset", "optimizer", ...
  std::string name;
  std::string summary;
  // The config message, or null when the plugin takes none.
  const google::protobuf::Descriptor* config_type = nullptr;
  // The plugin folder its registration line is in ("plugins/metrics/accuracy"), from __FILE__;
  // empty for plugins registered outside plugins/ (tests).
  std::string folder;
  // Plugins it creates by name whatever its config says (a default mechanism, the sublayers
  // of a composite layer), as "kind/name": their code runs in every trial that names it.
  std::vector<std::string> uses;
};

// Sorted by kind, then name.
std::vector<const PluginInfo*> AllPlugins();

// Null when no plugin of that kind and name is registered.
const PluginInfo* FindPlugin(const std::string& kind, const std::string& name);

// The sorted names of a kind's plugins.
std::vector<std::string> PluginNames(const std::string& kind);

// Called by Registry::Register for each of its entries; a plugin registered for float and
// double is one entry. "plugins/metrics/accuracy/accuracy.cc" -> folder "plugins/metrics/accuracy".
void AddToPluginCatalog(PluginInfo info, const char* source_file);

// Records what a plugin uses (PluginInfo::uses); ATTNLAB_PLUGIN_USES below its registration.
bool DeclarePluginUses(const std::string& kind, const std::string& name,
                       std::vector<std::string> uses);

}  // namespace attnlab

// Below a plugin's registration line, when it creates other plugins by name whatever its config
// says: ATTNLAB_PLUGIN_USES("layer", "attention", "mechanism/softmax");
#define ATTNLAB_PLUGIN_USES(kind, name, ...)                         \
  static const bool ATTNLAB_CONCAT(attnlab_plugin_uses_, __LINE__) = \
      ::attnlab::DeclarePluginUses(kind, name, {__VA_ARGS__})

#endif  // ATTNLAB_ATTENTION_PLUGIN_CATALOG_H_

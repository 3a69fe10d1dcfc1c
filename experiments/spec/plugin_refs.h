// The plugins a spec runs: every field with the plugin_kind option (attention/plugin_field.proto),
// through plugin configs (google.protobuf.Any) at any depth, and what those plugins use by name
// (PluginInfo::uses). A trial's code is the core and these plugins' folders
// (CodeVersion::ForPlugins), so editing one plugin reruns only the trials that name it.
#ifndef ATTNLAB_EXPERIMENTS_SPEC_PLUGIN_REFS_H_
#define ATTNLAB_EXPERIMENTS_SPEC_PLUGIN_REFS_H_

#include <set>
#include <string>

#include "google/protobuf/message.h"

namespace attnlab {

// "kind/name" of every plugin `message` names or they use; unknown names are left out (the
// spec's validation reports them).
std::set<std::string> PluginsOf(const google::protobuf::Message& message);

// The folders of those plugins (PluginInfo::folder), for plugins registered under plugins/.
std::set<std::string> PluginFoldersOf(const google::protobuf::Message& message);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_SPEC_PLUGIN_REFS_H_

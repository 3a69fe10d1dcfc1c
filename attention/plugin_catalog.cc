#include "attention/plugin_catalog.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>

#include "absl/strings/string_view.h"

namespace attnlab {
namespace {

std::map<std::pair<std::string, std::string>, PluginInfo>& Catalog() {
  static auto* catalog = new std::map<std::pair<std::string, std::string>, PluginInfo>();
  return *catalog;
}

// The path from "plugins/" on, without the file name; empty outside plugins/.
std::string FolderOf(absl::string_view file) {
  const size_t start = file.rfind("plugins/");
  const size_t slash = file.rfind('/');
  if (start == absl::string_view::npos || slash <= start) return "";
  return std::string(file.substr(start, slash - start));
}

}  // namespace

std::vector<const PluginInfo*> AllPlugins() {
  std::vector<const PluginInfo*> all;
  for (const auto& [key, info] : Catalog()) all.push_back(&info);
  return all;
}

const PluginInfo* FindPlugin(const std::string& kind, const std::string& name) {
  auto it = Catalog().find({kind, name});
  return it == Catalog().end() ? nullptr : &it->second;
}

std::vector<std::string> PluginNames(const std::string& kind) {
  std::vector<std::string> names;
  for (const auto& [key, info] : Catalog()) {
    if (key.first == kind) names.push_back(key.second);
  }
  return names;
}

void AddToPluginCatalog(PluginInfo info, const char* source_file) {
  info.folder = FolderOf(source_file == nullptr ? "" : source_file);
  auto key = std::make_pair(info.kind, info.name);
  Catalog().emplace(std::move(key), std::move(info));  // float's entry, then double's: one
}

bool DeclarePluginUses(const std::string& kind, const std::string& name,
                       std::vector<std::string> uses) {
  auto it = Catalog().find({kind, name});
  if (it == Catalog().end()) {  // the declaration must follow the registration it belongs to
    std::fprintf(stderr, "attnlab: ATTNLAB_PLUGIN_USES names no registered %s plugin '%s'\n",
                 kind.c_str(), name.c_str());
    std::abort();
  }
  it->second.uses = std::move(uses);
  return true;
}

}  // namespace attnlab

#include "experiments/store/code_version.h"

#include <cpuid.h>

#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "attention/base/files.h"

namespace attnlab {
namespace {

// The fields in provenance.tsv order, with their keys.
std::vector<std::pair<const char*, std::string CodeVersion::*>> Fields() {
  return {{"code_source", &CodeVersion::source},   {"code_commit", &CodeVersion::commit},
          {"code_tree", &CodeVersion::tree},       {"code_compiler", &CodeVersion::compiler},
          {"code_flags", &CodeVersion::flags},     {"code_libraries", &CodeVersion::libraries},
          {"code_machine", &CodeVersion::machine}, {"code_products", &CodeVersion::products}};
}

}  // namespace

std::string CodeVersion::Key() const {
  std::string decisive = absl::StrCat(source, "\n", compiler, "\n", flags, "\n", libraries, "\n",
                                      machine, "\n", products);
  for (const auto& [folder, hash] : plugins) absl::StrAppend(&decisive, "\n", folder, " ", hash);
  return absl::StrFormat("%012x", Fnv1a(decisive) & 0xffffffffffffull);
}

CodeVersion CodeVersion::ForPlugins(const std::set<std::string>& folders) const {
  CodeVersion trial = *this;
  trial.plugins.clear();
  for (const std::string& folder : folders) {
    auto it = plugins.find(folder);
    trial.plugins[folder] = it == plugins.end() ? "absent" : it->second;
  }
  return trial;
}

std::string CodeVersion::ShortCommit() const {
  if (commit.empty()) return "unknown";
  return absl::StrCat(commit.substr(0, 7), tree == "dirty" ? "+dirty" : "");
}

std::string CodeVersion::Describe() const {
  std::vector<std::string> named;
  for (const auto& [folder, hash] : plugins) {
    named.push_back(absl::StrCat(folder.substr(folder.rfind('/') + 1), " ", hash.substr(0, 8)));
  }
  return absl::StrCat("code ", Key(), " (commit ", ShortCommit(), ", source ", source,
                      named.empty() ? "" : absl::StrCat(", plugins ", absl::StrJoin(named, " ")),
                      ", compiler ", compiler, ", ", flags, ", ", machine, ", products ", products,
                      ")");
}

CodeVersion UnversionedBuild() {
  CodeVersion version;
  version.source = version.commit = version.tree = version.compiler = version.flags =
      version.libraries = version.products = "unversioned";
  version.machine = CurrentMachine();
  return version;
}

std::string CurrentMachine() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return "unknown CPU";
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  __get_cpuid(1, &a, &b, &c, &d);
  unsigned family = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
  if (family == 0xf) family += (a >> 20) & 0xff;
  if (family == 0x6 || family >= 0xf) model += ((a >> 16) & 0xf) << 4;
  return absl::StrCat(vendor, " family ", family, " model ", model);
}

std::string CodeVersionLines(const CodeVersion& version) {
  std::string lines;
  for (const auto& [key, field] : Fields()) absl::StrAppend(&lines, key, "\t", version.*field, "\n");
  for (const auto& [folder, hash] : version.plugins) {
    absl::StrAppend(&lines, "code_plugin\t", folder, " ", hash, "\n");
  }
  return lines;
}

CodeVersion ParseCodeVersionLines(absl::string_view text) {
  CodeVersion version;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    const std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(line, absl::MaxSplits('\t', 1));
    for (const auto& [key, field] : Fields()) {
      if (kv.first == key) version.*field = std::string(kv.second);
    }
    if (kv.first == "code_plugin") {
      const std::pair<absl::string_view, absl::string_view> plugin =
          absl::StrSplit(kv.second, absl::MaxSplits(' ', 1));
      version.plugins[std::string(plugin.first)] = std::string(plugin.second);
    }
  }
  return version;
}

}  // namespace attnlab

// Registry<Product>: plugin name -> factory taking the plugin's typed config.
//
// A spec names a plugin and carries its config as google.protobuf.Any; Create checks that the
// Any holds the plugin's own config message, unpacks it and calls the factory. An unknown name is
// an error listing the known names; registering a name twice aborts at start-up.
#ifndef ATTNLAB_ATTENTION_REGISTRY_H_
#define ATTNLAB_ATTENTION_REGISTRY_H_

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "attention/base/field_error.h"
#include "attention/plugin_catalog.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/descriptor.h"

namespace attnlab {

template <typename Product>
class Registry {
 public:
  using Factory =
      std::function<absl::StatusOr<std::unique_ptr<Product>>(const google::protobuf::Any&)>;

  struct Entry {
    std::string name;
    // One line for plugin listings.
    std::string summary;
    // The config message, or null when the plugin takes none.
    const google::protobuf::Descriptor* config_type = nullptr;
    // Text-format configs the conformance suite (plugins/registry_test) builds and
    // gradient-checks, besides the default config.
    std::vector<std::string> examples;
    Factory factory;
    // The registering source file (__FILE__): the plugin catalog's folder.
    const char* source_file = nullptr;
  };

  // One registry per product type. `kind` names the product in messages ("layer", "loss").
  static Registry& Global(const char* kind) {
    static Registry* registry = new Registry(kind);
    return *registry;
  }

  // Registration happens in static initializers, so a duplicate can only abort.
  bool Register(Entry entry) {
    if (entries_.count(entry.name) > 0) {
      std::fprintf(stderr, "attnlab: %s plugin '%s' registered twice\n", kind_.c_str(),
                   entry.name.c_str());
      std::abort();
    }
    PluginInfo info;
    info.kind = kind_;
    info.name = entry.name;
    info.summary = entry.summary;
    info.config_type = entry.config_type;
    AddToPluginCatalog(std::move(info), entry.source_file);
    std::string name = entry.name;
    entries_.emplace(std::move(name), std::move(entry));
    return true;
  }

  const Entry* Find(const std::string& name) const {
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second;
  }

  // Sorted.
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& [name, entry] : entries_) names.push_back(name);
    return names;
  }

  absl::Status CheckName(const std::string& name) const {
    if (Find(name) != nullptr) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("unknown ", kind_, " plugin '", name, "'; known: ",
                                            absl::StrJoin(Names(), ", ")));
  }

  // An empty Any means "the plugin's defaults".
  absl::StatusOr<std::unique_ptr<Product>> Create(const std::string& name,
                                                  const google::protobuf::Any& config) const {
    if (absl::Status status = CheckName(name); !status.ok()) return status;
    const Entry& entry = *Find(name);
    if (!config.type_url().empty()) {
      const std::string expected =
          entry.config_type == nullptr ? "" : std::string(entry.config_type->full_name());
      std::string got = config.type_url();
      got = got.substr(got.rfind('/') + 1);
      if (expected.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(kind_, " plugin '", name, "' takes no config, got ", got));
      }
      if (got != expected) {
        return absl::InvalidArgumentError(absl::StrCat(kind_, " plugin '", name,
                                                       "' takes config ", expected, ", got ", got));
      }
    }
    return entry.factory(config);
  }

  // Create for a spec message that names the plugin in its field `name_field` and holds the
  // config in `config_field`: an unknown name is the name field's error, a bad config the
  // config field's (users see the spec line of the field at fault).
  absl::StatusOr<std::unique_ptr<Product>> CreateAt(const std::string& name,
                                                    const google::protobuf::Any& config,
                                                    const std::string& name_field = "plugin",
                                                    const std::string& config_field = "config") const {
    absl::StatusOr<std::unique_ptr<Product>> product = Create(name, config);
    if (product.ok()) return product;
    return PrefixErrorField(Find(name) != nullptr ? config_field : name_field, product.status());
  }

  const std::string& kind() const { return kind_; }

 private:
  explicit Registry(std::string kind) : kind_(std::move(kind)) {}

  std::string kind_;
  std::map<std::string, Entry> entries_;
};

// A factory for plugins whose config is the message `Config`: unpacks the Any (empty -> defaults).
template <typename Product, typename Config>
typename Registry<Product>::Factory TypedFactory(
    std::function<absl::StatusOr<std::unique_ptr<Product>>(const Config&)> make) {
  return [make](const google::protobuf::Any& any) -> absl::StatusOr<std::unique_ptr<Product>> {
    Config config;
    if (!any.type_url().empty() && !any.UnpackTo(&config)) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot unpack config as ", Config::descriptor()->full_name()));
    }
    return make(config);
  };
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_REGISTRY_H_

#include "experiments/spec/plugin_refs.h"

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "attention/plugin_catalog.h"
#include "attention/plugin_field.pb.h"
#include "experiments/spec/field_path.h"
#include "google/protobuf/descriptor.h"

namespace attnlab {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

void Collect(const Message& message, std::set<std::string>* plugins) {
  const Descriptor* descriptor = message.GetDescriptor();
  if (descriptor->full_name() == "google.protobuf.Any") {
    const Descriptor* content = AnyContentType(message);
    if (content == nullptr) return;
    std::unique_ptr<Message> inner(
        google::protobuf::MessageFactory::generated_factory()->GetPrototype(content)->New());
    inner->ParseFromString(
        message.GetReflection()->GetString(message, descriptor->FindFieldByName("value")));
    Collect(*inner, plugins);
    return;
  }
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_STRING && !field->is_repeated() &&
        field->options().HasExtension(plugin_kind)) {
      const std::string kind = field->options().GetExtension(plugin_kind);
      const std::string name = reflection->GetString(message, field);
      if (FindPlugin(kind, name) != nullptr) plugins->insert(absl::StrCat(kind, "/", name));
    }
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
        Collect(reflection->GetRepeatedMessage(message, field, i), plugins);
      }
    } else {
      Collect(reflection->GetMessage(message, field), plugins);
    }
  }
}

}  // namespace

std::set<std::string> PluginsOf(const Message& message) {
  std::set<std::string> plugins;
  Collect(message, &plugins);
  // What they use, and what that uses.
  std::vector<std::string> pending(plugins.begin(), plugins.end());
  while (!pending.empty()) {
    const std::string plugin = pending.back();
    pending.pop_back();
    const size_t slash = plugin.find('/');
    const PluginInfo* info = FindPlugin(plugin.substr(0, slash), plugin.substr(slash + 1));
    if (info == nullptr) continue;
    for (const std::string& used : info->uses) {
      if (plugins.insert(used).second) pending.push_back(used);
    }
  }
  return plugins;
}

std::set<std::string> PluginFoldersOf(const Message& message) {
  std::set<std::string> folders;
  for (const std::string& plugin : PluginsOf(message)) {
    const size_t slash = plugin.find('/');
    const PluginInfo* info = FindPlugin(plugin.substr(0, slash), plugin.substr(slash + 1));
    if (info != nullptr && !info->folder.empty()) folders.insert(info->folder);
  }
  return folders;
}

}  // namespace attnlab

// Plugin configs written without their type URL. A field that names a plugin (the plugin_kind
// option, attention/plugin_field.proto) says which message its sibling config Any holds, so a
// spec may write
//   optimizer { plugin: "lq_mirror_descent" config { q: 3 } lr: 0.1 }
// for
//   optimizer { plugin: "lq_mirror_descent"
//               config { [type.googleapis.com/attnlab.plugins.LqMirrorDescentConfig] { q: 3 } }
//               lr: 0.1 }
// ExpandShortConfigs inserts the type URLs (on the lines where the configs are written, so
// lines stay as written) and maps positions in the expanded text back to the written one.
#ifndef ATTNLAB_EXPERIMENTS_SPEC_SHORT_CONFIG_H_
#define ATTNLAB_EXPERIMENTS_SPEC_SHORT_CONFIG_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace attnlab {

class ExpandedText {
 public:
  // The text with every short config's type URL written out (tabs outside strings expanded to
  // the columns protobuf's tokenizer gives them, so positions keep their meaning).
  const std::string& text() const { return text_; }

  // A 0-based line and column of text() -> the written text's. A position inside an inserted
  // type URL maps to where it was inserted.
  void ToWritten(int line, int* column) const;

  // The field path of the innermost message written around a 0-based written position
  // ("optimizer.config", "model.layer[0].config"); empty at the top level.
  std::string PathAt(int line, int column) const;

 private:
  friend class ShortConfigExpander;
  friend std::string ExplainParseError(const ExpandedText&, int, int*, const std::string&);
  struct Insertion {
    int written_column;
    int length;
  };
  struct Block {
    int begin_line, begin_column, end_line, end_column;  // written positions of '{' and '}'
    std::string path;
  };
  std::string text_;
  std::vector<std::string> written_lines_;            // tabs outside strings expanded
  std::map<int, std::vector<Insertion>> insertions_;  // by line, in column order
  std::vector<Block> blocks_;
};

// Expands `text`, a text-format `root` message (or a `{ ... }` value of one, as a sweep gives).
// `root_config` is the config type when `root` is itself a plugin's config Any (a sweep over
// "optimizer.config"): its plugin was named elsewhere. Errors (an unknown plugin, a config for
// a plugin that takes none, a short config without a plugin name) are InvalidArgument
// "LINE:COLUMN: FIELD_PATH: message", 1-based; text that does not parse is left for protobuf's
// parser to report.
absl::StatusOr<ExpandedText> ExpandShortConfigs(
    absl::string_view text, const google::protobuf::Descriptor* root,
    const google::protobuf::Descriptor* root_config = nullptr);

// The config message of the plugin that `parent` names for its config field `config` (an Any
// whose sibling field has the plugin_kind option), or null (not a plugin config, no plugin named,
// an unknown one, one that takes no config).
const google::protobuf::Descriptor* NamedConfigType(
    const google::protobuf::Message& parent, const google::protobuf::FieldDescriptor* config);

// protobuf's unknown-field error ("Message type \"X\" has no field named \"qq\".", at the token
// after the name) as "PATH.qq: X has no field 'qq'", with the path of the message written around
// the error's 0-based written position, which moves to the name; other messages unchanged.
std::string ExplainParseError(const ExpandedText& expanded, int line, int* column,
                              const std::string& message);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_SPEC_SHORT_CONFIG_H_

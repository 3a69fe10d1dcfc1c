#include "experiments/spec/short_config.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "attention/plugin_catalog.h"
#include "attention/plugin_field.pb.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace attnlab {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::io::Tokenizer;

namespace {

class QuietErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int, int, const std::string&) override {}
};

// Tabs outside strings become the spaces protobuf's tokenizer counts for them (to the next
// multiple of 8), so that a column is a byte offset in its line.
std::string ExpandTabs(absl::string_view text) {
  std::string out;
  int column = 0;
  char quote = 0;
  bool comment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      out += c;
      column = 0;
      quote = 0;
      comment = false;
      continue;
    }
    if (quote != 0) {
      if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') {
        out += c;
        out += text[++i];
        column += 2;
        continue;
      }
      if (c == quote) quote = 0;
    } else if (!comment && (c == '"' || c == '\'')) {
      quote = c;
    } else if (c == '#') {
      comment = true;
    }
    if (c == '\t' && quote == 0) {
      const int next = (column / 8 + 1) * 8;
      out.append(next - column, ' ');
      column = next;
      continue;
    }
    out += c;
    column += c == '\t' ? 8 - column % 8 : 1;
  }
  return out;
}

// The plugin-naming fields of a message: config field name -> naming field.
std::map<std::string, const FieldDescriptor*> PluginFields(const Descriptor* message) {
  std::map<std::string, const FieldDescriptor*> fields;
  for (int i = 0; i < message->field_count(); ++i) {
    const FieldDescriptor* field = message->field(i);
    if (!field->options().HasExtension(plugin_kind)) continue;
    const std::string& config = field->options().GetExtension(plugin_config);
    fields[config.empty() ? "config" : config] = field;
  }
  return fields;
}

}  // namespace

const Descriptor* NamedConfigType(const google::protobuf::Message& parent,
                                  const FieldDescriptor* config) {
  for (const auto& [config_name, naming] : PluginFields(parent.GetDescriptor())) {
    if (config_name != config->name()) continue;
    const PluginInfo* info = FindPlugin(naming->options().GetExtension(plugin_kind),
                                        parent.GetReflection()->GetString(parent, naming));
    return info == nullptr ? nullptr : info->config_type;
  }
  return nullptr;
}

class ShortConfigExpander {
 public:
  explicit ShortConfigExpander(absl::string_view text) {
    expanded_.text_ = ExpandTabs(text);
    expanded_.written_lines_ = absl::StrSplit(expanded_.text_, '\n');
    size_t start = 0;
    while (true) {
      line_starts_.push_back(start);
      const size_t newline = expanded_.text_.find('\n', start);
      if (newline == std::string::npos) break;
      start = newline + 1;
    }
    google::protobuf::io::ArrayInputStream input(expanded_.text_.data(),
                                                 static_cast<int>(expanded_.text_.size()));
    QuietErrors errors;
    Tokenizer tokenizer(&input, &errors);
    tokenizer.set_comment_style(Tokenizer::SH_COMMENT_STYLE);
    tokenizer.set_allow_f_after_float(true);
    tokenizer.set_require_space_after_number(false);
    tokenizer.set_allow_multiline_strings(true);
    while (tokenizer.Next()) tokens_.push_back(tokenizer.current());
  }

  absl::StatusOr<ExpandedText> Run(const Descriptor* root, const Descriptor* root_config) {
    if (At("[")) {  // a list of messages: "[{ ... }, { ... }]"
      for (++pos_; !Done() && !At("]");) {
        const int start = pos_;
        RootValue(root, root_config);
        if (pos_ == start) break;
        if (At(",")) ++pos_;
      }
      return Finish();
    }
    RootValue(root, root_config);
    return Finish();
  }

 private:
  struct Edit {
    size_t offset;
    std::string text;
  };

  // One message value at pos_ ("{ ... }", or the text's top-level fields).
  void RootValue(const Descriptor* root, const Descriptor* root_config) {
    const bool braced = At("{") || At("<");
    const int open = pos_;
    if (braced) ++pos_;
    if (root_config != nullptr && !At("[")) {
      if (braced) Insert(open, root_config);
      Message(root_config, "", braced ? Closer(open) : "");
      if (braced) InsertClosing(pos_);
    } else {
      Message(root, "", braced ? Closer(open) : "");
    }
    if (braced && !Done()) ++pos_;
  }

  absl::StatusOr<ExpandedText> Finish() {
    if (!error_.ok()) return error_;
    // Insertions from the end, so earlier offsets stay valid.
    std::sort(edits_.begin(), edits_.end(),
              [](const Edit& a, const Edit& b) { return a.offset > b.offset; });
    for (const Edit& edit : edits_) expanded_.text_.insert(edit.offset, edit.text);
    for (auto& [line, insertions] : expanded_.insertions_) {
      std::sort(insertions.begin(), insertions.end(),
                [](const ExpandedText::Insertion& a, const ExpandedText::Insertion& b) {
                  return a.written_column < b.written_column;
                });
    }
    return std::move(expanded_);
  }

  bool Done() const { return pos_ >= static_cast<int>(tokens_.size()) || !error_.ok(); }
  bool At(const char* symbol) const {
    return pos_ < static_cast<int>(tokens_.size()) && tokens_[pos_].text == symbol;
  }
  std::string Closer(int open) const { return tokens_[open].text == "<" ? ">" : "}"; }

  size_t Offset(int line, int column) const {
    // Columns count tabs to the next multiple of 8 (only tabs inside strings are left).
    size_t offset = line_starts_[line];
    for (int c = 0; c < column && offset < expanded_.text_.size();) {
      c += expanded_.text_[offset] == '\t' ? 8 - c % 8 : 1;
      ++offset;
    }
    return offset;
  }

  void AddInsertion(int line, int column, std::string text) {
    expanded_.insertions_[line].push_back({column, static_cast<int>(text.size())});
    edits_.push_back({Offset(line, column), std::move(text)});
  }

  // After the '{' at token `open`: the type URL of `config`.
  void Insert(int open, const Descriptor* config) {
    const Tokenizer::Token& token = tokens_[open];
    AddInsertion(token.line, token.end_column,
                 absl::StrCat(" [type.googleapis.com/", config->full_name(), "] {"));
  }
  // Before the closing token at `close` (or at the end of the text).
  void InsertClosing(int close) {
    if (close < static_cast<int>(tokens_.size())) {
      AddInsertion(tokens_[close].line, tokens_[close].column, "} ");
    } else if (!tokens_.empty()) {
      AddInsertion(tokens_.back().line, tokens_.back().end_column, " }");
    }
  }

  void Fail(int token, const std::string& path, const std::string& message) {
    if (!error_.ok()) return;
    const Tokenizer::Token& at = tokens_[token];
    error_ = absl::InvalidArgumentError(
        absl::StrCat(at.line + 1, ":", at.column + 1, ": ", path, ": ", message));
  }

  // The index of the token after the value starting at `i` (a scalar, a list or a block).
  int SkipValue(int i) const {
    const int n = static_cast<int>(tokens_.size());
    if (i >= n) return n;
    if (tokens_[i].text == "-") ++i;
    if (i >= n) return n;
    const std::string& t = tokens_[i].text;
    if (t == "{" || t == "<" || t == "[") {
      int depth = 0;
      for (; i < n; ++i) {
        const std::string& s = tokens_[i].text;
        if (tokens_[i].type != Tokenizer::TYPE_SYMBOL) continue;
        if (s == "{" || s == "<" || s == "[") ++depth;
        if (s == "}" || s == ">" || s == "]") {
          if (--depth == 0) return i + 1;
        }
      }
      return n;
    }
    ++i;
    while (i < n && tokens_[i].type == Tokenizer::TYPE_STRING &&
           tokens_[i - 1].type == Tokenizer::TYPE_STRING) {
      ++i;  // adjacent strings concatenate
    }
    return i;
  }

  // The string values a block's top-level fields give (field -> value and the field's token),
  // from token `i` (after the '{') to the block's end.
  std::map<std::string, std::pair<std::string, int>> StringFields(int i) const {
    std::map<std::string, std::pair<std::string, int>> values;
    const int n = static_cast<int>(tokens_.size());
    while (i < n && tokens_[i].text != "}" && tokens_[i].text != ">") {
      if (tokens_[i].type != Tokenizer::TYPE_IDENTIFIER && tokens_[i].text != "[") break;
      if (tokens_[i].text == "[") {  // an extension or Any's type URL: skip to ']'
        while (i < n && tokens_[i].text != "]") ++i;
        ++i;
      } else {
        ++i;
      }
      if (i < n && tokens_[i].text == ":") ++i;
      if (i < n && tokens_[i].type == Tokenizer::TYPE_STRING) {
        std::string value;
        int j = i;
        for (; j < n && tokens_[j].type == Tokenizer::TYPE_STRING; ++j) {
          Tokenizer::ParseStringAppend(tokens_[j].text, &value);
        }
        const int name = tokens_[i - 1].text == ":" ? i - 2 : i - 1;
        values[tokens_[name].text] = {value, name};
      }
      i = SkipValue(i);
      if (i < n && (tokens_[i].text == "," || tokens_[i].text == ";")) ++i;
    }
    return values;
  }

  // Fields of `message` until `closer` ("}" or ">"; empty: the end of the text).
  void Message(const Descriptor* message, const std::string& path, const std::string& closer) {
    const int begin = pos_ - (closer.empty() ? 0 : 1);
    const std::map<std::string, const FieldDescriptor*> plugin_fields = PluginFields(message);
    std::map<std::string, std::pair<std::string, int>> names;
    if (!plugin_fields.empty()) names = StringFields(pos_);
    std::map<std::string, int> counts;  // repeated fields seen so far
    while (!Done() && !(closer.empty() ? false : At(closer.c_str()))) {
      const int start = pos_;
      if (At("[")) {  // "[type.googleapis.com/x.Y]" (an Any's content) or an extension
        std::string name;
        for (++pos_; !Done() && !At("]"); ++pos_) name += tokens_[pos_].text;
        if (Done()) return;
        ++pos_;
        if (At(":")) ++pos_;
        const size_t slash = name.rfind('/');
        const Descriptor* type =
            slash == std::string::npos
                ? nullptr
                : google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(
                      name.substr(slash + 1));
        if (type != nullptr && (At("{") || At("<"))) {
          const std::string close = Closer(pos_);
          ++pos_;
          Message(type, path, close);
          if (!Done()) ++pos_;
        } else {
          pos_ = SkipValue(pos_);
        }
      } else if (tokens_[pos_].type == Tokenizer::TYPE_IDENTIFIER) {
        const std::string name = tokens_[pos_].text;
        const FieldDescriptor* field = message->FindFieldByName(name);
        ++pos_;
        if (At(":")) ++pos_;
        if (field == nullptr) {  // the parser names it
          pos_ = SkipValue(pos_);
        } else {
          std::string field_path = path.empty() ? name : absl::StrCat(path, ".", name);
          if (field->is_repeated()) absl::StrAppend(&field_path, "[", counts[name]++, "]");
          auto plugin = plugin_fields.find(name);
          const FieldDescriptor* naming = plugin == plugin_fields.end() ? nullptr : plugin->second;
          Value(field, naming, names, path, field_path);
        }
      } else {
        return;  // not a field: the parser's error
      }
      if (pos_ == start) return;
      if (At(",") || At(";")) ++pos_;
    }
    if (!closer.empty() && !Done() && begin >= 0) {
      expanded_.blocks_.push_back({tokens_[begin].line, tokens_[begin].column, tokens_[pos_].line,
                                   tokens_[pos_].column, path});
    }
  }

  // The value of `field` at pos_ (after its ':'), whose plugin is named by the field `naming`
  // of the same message when `field` is a plugin's config.
  void Value(const FieldDescriptor* field, const FieldDescriptor* naming,
             const std::map<std::string, std::pair<std::string, int>>& names,
             const std::string& parent_path, const std::string& field_path) {
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      pos_ = SkipValue(pos_);
      return;
    }
    if (At("[")) {  // a list of messages
      ++pos_;
      int index = 0;
      std::string base = field_path.substr(0, field_path.rfind('['));
      while (!Done() && !At("]")) {
        const int start = pos_;
        Value(field, naming, names, parent_path, absl::StrCat(base, "[", index++, "]"));
        if (pos_ == start) return;
        if (At(",")) ++pos_;
      }
      if (!Done()) ++pos_;
      return;
    }
    if (!At("{") && !At("<")) {
      pos_ = SkipValue(pos_);
      return;
    }
    const int open = pos_;
    const std::string close = Closer(open);
    ++pos_;
    const Descriptor* type = field->message_type();
    if (naming != nullptr && !At("[")) {
      const std::string kind = naming->options().GetExtension(plugin_kind);
      auto name = names.find(naming->name());
      const std::string naming_path =
          parent_path.empty() ? naming->name() : absl::StrCat(parent_path, ".", naming->name());
      if (name == names.end()) {
        Fail(open, field_path,
             absl::StrCat("a config without its type URL needs the ", kind, " plugin's name in '",
                          naming->name(), "'"));
        return;
      }
      const PluginInfo* info = FindPlugin(kind, name->second.first);
      if (info == nullptr) {
        Fail(name->second.second, naming_path,
             absl::StrCat("unknown ", kind, " plugin '", name->second.first,
                          "'; known: ", absl::StrJoin(PluginNames(kind), ", ")));
        return;
      }
      if (info->config_type == nullptr) {
        if (!At(close.c_str())) {
          Fail(open, field_path, absl::StrCat(kind, " plugin '", info->name, "' takes no config"));
        }
        pos_ = SkipValue(open);
        return;
      }
      Insert(open, info->config_type);
      Message(info->config_type, field_path, close);
      if (Done()) return;
      InsertClosing(pos_);
      ++pos_;
      return;
    }
    Message(type, field_path, close);
    if (!Done()) ++pos_;
  }

  std::vector<Tokenizer::Token> tokens_;
  std::vector<size_t> line_starts_;
  int pos_ = 0;
  absl::Status error_;
  ExpandedText expanded_;
  std::vector<Edit> edits_;
};

void ExpandedText::ToWritten(int line, int* column) const {
  auto it = insertions_.find(line);
  if (it == insertions_.end()) return;
  int shift = 0;
  for (const Insertion& insertion : it->second) {
    const int at = insertion.written_column + shift;
    if (*column < at) break;
    if (*column < at + insertion.length) {
      *column = insertion.written_column;
      return;
    }
    shift += insertion.length;
  }
  *column -= shift;
}

std::string ExpandedText::PathAt(int line, int column) const {
  const Block* inner = nullptr;
  for (const Block& block : blocks_) {
    const bool after_begin =
        line > block.begin_line || (line == block.begin_line && column > block.begin_column);
    const bool before_end =
        line < block.end_line || (line == block.end_line && column <= block.end_column);
    if (after_begin && before_end && (inner == nullptr || block.path.size() > inner->path.size())) {
      inner = &block;
    }
  }
  return inner == nullptr ? "" : inner->path;
}

absl::StatusOr<ExpandedText> ExpandShortConfigs(absl::string_view text, const Descriptor* root,
                                                const Descriptor* root_config) {
  return ShortConfigExpander(text).Run(root, root_config);
}

std::string ExplainParseError(const ExpandedText& expanded, int line, int* column,
                              const std::string& message) {
  // protobuf 3.21: Message type "attnlab.plugins.X" has no field named "qq".
  const std::string kPrefix = "Message type \"";
  const std::string kMiddle = "\" has no field named \"";
  const size_t middle = message.find(kMiddle);
  if (message.rfind(kPrefix, 0) != 0 || middle == std::string::npos) return message;
  const std::string type = message.substr(kPrefix.size(), middle - kPrefix.size());
  std::string field = message.substr(middle + kMiddle.size());
  field = field.substr(0, field.find('"'));
  if (line >= 0 && line < static_cast<int>(expanded.written_lines_.size())) {
    const std::string& written = expanded.written_lines_[line];
    const size_t at = written.rfind(field, std::max(*column, 0));
    if (at != std::string::npos) *column = static_cast<int>(at);
  }
  const std::string path = expanded.PathAt(line, *column);
  return absl::StrCat(path.empty() ? "" : path + ".", field, ": ", type, " has no field '", field,
                      "'");
}

}  // namespace attnlab

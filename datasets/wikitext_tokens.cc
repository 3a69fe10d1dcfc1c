#include "datasets/wikitext_tokens.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "datasets/data_path.h"

namespace attnlab {
namespace {

// Where `line` stops being UTF-8 text: the first byte of an invalid sequence or a control
// character other than tab, vertical tab, form feed and carriage return; -1 when it is text.
int64_t FirstNonTextByte(const std::string& line) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(line.data());
  const int64_t size = static_cast<int64_t>(line.size());
  for (int64_t i = 0; i < size;) {
    const unsigned char c = bytes[i];
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\v' && c != '\f' && c != '\r') || c == 0x7f) return i;
      ++i;
      continue;
    }
    // Lead bytes C2-DF, E0-EF and F0-F4 start sequences of 2, 3 and 4 bytes; the overlong
    // and surrogate forms are excluded through the first continuation byte's range.
    int length = 0;
    unsigned char low = 0x80, high = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
      length = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      length = 3;
      if (c == 0xe0) low = 0xa0;
      if (c == 0xed) high = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      length = 4;
      if (c == 0xf0) low = 0x90;
      if (c == 0xf4) high = 0x8f;
    } else {
      return i;
    }
    if (i + length > size || bytes[i + 1] < low || bytes[i + 1] > high) return i;
    for (int k = 2; k < length; ++k) {
      if (bytes[i + k] < 0x80 || bytes[i + k] > 0xbf) return i;
    }
    i += length;
  }
  return -1;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ReadWikiTextTokens(const std::string& path) {
  if (absl::Status status = CheckDataFile(path); !status.ok()) return status;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot read (", std::strerror(errno), ")"));
  }
  std::vector<std::string> words;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (const int64_t at = FirstNonTextByte(line); at >= 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s:%d: byte %d is 0x%02x, %s: not a text file", path, line_number, at + 1,
          static_cast<unsigned char>(line[at]),
          static_cast<unsigned char>(line[at]) < 0x80 ? "a control character" : "not UTF-8"));
    }
    std::istringstream tokens(line);
    std::string word;
    while (tokens >> word) words.push_back(word);
    words.push_back("<eos>");
  }
  if (words.size() == static_cast<size_t>(line_number) || line_number == 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no words (an empty file?)"));
  }
  return words;
}

Vocabulary::Vocabulary(const std::vector<std::string>& words, int size) {
  std::unordered_map<std::string, std::pair<int64_t, int64_t>> stats;  // count, first position
  for (size_t i = 0; i < words.size(); ++i) {
    auto [it, fresh] = stats.try_emplace(words[i], 0, static_cast<int64_t>(i));
    ++it->second.first;
  }
  std::vector<std::string> order;
  for (const auto& [word, stat] : stats) order.push_back(word);
  std::sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
    const auto& [count_a, first_a] = stats.at(a);
    const auto& [count_b, first_b] = stats.at(b);
    return count_a != count_b ? count_a > count_b : first_a < first_b;
  });
  for (const std::string& word : order) {
    if (static_cast<int>(words_.size()) >= size - 2) break;
    if (word == "<unk>" || word == "<eos>") continue;
    ids_[word] = static_cast<int>(words_.size());
    words_.push_back(word);
  }
  for (const char* special : {"<unk>", "<eos>"}) {
    ids_[special] = static_cast<int>(words_.size());
    words_.push_back(special);
  }
  unk_ = ids_.at("<unk>");
}

int Vocabulary::Id(const std::string& word) const {
  auto it = ids_.find(word);
  return it == ids_.end() ? unk_ : it->second;
}

}  // namespace attnlab

// Reading WikiText-style token files ("wiki.*.tokens", Merity et al. 2016) and their
// vocabulary: what the `wikitext` dataset plugin (plugins/datasets/wikitext) reads.
#ifndef ATTNLAB_DATASETS_WIKITEXT_TOKENS_H_
#define ATTNLAB_DATASETS_WIKITEXT_TOKENS_H_

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"

namespace attnlab {

// The words of a file, one "<eos>" after every line. Errors: unreadable, empty, or binary.
absl::StatusOr<std::vector<std::string>> ReadWikiTextTokens(const std::string& path);

class Vocabulary {
 public:
  // The size - 2 most frequent words of `words` (ties: first occurrence first), then <unk>
  // and <eos> where they are not among them.
  Vocabulary(const std::vector<std::string>& words, int size);
  // <unk>'s id for words outside the vocabulary.
  int Id(const std::string& word) const;
  int size() const { return static_cast<int>(words_.size()); }
  const std::string& Word(int id) const { return words_[id]; }

 private:
  std::vector<std::string> words_;
  std::unordered_map<std::string, int> ids_;
  int unk_ = 0;
};

}  // namespace attnlab

#endif  // ATTNLAB_DATASETS_WIKITEXT_TOKENS_H_

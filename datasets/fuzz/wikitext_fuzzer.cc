// Bytes as a WikiText token file: tokens and a vocabulary, or an error with a message.
#include <cstdint>
#include <cstdlib>

#include "datasets/wikitext_tokens.h"
#include "tools/fuzz/temp_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const attnlab::TempFile file(data, size, "wiki.tokens");
  absl::StatusOr<std::vector<std::string>> words = attnlab::ReadWikiTextTokens(file.path());
  if (!words.ok()) {
    if (words.status().message().empty()) std::abort();
    return 0;
  }
  const attnlab::Vocabulary vocabulary(*words, 16);
  for (const std::string& word : *words) {
    const int id = vocabulary.Id(word);
    if (id < 0 || id >= vocabulary.size()) std::abort();
  }
  return 0;
}

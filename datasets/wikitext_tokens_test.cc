#include "datasets/wikitext_tokens.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

constexpr char kDir[] = "datasets/testdata/wikitext_tiny";

TEST(WikiTextTokensTest, TokensGetOneEosPerLine) {
  auto words = ReadWikiTextTokens(std::string(kDir) + "/wiki.train.tokens");
  ASSERT_TRUE(words.ok()) << words.status();
  // " = The Cat = " (4 + eos), "" (eos), then 7 + 7 + 6 words, each + eos.
  EXPECT_EQ(words->size(), 5u + 1 + 8 + 8 + 7);
  EXPECT_EQ((*words)[0], "=");
  EXPECT_EQ((*words)[4], "<eos>");
  EXPECT_EQ((*words)[5], "<eos>");
}

TEST(WikiTextTokensTest, VocabularyByFrequencyWithUnk) {
  auto words = ReadWikiTextTokens(std::string(kDir) + "/wiki.train.tokens");
  const Vocabulary vocab(*words, 6);
  EXPECT_EQ(vocab.size(), 6);
  EXPECT_EQ(vocab.Word(0), "the");  // 7 times
  EXPECT_EQ(vocab.Id("<eos>"), 5);
  EXPECT_EQ(vocab.Id("bird"), vocab.Id("<unk>"));
  EXPECT_EQ(vocab.Id("mat"), vocab.Id("<unk>"));  // once: not among the 4 most frequent
}

// Random bytes without a NUL were read as words (the model trained on noise, exit 0).
TEST(WikiTextTokensTest, BytesThatAreNotUtf8TextAreRefused) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/random.tokens";
  std::string bytes;
  uint32_t state = 12345;
  while (bytes.size() < 4096) {
    state = state * 1664525u + 1013904223u;
    const char byte = static_cast<char>(state >> 24);
    if (byte != '\0') bytes.push_back(byte);
  }
  std::ofstream(path, std::ios::binary) << bytes;
  absl::StatusOr<std::vector<std::string>> words = ReadWikiTextTokens(path);
  ASSERT_FALSE(words.ok());
  EXPECT_NE(words.status().message().find(": not a text file"), std::string::npos)
      << words.status();
  // Text in other scripts, tabs and CRLF line ends are text.
  std::ofstream(path, std::ios::binary) << "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80\tx\r\n";
  EXPECT_TRUE(ReadWikiTextTokens(path).ok());
  // Overlong forms and surrogates are not UTF-8.
  for (const char* bad : {"\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc3"}) {
    std::ofstream(path, std::ios::binary) << "word " << bad << "\n";
    EXPECT_FALSE(ReadWikiTextTokens(path).ok()) << bad;
  }
}

// The real WikiText-2 files, when this checkout sits next to ../shared/data (skipped otherwise).
TEST(WikiTextTokensTest, RealWikiText2CountsMatchThePublishedOnes) {
  // The fixture is a symlink into the source tree; the data folder is beside the checkout.
  const std::filesystem::path source =
      std::filesystem::canonical(std::string(kDir) + "/wiki.train.tokens");
  const std::filesystem::path data =
      source.parent_path().parent_path().parent_path().parent_path().parent_path() /
      "shared/data/wikitext-2";
  if (!std::filesystem::exists(data / "wiki.valid.tokens")) {
    GTEST_SKIP() << "no WikiText-2 at " << data;
  }
  auto valid = ReadWikiTextTokens((data / "wiki.valid.tokens").string());
  auto test = ReadWikiTextTokens((data / "wiki.test.tokens").string());
  ASSERT_TRUE(valid.ok() && test.ok());
  EXPECT_EQ(valid->size(), 217646u);
  EXPECT_EQ(test->size(), 245569u);
}

}  // namespace
}  // namespace attnlab

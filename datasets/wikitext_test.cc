#include "datasets/wikitext.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "attention/base/field_error.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

constexpr char kDir[] = "datasets/testdata/wikitext_tiny";

TEST(WikiTextTest, TokensGetOneEosPerLine) {
  auto words = ReadWikiTextTokens(std::string(kDir) + "/wiki.train.tokens");
  ASSERT_TRUE(words.ok()) << words.status();
  // " = The Cat = " (4 + eos), "" (eos), then 7 + 7 + 6 words, each + eos.
  EXPECT_EQ(words->size(), 5u + 1 + 8 + 8 + 7);
  EXPECT_EQ((*words)[0], "=");
  EXPECT_EQ((*words)[4], "<eos>");
  EXPECT_EQ((*words)[5], "<eos>");
}

TEST(WikiTextTest, VocabularyByFrequencyWithUnk) {
  auto words = ReadWikiTextTokens(std::string(kDir) + "/wiki.train.tokens");
  const Vocabulary vocab(*words, 6);
  EXPECT_EQ(vocab.size(), 6);
  EXPECT_EQ(vocab.Word(0), "the");  // 7 times
  EXPECT_EQ(vocab.Id("<eos>"), 5);
  EXPECT_EQ(vocab.Id("bird"), vocab.Id("<unk>"));
  EXPECT_EQ(vocab.Id("mat"), vocab.Id("<unk>"));  // once: not among the 4 most frequent
}

TEST(WikiTextTest, SequencesAndNextTokenTargets) {
  WikiText spec;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(train: "wiki.train.tokens" seq_len: 4 vocab_size: 50
           validation { name: "valid" path: "wiki.valid.tokens" max_sequences: 2 })pb",
      &spec));
  auto dataset = CreateWikiText<double>(spec, kDir);
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  const Batch<double>& train = *(*dataset)->train();
  EXPECT_EQ(train.inputs.shape(), (Shape{7, 4, 1}));  // (29 - 1) / 4
  EXPECT_EQ(train.targets.sample(0)(0, 0), train.inputs.sample(0)(1, 0));
  EXPECT_EQ(train.targets.sample(0)(3, 0), train.inputs.sample(1)(0, 0));  // the stream continues
  ASSERT_EQ((*dataset)->validation().size(), 1u);
  EXPECT_EQ((*dataset)->validation()[0].batch.inputs.shape(), (Shape{2, 4, 1}));
}

TEST(WikiTextTest, BadFilesNameTheField) {
  auto error = [](const std::string& text) {
    WikiText spec;
    google::protobuf::TextFormat::ParseFromString(text, &spec);
    return CreateWikiText<float>(spec, kDir).status();
  };
  absl::Status status = error(R"pb(train: "nope.tokens" seq_len: 4 vocab_size: 9)pb");
  EXPECT_EQ(ErrorField(status), "train");
  EXPECT_NE(status.message().find("nope.tokens: cannot read (No such file or directory)"),
            std::string::npos);
  status = error(R"pb(train: "." seq_len: 4 vocab_size: 9)pb");  // was "no words"
  EXPECT_EQ(ErrorField(status), "train");
  EXPECT_NE(status.message().find("/.: is a directory, not a file"), std::string::npos) << status;
  status = error(R"pb(train: "empty.tokens" seq_len: 4 vocab_size: 9)pb");
  EXPECT_NE(status.message().find("no words (an empty file?)"), std::string::npos);
  status = error(R"pb(train: "binary.tokens" seq_len: 4 vocab_size: 9)pb");
  EXPECT_NE(status.message().find("binary.tokens:2: byte 1 is 0x00, a control character: not a "
                                  "text file"),
            std::string::npos)
      << status;
  status = error(R"pb(train: "wiki.valid.tokens" seq_len: 400 vocab_size: 9)pb");
  EXPECT_NE(status.message().find("fewer than seq_len + 1"), std::string::npos);
  EXPECT_EQ(ErrorField(error(R"pb(train: "wiki.train.tokens" seq_len: 4)pb")), "vocab_size");
  status = error(R"pb(train: "wiki.train.tokens" seq_len: 4 vocab_size: 9
                      validation { name: "v" path: "missing" })pb");
  EXPECT_EQ(ErrorField(status), "validation[0].path");
}

// Random bytes without a NUL were read as words (the model trained on noise, exit 0).
TEST(WikiTextTest, BytesThatAreNotUtf8TextAreRefused) {
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
TEST(WikiTextTest, RealWikiText2CountsMatchThePublishedOnes) {
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

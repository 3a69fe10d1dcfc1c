#include "plugins/datasets/wikitext/wikitext_dataset.h"

#include "attention/base/field_error.h"
#include "datasets/dataset_testing.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

constexpr char kDir[] = "datasets/testdata/wikitext_tiny";

TEST(WikiTextDatasetTest, SequencesAndNextTokenTargets) {
  auto dataset = MakeDataset<double>(
      "wikitext",
      R"pb(train: "wiki.train.tokens" seq_len: 4 vocab_size: 50
           validation { name: "valid" path: "wiki.valid.tokens" max_sequences: 2 })pb",
      0, kDir);
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  const Batch<double>& train = *(*dataset)->train();
  EXPECT_EQ(train.inputs.shape(), (Shape{7, 4, 1}));  // (29 - 1) / 4
  EXPECT_EQ(train.targets.sample(0)(0, 0), train.inputs.sample(0)(1, 0));
  EXPECT_EQ(train.targets.sample(0)(3, 0), train.inputs.sample(1)(0, 0));  // the stream continues
  ASSERT_EQ((*dataset)->validation().size(), 1u);
  EXPECT_EQ((*dataset)->validation()[0].batch.inputs.shape(), (Shape{2, 4, 1}));
}

TEST(WikiTextDatasetTest, BadFilesNameTheField) {
  auto error = [](const std::string& text) {
    return MakeDataset<float>("wikitext", text, 0, kDir).status();
  };
  absl::Status status = error(R"pb(train: "nope.tokens" seq_len: 4 vocab_size: 9)pb");
  EXPECT_EQ(ErrorField(status), "config.train");
  EXPECT_NE(status.message().find("nope.tokens: cannot read (No such file or directory)"),
            std::string::npos);
  status = error(R"pb(train: "." seq_len: 4 vocab_size: 9)pb");  // was "no words"
  EXPECT_EQ(ErrorField(status), "config.train");
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
  EXPECT_EQ(ErrorField(error(R"pb(train: "wiki.train.tokens" seq_len: 4)pb")), "config.vocab_size");
  status = error(R"pb(train: "wiki.train.tokens" seq_len: 4 vocab_size: 9
                      validation { name: "v" path: "missing" })pb");
  EXPECT_EQ(ErrorField(status), "config.validation[0].path");
}

}  // namespace
}  // namespace attnlab

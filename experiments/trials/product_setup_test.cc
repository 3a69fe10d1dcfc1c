#include "experiments/trials/product_setup.h"

#include "attention/base/files.h"
#include "attention/kernels/library_product.h"
#include "experiments/store/code_version.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

class ProductSetupTest : public ::testing::Test {
 protected:
  void TearDown() override {
    SetProductBackend(ProductBackend::kChosen);
    SetProductChoices(AllTiled());
  }
  const std::string cache_ = ::testing::TempDir() + "/product_setup_cache";
};

TEST_F(ProductSetupTest, TunesOnceThenReadsTheKeptChoices) {
  ASSERT_TRUE(RemoveTree(cache_).ok());
  absl::StatusOr<std::string> first = SetUpProducts("tuned", cache_);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->size(), 6u + kProductClasses) << *first;
  EXPECT_EQ(first->substr(0, 6), "tuned ");
  EXPECT_EQ(ProductChoicesString(GetProductChoices()), first->substr(6));
  EXPECT_EQ(GetProductBackend(), ProductBackend::kChosen);

  const std::string path = ProductChoicesPath(cache_, CurrentMachine());
  absl::StatusOr<std::string> text = ReadFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("choices\t" + first->substr(6) + "\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("# A^T B strided, depth > 512, out >= 250000\t1024 x 512 x 1024\t"),
            std::string::npos)
      << *text;

  // The kept file decides from then on: edited by hand, it is what the next run uses.
  const std::string all_onednn(kProductClasses, 'o');
  ASSERT_TRUE(WriteFileAtomically(path, "# kept\nchoices\t" + all_onednn + "\n").ok());
  absl::StatusOr<std::string> second = SetUpProducts("tuned", cache_);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*second, "tuned " + all_onednn);
  EXPECT_EQ(GetProductChoices()[17], ProductBackend::kOneDnn);
}

TEST_F(ProductSetupTest, AnUnwritableCacheTunesForThisProcessAndSaysSo) {
  // Below a file: no directory can be made there (not even by root).
  const std::string file = ::testing::TempDir() + "/product_setup_a_file";
  ASSERT_TRUE(WriteFileAtomically(file, "not a directory\n").ok());
  const std::string cache = file + "/cache";
  ::testing::internal::CaptureStderr();
  absl::StatusOr<std::string> products = SetUpProducts("tuned", cache);
  const std::string said = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(products.ok()) << products.status();
  EXPECT_EQ(products->substr(0, 6), "tuned ");
  EXPECT_EQ(ProductChoicesString(GetProductChoices()), products->substr(6));
  EXPECT_EQ(GetProductBackend(), ProductBackend::kChosen);
  const std::string line = "products: cannot keep the choices in " + file + "/cache/products (";
  ASSERT_EQ(said.find(line), 0u) << said;
  EXPECT_NE(said.find("): tuning for this process only\n"), std::string::npos) << said;
  EXPECT_FALSE(ReadFile(ProductChoicesPath(cache, CurrentMachine())).ok());
}

TEST_F(ProductSetupTest, WithoutACacheDirectoryEveryBlockIsTiled) {
  absl::StatusOr<std::string> products = SetUpProducts("tuned", "");
  ASSERT_TRUE(products.ok()) << products.status();
  EXPECT_EQ(*products, "tiled: no cache directory");
  EXPECT_EQ(GetProductBackend(), ProductBackend::kTiled);
}

TEST_F(ProductSetupTest, ForcedBackends) {
  for (const char* name : {"tiled", "libxsmm", "onednn"}) {
    absl::StatusOr<std::string> forced = SetUpProducts(name, "");
    ASSERT_TRUE(forced.ok()) << forced.status();
    EXPECT_EQ(*forced, std::string("forced ") + name);
    EXPECT_STREQ(ProductBackendName(GetProductBackend()), name);
  }
  for (const char* bad : {"chosen", "gpu", ""}) {
    EXPECT_EQ(SetUpProducts(bad, cache_).status().message(),
              std::string("--product_backend: '") + bad +
                  "' is not one of tuned, tiled, libxsmm, onednn, choices:LETTERS");
  }
}

// choices:LETTERS sets each class's backend as given (to A/B one class), without tuning.
TEST_F(ProductSetupTest, ChoicesGivenByLetters) {
  std::string letters(kProductClasses, 't');
  letters[29] = 'o';
  letters[0] = 'x';
  absl::StatusOr<std::string> chosen = SetUpProducts("choices:" + letters, "");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(*chosen, "chosen " + letters);
  EXPECT_EQ(GetProductBackend(), ProductBackend::kChosen);
  EXPECT_EQ(GetProductChoices()[29], ProductBackend::kOneDnn);
  EXPECT_EQ(GetProductChoices()[0], ProductBackend::kLibxsmm);
  EXPECT_EQ(GetProductChoices()[1], ProductBackend::kTiled);
  EXPECT_EQ(SetUpProducts("choices:tto", "").status().message(),
            "--product_backend=choices:tto: expected 64 letters (one per class), got 3");
  letters[5] = 'q';
  EXPECT_EQ(SetUpProducts("choices:" + letters, "").status().message(),
            "--product_backend=choices:" + letters +
                ": letter 6 is 'q': expected t (tiled), x (libxsmm) or o (onednn)");
}

TEST_F(ProductSetupTest, BadCacheFilesAreNamedWithTheirLine) {
  const std::string path = ProductChoicesPath(cache_, "CPU model 7");
  EXPECT_EQ(path, cache_ + "/products/CPU_model_7.v4.tsv");
  EXPECT_EQ(ParseProductChoicesFile(path, "# a\n# b\nchoices\tttq\n").status().message(),
            path +
                ":3: choices: expected 64 letters (one per class), got 3; delete the file to "
                "tune again");
  EXPECT_EQ(ParseProductChoicesFile(path, "# only comments\n").status().message(),
            path + ": no 'choices' line; delete the file to tune again");

  // A corrupt kept file stops the program; it is not silently tuned over.
  ASSERT_TRUE(RemoveTree(cache_).ok());
  const std::string kept = ProductChoicesPath(cache_, CurrentMachine());
  ASSERT_TRUE(MakeDirectories(DirectoryOf(kept)).ok());
  ASSERT_TRUE(WriteFileAtomically(kept, "choices\tx\n").ok());
  EXPECT_EQ(SetUpProducts("tuned", cache_).status().message(),
            kept +
                ":1: choices: expected 64 letters (one per class), got 1; delete the file to "
                "tune again");
}

TEST_F(ProductSetupTest, FileListsEveryClassTiming) {
  std::vector<ProductClassTiming> timings(kProductClasses);
  for (int c = 0; c < kProductClasses; ++c) {
    timings[c] = {c,   8,
                  16,  32,
                  3.0, c == 5 ? 1.0 : 4.0,
                  5.0, c == 5 ? ProductBackend::kLibxsmm : ProductBackend::kTiled};
  }
  const std::string text = ProductChoicesFile("Some CPU", timings);
  EXPECT_NE(text.find("on Some CPU,\n"), std::string::npos) << text;
  absl::StatusOr<ProductChoices> back = ParseProductChoicesFile("f", text);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ProductChoicesString(*back), "tttttx" + std::string(58, 't'));
  EXPECT_NE(text.find("# A B, depth 65-256, out < 40000\t8 x 16 x 32\t3.00\t1.00\t5.00\tlibxsmm\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace attnlab

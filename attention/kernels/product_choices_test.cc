#include "attention/kernels/product_choices.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "attention/kernels/product.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(ProductChoicesTest, ClassesByHand) {
  EXPECT_EQ(ProductClass(50, 50, 16, false, false), 0);     // a head's scores
  EXPECT_EQ(ProductClass(256, 64, 64, false, false), 1);    // a block of a ViT projection
  EXPECT_EQ(ProductClass(512, 128, 128, false, false), 5);  // depth 65-256, out >= 40000
  EXPECT_EQ(ProductClass(512, 128, 33278, false, false), 11);
  EXPECT_EQ(ProductClass(512, 128, 128, false, true), 12 + 5);  // a block of the LM's logits
  EXPECT_EQ(ProductClass(128, 128, 512, true, false), 24 + 7);  // A^T, depth 257-512, out 16384
  EXPECT_EQ(ProductClass(64, 64, 64, true, true), 36 + 1);      // 64 x 64 is not < 4096
  EXPECT_EQ(ProductClass(64, 64, 65, false, false), 4);         // 64 x 64 = 4096 is not < 4096
  EXPECT_EQ(ProductClass(1, 1, 100000, true, true), 45);
  EXPECT_EQ(ProductClassName(12 + 5), "A B strided, depth 65-256, out >= 40000");
  EXPECT_EQ(ProductClassName(24), "A^T B, depth <= 64, out < 4096");
}

TEST(ProductChoicesTest, EveryClassHasOneIndex) {
  std::set<int> seen;
  for (bool t : {false, true}) {
    for (bool s : {false, true}) {
      for (int depth : {1, 64, 65, 256, 257, 512, 513}) {
        for (int rows : {1, 63, 64, 200, 400}) seen.insert(ProductClass(rows, 100, depth, t, s));
      }
    }
  }
  EXPECT_EQ(seen.size(), size_t(kProductClasses));
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_EQ(*seen.rbegin(), kProductClasses - 1);
}

TEST(ProductChoicesTest, LettersRoundTripAndBadOnesAreNamed) {
  ProductChoices choices = AllTiled();
  choices[3] = ProductBackend::kLibxsmm;
  choices[47] = ProductBackend::kOneDnn;
  const std::string letters = ProductChoicesString(choices);
  EXPECT_EQ(letters, "tttx" + std::string(43, 't') + "o");
  absl::StatusOr<ProductChoices> parsed = ParseProductChoices(letters);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, choices);
  EXPECT_EQ(ParseProductChoices("ttt").status().message(),
            "expected 48 letters (one per class), got 3");
  EXPECT_EQ(ParseProductChoices("tq" + std::string(46, 't')).status().message(),
            "letter 2 is 'q': expected t (tiled), x (libxsmm) or o (onednn)");
}

// A depth-300 float product (class 7) through Product with a backend forced, or chosen.
Matrix<float> Multiply(ProductBackend backend) {
  Matrix<float> a(64, 300), b(300, 96), out(64, 96);
  for (int i = 0; i < a.size(); ++i) a.data()[i] = float((i * 37) % 101) / 101.0f - 0.5f;
  for (int i = 0; i < b.size(); ++i) b.data()[i] = float((i * 53) % 103) / 103.0f - 0.5f;
  SetProductBackend(backend);
  Product(a, b, out, /*accumulate=*/false, 1.0f);
  SetProductBackend(ProductBackend::kChosen);
  return out;
}

TEST(ProductChoicesTest, ChosenBackendIsTheClassesChoice) {
  ASSERT_EQ(ProductClass(64, 96, 300, false, false), 7);
  const Matrix<float> tiled = Multiply(ProductBackend::kTiled);
  const Matrix<float> onednn = Multiply(ProductBackend::kOneDnn);
  ASSERT_NE(tiled, onednn) << "the two backends round alike here: the test cannot tell them apart";

  EXPECT_EQ(Multiply(ProductBackend::kChosen), tiled);  // untuned: every class tiled
  ProductChoices choices = AllTiled();
  choices[7] = ProductBackend::kOneDnn;
  SetProductChoices(choices);
  EXPECT_EQ(Multiply(ProductBackend::kChosen), onednn);
  choices[7] = ProductBackend::kTiled;
  choices[8] = ProductBackend::kOneDnn;  // another class: not this product's
  SetProductChoices(choices);
  EXPECT_EQ(Multiply(ProductBackend::kChosen), tiled);
  SetProductChoices(AllTiled());
}

TEST(ProductChoicesTest, TimingsCoverEveryClassAndPickTheFastest) {
  const std::vector<ProductClassTiming> timings = TimeProductClasses(/*repeats=*/1);
  ASSERT_EQ(timings.size(), size_t(kProductClasses));
  for (int c = 0; c < kProductClasses; ++c) {
    const ProductClassTiming& t = timings[c];
    SCOPED_TRACE(ProductClassName(c));
    EXPECT_EQ(t.product_class, c);
    EXPECT_EQ(ProductClass(t.rows, t.cols, t.depth, c >= 24, (c / 12) % 2 == 1), c);
    EXPECT_GT(t.tiled_us, 0);
    EXPECT_GT(t.libxsmm_us, 0);
    EXPECT_GT(t.onednn_us, 0);
    const double times[] = {t.tiled_us, t.libxsmm_us, t.onednn_us};
    const double fastest = std::min({times[0], times[1], times[2]});
    const int chosen = t.chosen == ProductBackend::kTiled     ? 0
                       : t.chosen == ProductBackend::kLibxsmm ? 1
                                                              : 2;
    EXPECT_LE(times[chosen] * 0.97, fastest);
    for (int before = 0; before < chosen; ++before) EXPECT_GT(times[before] * 0.97, fastest);
  }
  const ProductChoices choices = ChoicesOf(timings);
  for (int c = 0; c < kProductClasses; ++c) EXPECT_EQ(choices[c], timings[c].chosen);
  // The table: a header, then a line a class ending in its chosen backend.
  const std::vector<std::string> lines =
      absl::StrSplit(ProductTimingsTable(timings), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), size_t(kProductClasses) + 1);
  EXPECT_TRUE(absl::EndsWith(lines[1], ProductBackendName(timings[0].chosen))) << lines[1];
  EXPECT_EQ(GetProductBackend(), ProductBackend::kChosen);  // left as it was
}

}  // namespace
}  // namespace attnlab

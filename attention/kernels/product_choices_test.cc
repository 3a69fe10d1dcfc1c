#include "attention/kernels/product_choices.h"

#include <set>
#include <string>

#include "attention/kernels/product.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(ProductChoicesTest, ClassesByHand) {
  EXPECT_EQ(ProductClass(50, 50, 16, false, false), 0);     // a head's scores
  EXPECT_EQ(ProductClass(256, 64, 64, false, false), 1);    // a block of a ViT projection
  EXPECT_EQ(ProductClass(512, 128, 128, false, false), 6);  // depth 65-256, out < 250000
  EXPECT_EQ(ProductClass(512, 128, 33278, false, false), 14);
  EXPECT_EQ(ProductClass(512, 128, 128, false, true), 16 + 6);   // columns of a wide matrix
  EXPECT_EQ(ProductClass(128, 128, 512, true, false), 32 + 9);   // A^T, depth 257-512, out 16384
  EXPECT_EQ(ProductClass(1200, 512, 256, true, false), 32 + 7);  // fc1024's weight gradient
  EXPECT_EQ(ProductClass(64, 64, 64, true, true), 48 + 1);       // 64 x 64 is not < 4096
  EXPECT_EQ(ProductClass(64, 64, 65, false, false), 5);          // 64 x 64 = 4096 is not < 4096
  EXPECT_EQ(ProductClass(500, 500, 64, false, false), 3);        // 250,000 is not < 250000
  EXPECT_EQ(ProductClass(1, 1, 100000, true, true), 60);
  EXPECT_EQ(ProductClassName(16 + 6), "A B strided, depth 65-256, out < 250000");
  EXPECT_EQ(ProductClassName(32), "A^T B, depth <= 64, out < 4096");
  EXPECT_EQ(ProductClassName(63), "A^T B strided, depth > 512, out >= 250000");
}

TEST(ProductChoicesTest, PartsTakeTheIndexApart) {
  for (int c = 0; c < kProductClasses; ++c) {
    const ProductClassParts parts = PartsOf(c);
    EXPECT_EQ(
        ((int(parts.lhs_transposed) * 2 + int(parts.strided_rhs)) * 4 + parts.depth_class) * 4 +
            parts.output_class,
        c);
  }
}

TEST(ProductChoicesTest, EveryClassHasOneIndex) {
  std::set<int> seen;
  for (bool t : {false, true}) {
    for (bool s : {false, true}) {
      for (int depth : {1, 64, 65, 256, 257, 512, 513}) {
        for (int rows : {1, 63, 64, 200, 400, 2500})
          seen.insert(ProductClass(rows, 100, depth, t, s));
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
  choices[63] = ProductBackend::kOneDnn;
  const std::string letters = ProductChoicesString(choices);
  EXPECT_EQ(letters, "tttx" + std::string(59, 't') + "o");
  absl::StatusOr<ProductChoices> parsed = ParseProductChoices(letters);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, choices);
  EXPECT_EQ(ParseProductChoices("ttt").status().message(),
            "expected 64 letters (one per class), got 3");
  EXPECT_EQ(ParseProductChoices("tq" + std::string(62, 't')).status().message(),
            "letter 2 is 'q': expected t (tiled), x (libxsmm) or o (onednn)");
}

// A depth-300 float product (class 9) through Product with a backend forced, or chosen.
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
  ASSERT_EQ(ProductClass(64, 96, 300, false, false), 9);
  const Matrix<float> tiled = Multiply(ProductBackend::kTiled);
  const Matrix<float> onednn = Multiply(ProductBackend::kOneDnn);
  ASSERT_NE(tiled, onednn) << "the two backends round alike here: the test cannot tell them apart";

  EXPECT_EQ(Multiply(ProductBackend::kChosen), tiled);  // untuned: every class tiled
  ProductChoices choices = AllTiled();
  choices[9] = ProductBackend::kOneDnn;
  SetProductChoices(choices);
  EXPECT_EQ(Multiply(ProductBackend::kChosen), onednn);
  choices[9] = ProductBackend::kTiled;
  choices[10] = ProductBackend::kOneDnn;  // another class: not this product's
  SetProductChoices(choices);
  EXPECT_EQ(Multiply(ProductBackend::kChosen), tiled);
  SetProductChoices(AllTiled());
}

}  // namespace
}  // namespace attnlab

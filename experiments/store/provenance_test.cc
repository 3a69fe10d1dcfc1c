// A finished trial is reused only for the same spec, data content and code: an edited data
// file, the same relative path seen from another folder, or other code never reuse silently.
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "attention/base/files.h"
#include "experiments/spec/plugin_refs.h"
#include "experiments/trials/runner.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

// A one-trial LM on the data file `train` (relative to the spec's folder).
std::string Spec(const std::string& train) {
  return absl::StrCat(R"pb(model {
  dtype: FLOAT
  layer {
    name: "embed"
    plugin: "embedding"
    config { [type.googleapis.com/attnlab.plugins.EmbeddingConfig] { vocab_size: 12 dim: 8 max_len: 4 } }
  }
  loss {
    plugin: "lm_cross_entropy"
    config { [type.googleapis.com/attnlab.plugins.LmHeadConfig] { vocab_size: 12 } }
  }
}
dataset { plugin: "wikitext" config { train: ")pb", train, R"pb(" seq_len: 4 vocab_size: 12 } }
optimizer { plugin: 'adam' lr: 0.01 }
training { steps: 3 batch_size: 2 }
)pb");
}

constexpr char kWords[] = "a b c d e f g h a b c d e f g h a b c d\ne f g h a b c d e f g h\n";

CodeVersion Code(const std::string& source, const std::string& commit = "1111111") {
  CodeVersion code = UnversionedBuild();
  code.source = source;
  code.commit = commit;
  code.tree = "clean";
  return code;
}

class ProvenanceTest : public ::testing::Test {
 protected:
  std::string Dir(const std::string& name) {
    const std::string dir = ::testing::TempDir() + "/" + test_name_ + "/" + name;
    EXPECT_TRUE(MakeDirectories(dir).ok());
    return dir;
  }
  void Write(const std::string& path, const std::string& text) {
    ASSERT_TRUE(MakeDirectories(DirectoryOf(path)).ok());
    ASSERT_TRUE(WriteFileAtomically(path, text).ok());
  }
  absl::StatusOr<ExperimentResult> Run(const std::string& spec_file, const CodeVersion& code,
                                       Reuse reuse = Reuse::kSameCode) {
    absl::StatusOr<ParsedSpec> parsed = ReadSpecFile(spec_file);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    RunOptions options;
    options.out_dir = Dir("store");
    options.progress = false;
    options.code = code;
    options.reuse = reuse;
    return RunExperiment(*parsed, options);
  }
  void SetUp() override {
    test_name_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  std::string test_name_;
};

TEST_F(ProvenanceTest, EditedDataFileRunsAgain) {
  const std::string spec = Dir("specs") + "/lm.textproto";
  Write(spec, Spec("data/train.tokens"));
  Write(Dir("specs") + "/data/train.tokens", kWords);
  auto first = Run(spec, Code("a"));
  ASSERT_TRUE(first.ok()) << first.status();
  auto again = Run(spec, Code("a"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->reused, 1);
  EXPECT_EQ(again->trials[0].id, first->trials[0].id);

  // Same size, one word changed.
  std::string edited = kWords;
  edited[0] = 'h';
  Write(Dir("specs") + "/data/train.tokens", edited);
  auto after_edit = Run(spec, Code("a"));
  ASSERT_TRUE(after_edit.ok()) << after_edit.status();
  EXPECT_EQ(after_edit->reused, 0);
  EXPECT_NE(after_edit->trials[0].id, first->trials[0].id);
  EXPECT_TRUE(Exists(Dir("store") + "/" + first->trials[0].id + "/metrics.csv"))
      << "the old data's result stays";
  // The record names the data file it read.
  const std::string record =
      ReadFile(Dir("store") + "/" + after_edit->trials[0].id + "/provenance.tsv").value();
  EXPECT_NE(record.find("data\t"), std::string::npos) << record;
  EXPECT_NE(record.find("/data/train.tokens\t"), std::string::npos) << record;
  EXPECT_NE(record.find("code_source\ta\n"), std::string::npos) << record;
}

TEST_F(ProvenanceTest, SameRelativePathFromAnotherFolderIsOtherData) {
  const std::string one = Dir("one") + "/lm.textproto", two = Dir("two") + "/lm.textproto";
  Write(one, Spec("data/train.tokens"));
  Write(two, Spec("data/train.tokens"));
  Write(Dir("one") + "/data/train.tokens", kWords);
  Write(Dir("two") + "/data/train.tokens", std::string(kWords) + "a b c d\n");
  auto first = Run(one, Code("a"));
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = Run(two, Code("a"));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->reused, 0);
  EXPECT_NE(second->trials[0].id, first->trials[0].id);
  // Rerun from the first folder: its own trial again.
  auto again = Run(one, Code("a"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->reused, 1);
  EXPECT_EQ(again->trials[0].id, first->trials[0].id);
}

TEST_F(ProvenanceTest, OtherCodeIsRefusedUnlessAskedFor) {
  const std::string spec = Dir("specs") + "/lm.textproto";
  Write(spec, Spec("train.tokens"));
  Write(Dir("specs") + "/train.tokens", kWords);
  auto first = Run(spec, Code("a", "1111111"));
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string id = first->trials[0].id;

  // A new commit without code changes reuses.
  auto recommitted = Run(spec, Code("a", "2222222"));
  ASSERT_TRUE(recommitted.ok()) << recommitted.status();
  EXPECT_EQ(recommitted->reused, 1);
  EXPECT_EQ(recommitted->results[0]->code.commit, "1111111") << "its own record";

  // Other code: refused, naming both.
  auto refused = Run(spec, Code("b", "3333333"));
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string message(refused.status().message());
  // A trial's code: the build's core and the plugins its spec names.
  const std::set<std::string> plugins = PluginFoldersOf(first->trials[0].spec);
  const std::string key_a = Code("a").ForPlugins(plugins).Key();
  EXPECT_EQ(first->trials[0].code.Key(), key_a);
  EXPECT_NE(message.find("code " + key_a + " (commit 1111111"), std::string::npos) << message;
  EXPECT_NE(message.find("this binary runs it as code " + Code("b").ForPlugins(plugins).Key() +
                         " (commit 3333333"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--reuse=any"), std::string::npos) << message;

  // --reuse=any takes it as it is, and says whose it is.
  auto taken = Run(spec, Code("b"), Reuse::kAnyCode);
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_EQ(taken->reused, 1);
  EXPECT_EQ(taken->results[0]->code.source, "a");
  const std::string summary = ReadFile(Dir("store") + "/summary.csv").value();
  EXPECT_NE(summary.find("," + key_a + ",1111111\n"), std::string::npos) << summary;

  // --reuse=rerun runs it again and keeps the old result aside.
  auto rerun = Run(spec, Code("b", "3333333"), Reuse::kRerun);
  ASSERT_TRUE(rerun.ok()) << rerun.status();
  EXPECT_EQ(rerun->reused, 0);
  EXPECT_EQ(rerun->results[0]->code.source, "b");
  EXPECT_TRUE(Exists(Dir("store") + "/superseded/" + id + "." + key_a + "/metrics.csv"));
  auto now_same = Run(spec, Code("b"));
  ASSERT_TRUE(now_same.ok()) << now_same.status();
  EXPECT_EQ(now_same->reused, 1);
}

// --reuse=any-cpu: the same program run on another CPU is taken (its CPU stays in its record);
// another program is run again, as --reuse=rerun would, and a CPU change alone is refused
// by default.
TEST_F(ProvenanceTest, AnyCpuTakesThisProgramFromAnotherCpuOnly) {
  const std::string spec = Dir("specs") + "/lm.textproto";
  Write(spec, Spec("train.tokens"));
  Write(Dir("specs") + "/train.tokens", kWords);
  CodeVersion intel = Code("a");
  intel.machine = "GenuineIntel family 6 model 167";
  auto first = Run(spec, intel);
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string id = first->trials[0].id;

  CodeVersion amd = Code("a");
  amd.machine = "AuthenticAMD family 23 model 1";
  amd.products = "tuned xxoo";
  EXPECT_EQ(Run(spec, amd).status().code(), absl::StatusCode::kFailedPrecondition);
  auto taken = Run(spec, amd, Reuse::kAnyCpu);
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_EQ(taken->reused, 1);
  EXPECT_EQ(taken->results[0]->code.machine, intel.machine);

  CodeVersion other_program = amd;
  other_program.source = "b";
  auto rerun = Run(spec, other_program, Reuse::kAnyCpu);
  ASSERT_TRUE(rerun.ok()) << rerun.status();
  EXPECT_EQ(rerun->reused, 0);
  EXPECT_EQ(rerun->results[0]->code.source, "b");
  const std::set<std::string> plugins = PluginFoldersOf(first->trials[0].spec);
  EXPECT_TRUE(Exists(Dir("store") + "/superseded/" + id + "." + intel.ForPlugins(plugins).Key() +
                     "/metrics.csv"));
  EXPECT_EQ(ParseReuse("any-cpu").value(), Reuse::kAnyCpu);
}

TEST_F(ProvenanceTest, ResultWithoutRecordCountsAsOtherCode) {
  const std::string spec = Dir("specs") + "/lm.textproto";
  Write(spec, Spec("train.tokens"));
  Write(Dir("specs") + "/train.tokens", kWords);
  auto first = Run(spec, Code("a"));
  ASSERT_TRUE(first.ok()) << first.status();
  // As stored before provenance records: no provenance.tsv, and the manifest without it.
  const std::string dir = Dir("store") + "/" + first->trials[0].id;
  ASSERT_TRUE(RemoveTree(dir + "/provenance.tsv").ok());
  std::string manifest;
  for (absl::string_view line :
       absl::StrSplit(ReadFile(dir + "/manifest.tsv").value(), '\n', absl::SkipEmpty())) {
    if (!absl::EndsWith(line, "\tprovenance.tsv")) absl::StrAppend(&manifest, line, "\n");
  }
  ASSERT_TRUE(WriteFileAtomically(dir + "/manifest.tsv", manifest).ok());
  auto refused = Run(spec, Code("a"));
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("did not record"), absl::string_view::npos)
      << refused.status();
}

}  // namespace
}  // namespace attnlab

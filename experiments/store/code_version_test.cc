#include "experiments/store/code_version.h"

#include "experiments/store/program.h"
#include "experiments/store/this_build.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

CodeVersion Example() {
  CodeVersion version;
  version.source = "0123456789abcdef";
  version.commit = "360dff76e2c48ff858db7c0300a30fb2476063fe";
  version.tree = "clean";
  version.compiler = "12.2.0";
  version.flags = "-c opt -march=native";
  version.libraries = "libeigen3-dev=3.4.0-4";
  version.machine = "AuthenticAMD family 25 model 17";
  version.products = "tuned " + std::string(48, 't');
  version.plugins = {{"plugins/softmax", "00aa11bb22cc33dd"}, {"plugins/losses", "ffee"}};
  return version;
}

TEST(CodeVersionTest, KeyCoversWhatDecidesResultsNotTheCommit) {
  const CodeVersion base = Example();
  CodeVersion other = base;
  other.commit = "ffffffffffffffffffffffffffffffffffffffff";
  other.tree = "dirty";
  EXPECT_EQ(other.Key(), base.Key()) << "a commit without code changes keeps the results";
  for (std::string CodeVersion::*field :
       {&CodeVersion::source, &CodeVersion::compiler, &CodeVersion::flags, &CodeVersion::libraries,
        &CodeVersion::machine, &CodeVersion::products}) {
    CodeVersion changed = base;
    changed.*field += "x";
    EXPECT_NE(changed.Key(), base.Key());
  }
  EXPECT_EQ(base.Key().size(), 12u);
  CodeVersion plugin_changed = base;
  plugin_changed.plugins["plugins/softmax"] += "x";
  EXPECT_NE(plugin_changed.Key(), base.Key());
}

TEST(CodeVersionTest, ForPluginsKeepsOnlyThoseFolders) {
  const CodeVersion base = Example();
  const CodeVersion trial = base.ForPlugins({"plugins/softmax", "plugins/gone"});
  EXPECT_EQ(trial.plugins,
            (std::map<std::string, std::string>{{"plugins/softmax", "00aa11bb22cc33dd"},
                                                {"plugins/gone", "absent"}}));
  EXPECT_EQ(trial.source, base.source);
  EXPECT_EQ(base.ForPlugins({"plugins/softmax"}).Key(), base.ForPlugins({"plugins/softmax"}).Key());
  EXPECT_NE(base.ForPlugins({"plugins/softmax"}).Key(), base.ForPlugins({}).Key());
}

TEST(CodeVersionTest, LinesRoundTrip) {
  const CodeVersion version = Example();
  const CodeVersion back = ParseCodeVersionLines(CodeVersionLines(version) + "data\tx\t1\t2\n");
  EXPECT_EQ(back.Key(), version.Key());
  EXPECT_EQ(back.commit, version.commit);
  EXPECT_EQ(back.tree, version.tree);
  EXPECT_EQ(back.products, version.products);
  EXPECT_EQ(back.plugins, version.plugins);
  EXPECT_EQ(ParseCodeVersionLines("").source, "");
}

TEST(CodeVersionTest, DescribeNamesKeyCommitAndSource) {
  CodeVersion version = Example();
  version.tree = "dirty";
  const std::string line = version.Describe();
  EXPECT_NE(line.find("code " + version.Key()), std::string::npos) << line;
  EXPECT_NE(line.find("commit 360dff7+dirty"), std::string::npos) << line;
  EXPECT_NE(line.find("source 0123456789abcdef"), std::string::npos) << line;
}

TEST(CodeVersionTest, ThisBuildIsFilledIn) {
  const CodeVersion build = ThisBuild();
  EXPECT_EQ(build.source.size(), 16u) << build.source;
  EXPECT_FALSE(build.commit.empty());
  EXPECT_FALSE(build.compiler.empty());
  EXPECT_NE(build.flags.find("-c "), std::string::npos) << build.flags;
  EXPECT_EQ(build.machine, CurrentMachine());
  EXPECT_NE(CurrentMachine().find(" family "), std::string::npos) << CurrentMachine();
}

TEST(ProgramTest, KeyLeavesOutOnlyTheCpuAndItsProducts) {
  const CodeVersion base = Example();
  CodeVersion elsewhere = base;
  elsewhere.machine = "GenuineIntel family 6 model 167";
  elsewhere.products = "tuned oooo";
  EXPECT_NE(elsewhere.Key(), base.Key());
  EXPECT_EQ(ProgramKey(elsewhere), ProgramKey(base));
  EXPECT_EQ(ProgramKey(base).size(), 12u);
  for (std::string CodeVersion::*field : {&CodeVersion::source, &CodeVersion::compiler,
                                          &CodeVersion::flags, &CodeVersion::libraries}) {
    CodeVersion changed = base;
    changed.*field += "x";
    EXPECT_NE(ProgramKey(changed), ProgramKey(base));
  }
  CodeVersion plugin_changed = base;
  plugin_changed.plugins["plugins/softmax"] += "x";
  EXPECT_NE(ProgramKey(plugin_changed), ProgramKey(base));
}

TEST(ProgramTest, DescriptionsNameTheProgramAndTheCpuApart) {
  CodeVersion base = Example();
  base.products = "tuned ttxo";
  EXPECT_EQ(DescribeProgram(base),
            "program " + ProgramKey(base) +
                " (commit 360dff7, source 0123456789abcdef, plugins losses ffee softmax 00aa11bb, "
                "compiler 12.2.0, -c opt -march=native)");
  EXPECT_EQ(DescribeCpu(base), "AuthenticAMD family 25 model 17 (products tuned ttxo)");
}

}  // namespace
}  // namespace attnlab

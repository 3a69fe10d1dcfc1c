#include "experiments/store/program.h"

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
  version.products = "tuned ttxo";
  version.plugins = {{"plugins/mechanisms/softmax", "00aa11bb22cc33dd"}};
  return version;
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
  plugin_changed.plugins["plugins/mechanisms/softmax"] += "x";
  EXPECT_NE(ProgramKey(plugin_changed), ProgramKey(base));
}

TEST(ProgramTest, DescriptionsNameTheProgramAndTheCpuApart) {
  const CodeVersion base = Example();
  EXPECT_EQ(DescribeProgram(base),
            "program " + ProgramKey(base) +
                " (commit 360dff7, source 0123456789abcdef, plugins softmax 00aa11bb, compiler "
                "12.2.0, -c opt -march=native)");
  EXPECT_EQ(DescribeCpu(base), "AuthenticAMD family 25 model 17 (products tuned ttxo)");
}

}  // namespace
}  // namespace attnlab

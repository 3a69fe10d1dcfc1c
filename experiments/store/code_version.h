// The code a trial ran: what, besides its spec and data, decides its result. A results store
// records it beside every trial (provenance.tsv), and a run reuses a finished trial only when
// its code is this binary's (README, "Reusing results").
#ifndef ATTNLAB_EXPERIMENTS_STORE_CODE_VERSION_H_
#define ATTNLAB_EXPERIMENTS_STORE_CODE_VERSION_H_

#include <map>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace attnlab {

struct CodeVersion {
  // A hash of every source file of the core (the trial code outside plugins/), with its
  // targets' copts and defines.
  std::string source;
  // Plugin folder ("plugins/metrics/accuracy") -> a hash of its sources and their copts. The
  // build's: every plugin; a trial's: the plugins its spec names (ForPlugins).
  std::map<std::string, std::string> plugins;
  // The git commit it was built at, and "clean", "dirty" (uncommitted changes, which `source`
  // covers) or "unknown" (no git).
  std::string commit;
  std::string tree;
  std::string compiler;
  // Compilation mode and --copt / --cxxopt flags.
  std::string flags;
  // Debian versions of the libraries whose code runs in a trial (Eigen, oneDNN, libxsmm, ...).
  std::string libraries;
  // The CPU the trial ran on (vendor, family, model): -march=native and the GEMM libraries'
  // run-time dispatch pick its kernels, whose float rounding differs.
  std::string machine;
  // Which code multiplied float blocks: "tuned " and one letter per class of block (t tiled, x
  // libxsmm, o oneDNN; experiments/product_setup.h), or "forced <backend>".
  std::string products;

  // 12 hex digits of a hash of everything above but the commit and tree (the source hashes
  // cover what they would say): equal keys, equal results for equal specs and data.
  std::string Key() const;
  // This code with only the plugins in `folders` (a folder this build lacks hashes as
  // "absent"): the code a trial naming those plugins runs.
  CodeVersion ForPlugins(const std::set<std::string>& folders) const;
  // One line: "code 3fa2c1d07e9b (commit 360dff7, source 1a2b..., g++ 12.2.0, ...)".
  std::string Describe() const;
  // "360dff7", "360dff7+dirty" (built with uncommitted changes), or "unknown".
  std::string ShortCommit() const;
};

// A build whose code version is not known (tests): every field says so.
CodeVersion UnversionedBuild();

// "AuthenticAMD family 25 model 17 stepping 1", from cpuid.
std::string CurrentMachine();

// provenance.tsv lines ("key\tvalue") and back; unknown keys are kept out, missing ones empty.
std::string CodeVersionLines(const CodeVersion& version);
CodeVersion ParseCodeVersionLines(absl::string_view text);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_STORE_CODE_VERSION_H_

// Reading a paper's claims file, running (or reusing) its runs, and judging its claims.
#ifndef ATTNLAB_EXPERIMENTS_REPRODUCTION_CLAIMS_RUNNER_H_
#define ATTNLAB_EXPERIMENTS_REPRODUCTION_CLAIMS_RUNNER_H_

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/reproduction/check.h"
#include "experiments/reproduction/claims.pb.h"
#include "experiments/reproduction/verdict.h"
#include "experiments/store/code_version.h"
#include "experiments/trials/runner.h"

namespace attnlab {

class Cluster;

struct ClaimsFileText {
  ClaimsFile file;
  std::string path;
  // The line each claim and run starts on (1-based), for error messages.
  std::vector<int> claim_line, run_line;
};

// Syntax errors are InvalidArgument "file:line:column: message"; a file that declares no
// paper number, a duplicate claim id or run name, a run without a spec:
// InvalidArgument "file:line: ...". A missing file is NotFound.
absl::StatusOr<ClaimsFileText> ReadClaimsFile(const std::string& path);

// Each run's name and the hash of its result-determining spec (12 hex digits, CLAIMS.md's spec
// column) as its spec file and overrides now stand; errors as RunClaims reports them.
absl::StatusOr<std::map<std::string, std::string>> RunSpecHashes(const ClaimsFileText& claims);

struct ClaimsOptions {
  // Each run's results store: <out_dir>/<spec store or name>, or <out_dir>/quick/... with quick;
  // runs whose specs name one store share it, and each run's summary is also kept as
  // summary.<run name>.csv there (the store's summary.csv is the last run's).
  std::string out_dir;
  bool quick = false;
  int threads = 1;
  bool progress = true;
  CodeVersion code = UnversionedBuild();
  // A finished trial of other code: run it again by default, since a claims table speaks for
  // the current code (the old result moves to the store's superseded/).
  Reuse reuse = Reuse::kRerun;
  // Only these claims (ids), and only the runs they read; empty: every claim and run.
  std::set<std::string> claims;
  std::function<bool()> stop;
  // The MPI ranks that share each run's trials (trial i on rank i % size, as `run` shares a
  // sweep); rank 0 alone judges. Null: this process alone.
  const Cluster* cluster = nullptr;
};

struct PaperOutcome {
  ClaimsFileText claims;
  RunOutcomes runs;
  std::vector<ClaimOutcome> outcomes;
  CodeVersion code;
  bool quick = false;
};

// Runs every run of the file (with options.claims, those the claims asked for read), then judges
// every claim (those asked for; on rank 0 only, the others' outcomes stay empty). A run whose data
// are missing (NotFound) leaves its claims "not evaluated"; a bad spec, override or check is
// InvalidArgument "file:line: claim ID: ..."; Cancelled when `stop` said so.
absl::StatusOr<PaperOutcome> RunClaims(const ClaimsFileText& claims, const ClaimsOptions& options);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_REPRODUCTION_CLAIMS_RUNNER_H_

// What //experiments:claims writes: CLAIMS.md and claims.csv beside a paper's claims file,
// claims_quick.csv for --quick, and the summary on stdout.
#ifndef ATTNLAB_EXPERIMENTS_REPRODUCTION_CLAIMS_REPORT_H_
#define ATTNLAB_EXPERIMENTS_REPRODUCTION_CLAIMS_REPORT_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "experiments/store/code_version.h"
#include "experiments/reproduction/claims_runner.h"

namespace attnlab {

// The claims table: per claim its words, our setup with its deviations from the paper, each
// check's number against its rule (the central one marked, then controls and preconditions),
// the verdict, what decided a verdict other than reproduced and the causes with their
// interventions, the commits and spec hashes; the tally above. The header names the trial code
// (core and the plugins the trials ran) and the command that reruns it (`rerun_flags`:
// "--paper=1", "--claims=mine/claims.textproto").
std::string ClaimsMarkdown(const PaperOutcome& paper, absl::string_view rerun_flags);

// One row per check (and curve point), control, precondition, cause intervention and piece of
// evidence: paper,claim,verdict,part,name,value,mean,sd,min,max,trials,low,high,rule,met,
// commits,specs (low and high: a paired effect's 95% interval).
std::string ClaimsCsv(const PaperOutcome& paper);

// claim,verdict: the quick verdicts a test holds the code to.
std::string QuickVerdictsCsv(const PaperOutcome& paper);

// The claims whose quick verdict differs from `expected` (QuickVerdictsCsv's text), one line
// each ("1a: expected reproduced, got not reproduced"), and claims missing from either side.
std::vector<std::string> QuickVerdictChanges(const PaperOutcome& paper, absl::string_view expected);

// "Paper 1 (...): 5 of 9 reproduced (...)" and one line per claim, for stdout; under a claim
// that missed, why (its causes, established or not).
std::string ClaimsSummary(const PaperOutcome& paper);

// README's status table, read from each paper's claims.csv (ClaimsCsv's text): per paper its
// tally, its CLAIMS.md (`claims_md`, a path relative to README) and the commits of its rows.
// A paper without full-length verdicts shows its quick tally and links claims_quick.csv.
struct PaperTally {
  int number = 0;
  std::string paper, claims_md, claims_csv, quick_csv;
  // CLAIMS.md's text: its header marks the trial code ("<!-- trial code: KEY; plugins: ...").
  std::string claims_md_text;
  // Each run's spec hash as the repository now has it (RunSpecHashes).
  std::map<std::string, std::string> spec_hashes;
};
// One row per paper with a column per verdict. A paper whose CLAIMS.md came from trial code
// other than `current`'s (the core or a plugin its trials ran changed, or built otherwise), or
// from specs other than `spec_hashes`, says so in its code column, with the command that reruns
// it.
std::string ReadmeStatusTable(const std::vector<PaperTally>& papers, const CodeVersion& current);

// `readme` with the text between its "<!-- claims status -->" and "<!-- end claims status -->"
// lines replaced by `table`; InvalidArgument when the markers are missing.
absl::StatusOr<std::string> ReplaceStatusTable(absl::string_view readme, absl::string_view table);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_REPRODUCTION_CLAIMS_REPORT_H_

// What //experiments:claims writes: CLAIMS.md and claims.csv beside a paper's claims file,
// claims_quick.csv for --quick, and the summary on stdout.
#ifndef ATTNLAB_EXPERIMENTS_REPRODUCTION_CLAIMS_REPORT_H_
#define ATTNLAB_EXPERIMENTS_REPRODUCTION_CLAIMS_REPORT_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "experiments/reproduction/claims_runner.h"

namespace attnlab {

// The claims table: per claim its words, our setup, each check's number against its rule, the
// verdict, the cause of a miss with its evidence, the commits and spec hashes; the tally above.
std::string ClaimsMarkdown(const PaperOutcome& paper);

// One row per check, precondition and piece of evidence:
// paper,claim,verdict,part,name,value,mean,sd,min,max,trials,rule,met,commits,specs.
std::string ClaimsCsv(const PaperOutcome& paper);

// claim,verdict: the quick verdicts a test holds the code to.
std::string QuickVerdictsCsv(const PaperOutcome& paper);

// The claims whose quick verdict differs from `expected` (QuickVerdictsCsv's text), one line
// each ("1a: expected reproduced, got not reproduced"), and claims missing from either side.
std::vector<std::string> QuickVerdictChanges(const PaperOutcome& paper, absl::string_view expected);

// "Paper 1 (...): 5 of 9 reproduced (...)" and one line per claim, for stdout.
std::string ClaimsSummary(const PaperOutcome& paper);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_REPRODUCTION_CLAIMS_REPORT_H_

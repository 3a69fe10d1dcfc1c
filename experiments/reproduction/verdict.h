// A claim's verdict from its checks (claims.proto's rules), its causes for a miss, and a
// paper's tally.
#ifndef ATTNLAB_EXPERIMENTS_REPRODUCTION_VERDICT_H_
#define ATTNLAB_EXPERIMENTS_REPRODUCTION_VERDICT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/reproduction/check.h"
#include "experiments/reproduction/claims.pb.h"

namespace attnlab {

enum class Verdict { kReproduced, kPartly, kNotReproduced, kInconclusive, kNotEvaluated };

// "reproduced", "partly reproduced", "not reproduced", "inconclusive", "not evaluated".
std::string VerdictName(Verdict verdict);

struct CauseOutcome {
  Cause cause;
  std::vector<CheckOutcome> evidence;
  // Every evidence check computed and at its `reproduced` threshold.
  bool shown = false;
};

struct ClaimOutcome {
  Claim claim;
  std::vector<CheckOutcome> checks, requirements;
  // For a claim not reproduced, partly reproduced or inconclusive (why the comparison failed).
  std::vector<CauseOutcome> causes;
  Verdict verdict = Verdict::kNotEvaluated;
  // For inconclusive: the requirement that failed; for not evaluated: why.
  std::string reason;
};

// InvalidArgument "claim ID: <field>: ..." for a problem of the claims file.
absl::StatusOr<ClaimOutcome> JudgeClaim(const Claim& claim, const RunOutcomes& runs);

struct Tally {
  int claims = 0, reproduced = 0, partly = 0, not_reproduced = 0, inconclusive = 0,
      not_evaluated = 0;
};
Tally CountVerdicts(const std::vector<ClaimOutcome>& claims);
// "5 of 9 reproduced (2 partly, 1 not reproduced, 1 inconclusive)".
std::string TallyLine(const Tally& tally);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_REPRODUCTION_VERDICT_H_

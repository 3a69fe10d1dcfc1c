// A claim's verdict from its checks by the one standard claims.proto states (Claim's comment):
// the central check decides, disagreeing checks read "mixed", paired effects are judged by their
// intervals, matched controls make an effect specific, causes are established by interventions;
// and a paper's tally.
#ifndef ATTNLAB_EXPERIMENTS_REPRODUCTION_VERDICT_H_
#define ATTNLAB_EXPERIMENTS_REPRODUCTION_VERDICT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/reproduction/check.h"
#include "experiments/reproduction/claims.pb.h"

namespace attnlab {

enum class Verdict {
  kReproduced,
  kPartly,
  kMixed,
  kNotSpecific,
  kNotReproduced,
  kNoise,
  kInconclusive,
  kNotEvaluated,
};

// "reproduced", "partly reproduced", "mixed", "not specific", "not reproduced",
// "inconclusive (noise)", "inconclusive", "not evaluated".
std::string VerdictName(Verdict verdict);

enum class CauseStatus { kEstablished, kContributes, kNotEstablished };

// "established", "contributes", "not established".
std::string CauseStatusName(CauseStatus status);

struct CauseOutcome {
  Cause cause;
  // The intervention's central check (unevaluated when the cause has none).
  CheckOutcome intervention;
  bool tested = false;
  // The share of the gap from the claim's value to its bar the intervention closed.
  double closed = 0;
  CauseStatus status = CauseStatus::kNotEstablished;
  std::vector<CheckOutcome> evidence;
};

struct ClaimOutcome {
  Claim claim;
  // The checks in the claims file's order; `central` indexes the deciding one.
  std::vector<CheckOutcome> checks, requirements, controls;
  int central = 0;
  // For a claim not reproduced: its causes.
  std::vector<CauseOutcome> causes;
  Verdict verdict = Verdict::kNotEvaluated;
  // What decided a verdict other than reproduced: the failed precondition, the checks that held
  // and those contradicted (mixed), the control that gives the effect too (not specific), the
  // central check's straddling interval (noise), why a number is missing (not evaluated).
  std::string reason;
};

// InvalidArgument "claim ID: <field>: ..." for a problem of the claims file (no check, not
// exactly one central check, an intervention without a claim to compare with).
absl::StatusOr<ClaimOutcome> JudgeClaim(const Claim& claim, const RunOutcomes& runs);

struct Tally {
  int claims = 0, reproduced = 0, partly = 0, mixed = 0, not_specific = 0, not_reproduced = 0,
      noise = 0, inconclusive = 0, not_evaluated = 0;
};
Tally CountVerdicts(const std::vector<ClaimOutcome>& claims);
// "5 of 14 reproduced (2 partly, 1 mixed, 1 not specific, 4 not reproduced, 1 inconclusive
// (noise))".
std::string TallyLine(const Tally& tally);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_REPRODUCTION_VERDICT_H_

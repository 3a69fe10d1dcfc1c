#include "experiments/reproduction/verdict.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace attnlab {
namespace {

absl::StatusOr<std::vector<CheckOutcome>> EvaluateAll(
    const google::protobuf::RepeatedPtrField<Check>& checks, const RunOutcomes& runs,
    const std::string& claim, const std::string& field) {
  std::vector<CheckOutcome> outcomes;
  for (int i = 0; i < checks.size(); ++i) {
    absl::StatusOr<CheckOutcome> outcome = EvaluateCheck(checks[i], runs);
    if (!outcome.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("claim ", claim, ": ", field, "[", i, "].", outcome.status().message()));
    }
    outcomes.push_back(std::move(*outcome));
  }
  return outcomes;
}

const CheckOutcome* FirstUnevaluated(const std::vector<CheckOutcome>& checks) {
  for (const CheckOutcome& check : checks) {
    if (!check.evaluated()) return &check;
  }
  return nullptr;
}

}  // namespace

std::string VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kReproduced: return "reproduced";
    case Verdict::kPartly: return "partly reproduced";
    case Verdict::kNotReproduced: return "not reproduced";
    case Verdict::kInconclusive: return "inconclusive";
    default: return "not evaluated";
  }
}

absl::StatusOr<ClaimOutcome> JudgeClaim(const Claim& claim, const RunOutcomes& runs) {
  ClaimOutcome out;
  out.claim = claim;
  if (claim.check_size() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("claim ", claim.id(), ": check: list at least one"));
  }
  absl::StatusOr<std::vector<CheckOutcome>> checks =
      EvaluateAll(claim.check(), runs, claim.id(), "check");
  if (!checks.ok()) return checks.status();
  out.checks = std::move(*checks);
  absl::StatusOr<std::vector<CheckOutcome>> requirements =
      EvaluateAll(claim.precondition(), runs, claim.id(), "precondition");
  if (!requirements.ok()) return requirements.status();
  out.requirements = std::move(*requirements);
  // Every cause's evidence is computed (so that a mistake in it is found however the claim
  // turns out); the causes are kept only for a claim that is not reproduced.
  for (int i = 0; i < claim.cause_size(); ++i) {
    CauseOutcome cause;
    cause.cause = claim.cause(i);
    absl::StatusOr<std::vector<CheckOutcome>> evidence = EvaluateAll(
        claim.cause(i).evidence(), runs, claim.id(), absl::StrCat("cause[", i, "].evidence"));
    if (!evidence.ok()) return evidence.status();
    cause.evidence = std::move(*evidence);
    cause.shown =
        !cause.evidence.empty() &&
        std::all_of(cause.evidence.begin(), cause.evidence.end(), [](const CheckOutcome& c) {
          return c.evaluated() && c.level == Level::kReproduced;
        });
    out.causes.push_back(std::move(cause));
  }

  if (const CheckOutcome* missing = FirstUnevaluated(out.requirements)) {
    out.reason = absl::StrCat(missing->name, ": ", missing->error);
    return out;
  }
  if (const CheckOutcome* missing = FirstUnevaluated(out.checks)) {
    out.reason = absl::StrCat(missing->name, ": ", missing->error);
    return out;
  }
  for (const CheckOutcome& requirement : out.requirements) {
    if (requirement.level != Level::kReproduced) {
      out.verdict = Verdict::kInconclusive;
      out.reason = absl::StrCat(requirement.name, " is ", requirement.Number(), ", and the "
                                "comparison needs ", requirement.rule);
      return out;
    }
  }
  const bool all = std::all_of(out.checks.begin(), out.checks.end(), [](const CheckOutcome& c) {
    return c.level == Level::kReproduced;
  });
  const bool some = std::any_of(out.checks.begin(), out.checks.end(), [](const CheckOutcome& c) {
    return c.level == Level::kReproduced;
  });
  const bool each_partly =
      std::all_of(out.checks.begin(), out.checks.end(),
                  [](const CheckOutcome& c) { return c.level != Level::kNot; });
  out.verdict = all ? Verdict::kReproduced
                    : some || each_partly ? Verdict::kPartly : Verdict::kNotReproduced;
  if (out.verdict == Verdict::kReproduced) out.causes.clear();
  return out;
}

Tally CountVerdicts(const std::vector<ClaimOutcome>& claims) {
  Tally tally;
  for (const ClaimOutcome& claim : claims) {
    ++tally.claims;
    switch (claim.verdict) {
      case Verdict::kReproduced: ++tally.reproduced; break;
      case Verdict::kPartly: ++tally.partly; break;
      case Verdict::kNotReproduced: ++tally.not_reproduced; break;
      case Verdict::kInconclusive: ++tally.inconclusive; break;
      default: ++tally.not_evaluated; break;
    }
  }
  return tally;
}

std::string TallyLine(const Tally& tally) {
  std::vector<std::string> rest;
  if (tally.partly) rest.push_back(absl::StrCat(tally.partly, " partly"));
  if (tally.not_reproduced) rest.push_back(absl::StrCat(tally.not_reproduced, " not reproduced"));
  if (tally.inconclusive) rest.push_back(absl::StrCat(tally.inconclusive, " inconclusive"));
  if (tally.not_evaluated) rest.push_back(absl::StrCat(tally.not_evaluated, " not evaluated"));
  return absl::StrCat(tally.reproduced, " of ", tally.claims, " reproduced",
                      rest.empty() ? "" : absl::StrCat(" (", absl::StrJoin(rest, ", "), ")"));
}

}  // namespace attnlab

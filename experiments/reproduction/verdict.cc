#include "experiments/reproduction/verdict.h"

#include <algorithm>
#include <cmath>

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

// Why a check at noise decides nothing: its interval, or a curve's points, straddle the bar.
std::string NoiseReason(const CheckOutcome& check) {
  if (check.points.empty()) return "its interval holds both sides of the bar";
  std::vector<std::string> met;
  for (const CheckOutcome& point : check.points) {
    if (Holds(point.level)) met.push_back(point.name);
  }
  if (met.empty()) return "every point's interval holds both sides of the bar";
  return absl::StrCat("met only at ", absl::StrJoin(met, ", "),
                      "; the other points' intervals hold both sides of the bar");
}

const CheckOutcome* FirstUnevaluated(const std::vector<CheckOutcome>& checks) {
  for (const CheckOutcome& check : checks) {
    if (!check.evaluated()) return &check;
  }
  return nullptr;
}

// The names of the checks whose level passes `keep`; a curve by its points that do, unless all
// do ("C = 100 curve at corr_mm at step 1000, corr_mm at step 4000").
template <typename Keep>
std::vector<std::string> Names(const std::vector<CheckOutcome>& checks, Keep keep) {
  std::vector<std::string> names;
  for (const CheckOutcome& check : checks) {
    if (check.points.empty()) {
      if (keep(check.level)) names.push_back(check.name);
      continue;
    }
    std::vector<std::string> points;
    for (const CheckOutcome& point : check.points) {
      if (keep(point.level)) points.push_back(point.name);
    }
    if (points.size() == check.points.size()) {
      names.push_back(absl::StrCat(check.name, " (every point)"));
    } else if (!points.empty()) {
      names.push_back(absl::StrCat(check.name, " at ", absl::StrJoin(points, ", ")));
    }
  }
  return names;
}

// An intervention against the claim's central check: established when it meets the bar (or
// closes the declared share of the gap), contributes when it moves toward the bar by less.
void JudgeCause(const CheckOutcome& central, CauseOutcome* cause) {
  if (!cause->tested || !cause->intervention.evaluated() || !central.evaluated()) return;
  if (!central.points.empty() || !cause->intervention.points.empty()) {
    // A curve has no one number to close a gap with: established only by meeting the bar.
    if (Holds(cause->intervention.level) && cause->intervention.level != Level::kMixed) {
      cause->status = CauseStatus::kEstablished;
    }
    return;
  }
  const double base = central.Judged(), moved = cause->intervention.Judged();
  const double gap = central.bar - base;
  // A paired effect of one seed has an unbounded interval: no gap to close.
  const bool finite = std::isfinite(base) && std::isfinite(moved);
  cause->closed = gap != 0 && finite ? (moved - base) / gap : 0;
  if (std::abs(cause->closed) < 0.005) cause->closed = 0;  // no move (and no "-0%")
  const Level level = cause->intervention.level;
  if (level == Level::kReproduced || level == Level::kPartly) {
    cause->status = CauseStatus::kEstablished;
  } else if (cause->cause.closes() > 0 && cause->closed >= cause->cause.closes() &&
             level != Level::kNoise) {
    cause->status = CauseStatus::kEstablished;
  } else if (cause->closed > 0 && level != Level::kNoise) {
    cause->status = CauseStatus::kContributes;
  }
}

}  // namespace

std::string VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kReproduced: return "reproduced";
    case Verdict::kPartly: return "partly reproduced";
    case Verdict::kMixed:
      return "mixed";
    case Verdict::kNotSpecific:
      return "not specific";
    case Verdict::kNotReproduced: return "not reproduced";
    case Verdict::kNoise:
      return "inconclusive (noise)";
    case Verdict::kInconclusive: return "inconclusive";
    default: return "not evaluated";
  }
}

std::string CauseStatusName(CauseStatus status) {
  switch (status) {
    case CauseStatus::kEstablished:
      return "established";
    case CauseStatus::kContributes:
      return "contributes";
    default:
      return "not established";
  }
}

absl::StatusOr<ClaimOutcome> JudgeClaim(const Claim& claim, const RunOutcomes& runs) {
  ClaimOutcome out;
  out.claim = claim;
  if (claim.check_size() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("claim ", claim.id(), ": check: list at least one"));
  }
  std::vector<int> central;
  for (int i = 0; i < claim.check_size(); ++i) {
    if (claim.check(i).central()) central.push_back(i);
  }
  if (central.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("claim ", claim.id(),
                     ": check: mark exactly one check `central: true` (the one that "
                     "decides the claim), found ",
                     central.size()));
  }
  out.central = central[0];
  absl::StatusOr<std::vector<CheckOutcome>> checks =
      EvaluateAll(claim.check(), runs, claim.id(), "check");
  if (!checks.ok()) return checks.status();
  out.checks = std::move(*checks);
  absl::StatusOr<std::vector<CheckOutcome>> requirements =
      EvaluateAll(claim.precondition(), runs, claim.id(), "precondition");
  if (!requirements.ok()) return requirements.status();
  out.requirements = std::move(*requirements);
  absl::StatusOr<std::vector<CheckOutcome>> controls =
      EvaluateAll(claim.control(), runs, claim.id(), "control");
  if (!controls.ok()) return controls.status();
  out.controls = std::move(*controls);
  const CheckOutcome& decides = out.checks[out.central];
  // Every cause is computed (so that a mistake in it is found however the claim turns out); the
  // causes are kept only for a claim that is not reproduced.
  for (int i = 0; i < claim.cause_size(); ++i) {
    CauseOutcome cause;
    cause.cause = claim.cause(i);
    const std::string field = absl::StrCat("cause[", i, "]");
    absl::StatusOr<std::vector<CheckOutcome>> evidence =
        EvaluateAll(claim.cause(i).evidence(), runs, claim.id(), field + ".evidence");
    if (!evidence.ok()) return evidence.status();
    cause.evidence = std::move(*evidence);
    if (claim.cause(i).has_intervention()) {
      // Judged by the central check's bars unless it states its own.
      Check judged = claim.cause(i).intervention();
      if (!judged.has_reproduced()) {
        *judged.mutable_reproduced() = claim.check(out.central).reproduced();
        if (claim.check(out.central).has_partly()) {
          *judged.mutable_partly() = claim.check(out.central).partly();
        }
      }
      absl::StatusOr<CheckOutcome> intervention = EvaluateCheck(judged, runs);
      if (!intervention.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "claim ", claim.id(), ": ", field, ".intervention.", intervention.status().message()));
      }
      cause.intervention = std::move(*intervention);
      cause.tested = true;
      JudgeCause(decides, &cause);
    }
    out.causes.push_back(std::move(cause));
  }

  for (const auto* list : {&out.requirements, &out.checks, &out.controls}) {
    if (const CheckOutcome* missing = FirstUnevaluated(*list)) {
      out.reason = absl::StrCat(missing->name, ": ", missing->error);
      return out;
    }
  }
  for (const CheckOutcome& requirement : out.requirements) {
    if (requirement.level != Level::kReproduced) {
      out.verdict = Verdict::kInconclusive;
      out.reason = absl::StrCat(requirement.name, " is ", requirement.Number(), ", and the "
                                "comparison needs ", requirement.rule);
      return out;
    }
  }
  const std::vector<std::string> held = Names(out.checks, Holds);
  const std::vector<std::string> contradicted = Names(out.checks, Contradicts);
  if (!held.empty() && !contradicted.empty()) {
    out.verdict = Verdict::kMixed;
    out.reason = absl::StrCat("held: ", absl::StrJoin(held, "; "),
                              ". Contradicted: ", absl::StrJoin(contradicted, "; "), ".");
  } else if (decides.level == Level::kNoise) {
    out.verdict = Verdict::kNoise;
    out.reason = absl::StrCat(decides.name, ": ", decides.Number(), ": ", NoiseReason(decides),
                              " (", decides.rule, ")");
  } else if (decides.level == Level::kNot) {
    out.verdict = Verdict::kNotReproduced;
  } else {
    const bool all = std::all_of(out.checks.begin(), out.checks.end(), [](const CheckOutcome& c) {
      return c.level == Level::kReproduced || c.level == Level::kNoise;
    });
    out.verdict =
        decides.level == Level::kReproduced && all ? Verdict::kReproduced : Verdict::kPartly;
    const std::vector<std::string> unspecific =
        Names(out.controls, [](Level level) { return level != Level::kReproduced; });
    if (!unspecific.empty()) {
      out.verdict = Verdict::kNotSpecific;
      out.reason = absl::StrCat("against its matched control the effect does not hold: ",
                                absl::StrJoin(unspecific, "; "));
    }
  }
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
      case Verdict::kMixed:
        ++tally.mixed;
        break;
      case Verdict::kNotSpecific:
        ++tally.not_specific;
        break;
      case Verdict::kNotReproduced: ++tally.not_reproduced; break;
      case Verdict::kNoise:
        ++tally.noise;
        break;
      case Verdict::kInconclusive: ++tally.inconclusive; break;
      default: ++tally.not_evaluated; break;
    }
  }
  return tally;
}

std::string TallyLine(const Tally& tally) {
  std::vector<std::string> rest;
  for (const auto& [count, name] :
       {std::pair{tally.partly, "partly"}, std::pair{tally.mixed, "mixed"},
        std::pair{tally.not_specific, "not specific"},
        std::pair{tally.not_reproduced, "not reproduced"},
        std::pair{tally.noise, "inconclusive (noise)"},
        std::pair{tally.inconclusive, "inconclusive"},
        std::pair{tally.not_evaluated, "not evaluated"}}) {
    if (count > 0) rest.push_back(absl::StrCat(count, " ", name));
  }
  return absl::StrCat(tally.reproduced, " of ", tally.claims, " reproduced",
                      rest.empty() ? "" : absl::StrCat(" (", absl::StrJoin(rest, ", "), ")"));
}

}  // namespace attnlab

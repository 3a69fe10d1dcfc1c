#include "experiments/reproduction/claims_runner.h"

#include <cstdio>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "attention/base/files.h"
#include "attention/base/status_macros.h"
#include "experiments/spec/field_path.h"
#include "experiments/spec/first_parse_error.h"
#include "experiments/spec/spec_loader.h"
#include "experiments/spec/sweep.h"
#include "experiments/trials/cluster.h"
#include "google/protobuf/text_format.h"

namespace attnlab {
namespace {

using ParseInfoTree = google::protobuf::TextFormat::ParseInfoTree;

std::vector<int> Lines(const ParseInfoTree& tree, const ClaimsFile& file, const char* field_name) {
  const auto* field = ClaimsFile::descriptor()->FindFieldByName(field_name);
  std::vector<int> lines;
  const int count = file.GetReflection()->FieldSize(file, field);
  for (int i = 0; i < count; ++i) lines.push_back(tree.GetLocation(field, i).line + 1);
  return lines;
}

// Applies "FIELD=VALUE" overrides; an error names the run and the override.
absl::Status Override(ExperimentSpec* spec,
                      const google::protobuf::RepeatedPtrField<std::string>& sets,
                      const std::string& where, const char* field) {
  for (int i = 0; i < sets.size(); ++i) {
    const std::string& assignment = sets[i];
    const size_t eq = assignment.find('=');
    absl::Status status =
        eq == std::string::npos
            ? absl::InvalidArgumentError("expected FIELD=VALUE")
            : SetFieldFromText(spec, assignment.substr(0, eq), assignment.substr(eq + 1));
    if (status.ok())
      status = CheckNotSwept(*spec, assignment.substr(0, eq), assignment.substr(eq + 1));
    if (!status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, field, "[", i, "] '", assignment, "': ", status.message()));
    }
  }
  return absl::OkStatus();
}

// A run's trials as a dry run builds them, each with every metric logged at every logged step
// (value 1): enough for the checks to find what they name before anything trains.
RunOutcome DryRunOutcome(const std::string& name, const ExperimentResult& dry) {
  RunOutcome outcome;
  outcome.name = name;
  outcome.trials = dry.trials;
  for (const Trial& trial : dry.trials) {
    TrialResult result;
    for (int64_t step : LoggedSteps(trial.spec.training())) {
      for (const std::string& metric : dry.metric_names) result.points.push_back({step, metric, 1});
    }
    outcome.results.push_back(std::move(result));
    outcome.errors.emplace_back();
  }
  return outcome;
}

// Each run's trials as a dry run of `specs` builds them (RunClaims' order); a run whose data
// are missing, or that --quick skips, has a status instead.
absl::StatusOr<RunOutcomes> DryRuns(const ClaimsFileText& claims,
                                    const std::vector<ParsedSpec>& specs, bool quick) {
  RunOutcomes dry_runs;
  for (int r = 0; r < claims.file.run_size(); ++r) {
    const ClaimRun& run = claims.file.run(r);
    if (quick && run.quick_skip()) {
      dry_runs[run.name()].status = absl::UnavailableError("skipped by --quick");
      continue;
    }
    RunOptions dry;
    dry.dry_run = true;
    dry.progress = false;
    absl::StatusOr<ExperimentResult> built = RunExperiment(specs[r], dry);
    if (built.ok()) {
      dry_runs[run.name()] = DryRunOutcome(run.name(), *built);
    } else if (absl::IsNotFound(built.status())) {  // data missing: its claims say so later
      dry_runs[run.name()].name = run.name();
      dry_runs[run.name()].status = built.status();
    } else {
      return absl::InvalidArgumentError(absl::StrCat(claims.path, ":", claims.run_line[r], ": run ",
                                                     run.name(), ": ", built.status().message()));
    }
  }
  return dry_runs;
}

// Every check of every claim against the runs' dry runs: a misnamed run, axis, label, metric
// or step is found before hours of training, not after.
absl::Status CheckClaimsAgainst(const ClaimsFileText& claims, const RunOutcomes& dry_runs) {
  for (int c = 0; c < claims.file.claim_size(); ++c) {
    absl::StatusOr<ClaimOutcome> judged = JudgeClaim(claims.file.claim(c), dry_runs);
    if (!judged.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(claims.path, ":", claims.claim_line[c], ": ", judged.status().message()));
    }
  }
  return absl::OkStatus();
}

// The runs that the claims `ids` (every claim when empty) read: their checks, controls and
// preconditions with their baselines, and with `causes` their causes' interventions and
// evidence. --quick runs only what
// verdicts read, as its verdicts are all it reports.
std::set<std::string> RunsRead(const ClaimsFile& file, const std::set<std::string>& ids,
                               bool causes) {
  std::set<std::string> runs;
  auto add = [&runs](const Check& check) {
    runs.insert(check.run());
    const Baseline& baseline = check.has_minus() ? check.minus() : check.over_paired();
    if (!baseline.run().empty()) runs.insert(baseline.run());
  };
  for (const Claim& claim : file.claim()) {
    if (!ids.empty() && ids.count(claim.id()) == 0) continue;
    for (const Check& check : claim.check()) add(check);
    for (const Check& check : claim.precondition()) add(check);
    for (const Check& check : claim.control()) add(check);
    if (!causes) continue;
    for (const Cause& cause : claim.cause()) {
      if (cause.has_intervention()) add(cause.intervention());
      for (const Check& check : cause.evidence()) add(check);
    }
  }
  return runs;
}

// Run `r`'s spec with its overrides (and its quick ones with `quick`); an error names the
// claims file, line and run.
absl::StatusOr<ParsedSpec> ReadRunSpec(const ClaimsFileText& claims, int r, bool quick) {
  const ClaimRun& run = claims.file.run(r);
  const std::string where =
      absl::StrCat(claims.path, ":", claims.run_line[r], ": run ", run.name(), ": ");
  const std::string spec_path =
      run.spec()[0] == '/' ? run.spec() : DirectoryOf(claims.path) + "/" + run.spec();
  absl::StatusOr<ParsedSpec> parsed = ReadSpecFile(spec_path);
  if (!parsed.ok())
    return absl::InvalidArgumentError(absl::StrCat(where, parsed.status().message()));
  RETURN_IF_ERROR(Override(&parsed->spec, run.set(), where, "set"));
  if (quick) RETURN_IF_ERROR(Override(&parsed->spec, run.quick_set(), where, "quick_set"));
  return parsed;
}

// What CLAIMS.md's spec column shows: 12 hex digits of the result-determining spec's hash.
std::string SpecHash(const ExperimentSpec& spec) {
  return absl::StrFormat("%012x",
                         Fnv1a(PrintSpec(ResultDeterminingSpec(spec))) & 0xffffffffffffull);
}

// The store a run's spec names (its name when it names none, else the run's name).
std::string StoreName(const ExperimentSpec& spec, const std::string& run) {
  return !spec.store().empty() ? spec.store() : !spec.name().empty() ? spec.name() : run;
}

}  // namespace

absl::StatusOr<std::map<std::string, std::string>> RunSpecHashes(const ClaimsFileText& claims) {
  std::map<std::string, std::string> hashes;
  for (int r = 0; r < claims.file.run_size(); ++r) {
    absl::StatusOr<ParsedSpec> parsed = ReadRunSpec(claims, r, /*quick=*/false);
    if (!parsed.ok()) return parsed.status();
    hashes[claims.file.run(r).name()] = SpecHash(parsed->spec);
  }
  return hashes;
}

absl::StatusOr<ClaimsFileText> ReadClaimsFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot read claims file (", text.status().message(), ")"));
  }
  ClaimsFileText out;
  out.path = path;
  ParseInfoTree tree;
  google::protobuf::TextFormat::Parser parser;
  FirstParseError errors;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(&tree);
  if (!parser.ParseFromString(*text, &out.file)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ":", errors.line(), ":", errors.column(), ": ", errors.message()));
  }
  out.claim_line = Lines(tree, out.file, "claim");
  out.run_line = Lines(tree, out.file, "run");
  if (out.file.number() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ":1: number: the paper's number (>= 1) is missing"));
  }
  std::set<std::string> names;
  for (int r = 0; r < out.file.run_size(); ++r) {
    const ClaimRun& run = out.file.run(r);
    const std::string where = absl::StrCat(path, ":", out.run_line[r], ": run ", run.name(), ": ");
    if (run.name().empty()) return absl::InvalidArgumentError(where + "name: missing");
    if (run.spec().empty()) return absl::InvalidArgumentError(where + "spec: missing");
    if (!names.insert(run.name()).second) {
      return absl::InvalidArgumentError(where + "name: another run has this name");
    }
  }
  std::set<std::string> ids;
  for (int c = 0; c < out.file.claim_size(); ++c) {
    const Claim& claim = out.file.claim(c);
    const std::string where =
        absl::StrCat(path, ":", out.claim_line[c], ": claim ", claim.id(), ": ");
    if (claim.id().empty()) return absl::InvalidArgumentError(where + "id: missing");
    if (claim.words().empty()) return absl::InvalidArgumentError(where + "words: missing");
    if (!ids.insert(claim.id()).second) {
      return absl::InvalidArgumentError(where + "id: another claim has this id");
    }
  }
  return out;
}

absl::StatusOr<PaperOutcome> RunClaims(const ClaimsFileText& claims, const ClaimsOptions& options) {
  PaperOutcome paper;
  paper.claims = claims;
  paper.code = options.code;
  paper.quick = options.quick;
  const ClaimsFile& file = claims.file;
  // Every run's spec with its overrides, dry-run first: the specs build and the checks find
  // what they name. The checks are held to the full-length runs (a shortened run may lack a
  // width or a length that a claim reads: that claim is not evaluated under --quick).
  std::vector<ParsedSpec> specs;
  for (int r = 0; r < file.run_size(); ++r) {
    absl::StatusOr<ParsedSpec> parsed = ReadRunSpec(claims, r, options.quick);
    if (!parsed.ok()) return parsed.status();
    specs.push_back(std::move(*parsed));
  }
  absl::StatusOr<RunOutcomes> dry_runs = DryRuns(claims, specs, options.quick);
  if (!dry_runs.ok()) return dry_runs.status();
  // The runs whose data are missing on this machine (their specs as they will run).
  std::map<std::string, absl::Status> missing_data;
  for (const auto& [name, dry_run] : *dry_runs) {
    if (absl::IsNotFound(dry_run.status)) missing_data[name] = dry_run.status;
  }
  if (options.quick) {
    std::vector<ParsedSpec> full;
    for (int r = 0; r < file.run_size(); ++r) {
      absl::StatusOr<ParsedSpec> parsed = ReadRunSpec(claims, r, /*quick=*/false);
      if (!parsed.ok()) return parsed.status();
      full.push_back(std::move(*parsed));
    }
    dry_runs = DryRuns(claims, full, /*quick=*/false);
    if (!dry_runs.ok()) return dry_runs.status();
  }
  RETURN_IF_ERROR(CheckClaimsAgainst(claims, *dry_runs));

  // What runs: every run; with --claim what the claims asked for read; with --quick only what
  // verdicts read. They run as one sweep, so that every thread and rank stays busy while any
  // run has trials left.
  const bool subset = options.quick || !options.claims.empty();
  const std::set<std::string> needed = RunsRead(file, options.claims, /*causes=*/!options.quick);
  const bool root = options.cluster == nullptr || options.cluster->root();
  std::vector<ExperimentRun> runs;
  for (int r = 0; r < file.run_size(); ++r) {
    const ClaimRun& run = file.run(r);
    const ParsedSpec& parsed = specs[r];
    RunOutcome& outcome = paper.runs[run.name()];
    outcome.name = run.name();
    if (options.quick && run.quick_skip()) {
      outcome.status =
          absl::UnavailableError("skipped by --quick (its data are not in the repository)");
      continue;
    }
    if (subset && needed.count(run.name()) == 0) {
      outcome.status = absl::UnavailableError(
          options.claims.empty() ? "skipped by --quick (only causes read it)"
                                 : "skipped by --claim (no claim asked for reads it)");
      continue;
    }
    outcome.spec_hash = SpecHash(parsed.spec);
    if (auto missing = missing_data.find(run.name()); missing != missing_data.end()) {
      outcome.status = missing->second;
      if (options.progress && root) {
        std::fprintf(stderr, "claims: run %s not run: %s\n", run.name().c_str(),
                     std::string(missing->second.message()).c_str());
      }
      continue;
    }
    ExperimentRun experiment;
    experiment.parsed = &parsed;
    RunOptions& run_options = experiment.options;
    // Runs of one spec's store share it (a trial two runs read trains once).
    run_options.out_dir = absl::StrCat(options.out_dir, options.quick ? "/quick/" : "/",
                                       StoreName(parsed.spec, run.name()));
    run_options.threads = options.threads;
    run_options.progress = options.progress;
    run_options.code = options.code;
    run_options.reuse = options.reuse;
    run_options.stop = options.stop;
    run_options.cluster = options.cluster;
    experiment.where =
        absl::StrCat(claims.path, ":", claims.run_line[r], ": run ", run.name(), ": ");
    experiment.title = absl::StrCat("claims: paper ", file.number(), ", run ", run.name(), " (",
                                    parsed.locator->file(), ")");
    // The store's summary.csv is the last run's: each run's is kept beside it.
    experiment.summary_copy = absl::StrCat("summary.", run.name(), ".csv");
    experiment.name = run.name();
    runs.push_back(std::move(experiment));
  }
  absl::StatusOr<std::vector<ExperimentResult>> results = RunExperiments(runs);
  // Every rank acts on rank 0's outcome, which has heard every rank's.
  RETURN_IF_ERROR(ShareRootStatus(options.cluster, results.status()));
  if (!root) return paper;  // rank 0 has every trial's result
  for (size_t r = 0; r < runs.size(); ++r) {
    RunOutcome& outcome = paper.runs[runs[r].name];
    outcome.trials = std::move((*results)[r].trials);
    outcome.results = std::move((*results)[r].results);
    outcome.errors = std::move((*results)[r].errors);
  }
  for (int c = 0; c < file.claim_size(); ++c) {
    if (!options.claims.empty() && options.claims.count(file.claim(c).id()) == 0) continue;
    absl::StatusOr<ClaimOutcome> outcome = JudgeClaim(file.claim(c), paper.runs);
    if (!outcome.ok() && options.quick) {  // the full-length runs have what it reads
      ClaimOutcome shortened;
      shortened.claim = file.claim(c);
      shortened.reason =
          absl::StrCat("the shortened runs lack what it reads (", outcome.status().message(), ")");
      paper.outcomes.push_back(std::move(shortened));
      continue;
    }
    if (!outcome.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(claims.path, ":", claims.claim_line[c], ": ", outcome.status().message()));
    }
    paper.outcomes.push_back(std::move(*outcome));
  }
  return paper;
}

}  // namespace attnlab

#include "experiments/reproduction/claims_report.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "experiments/store/program.h"

namespace attnlab {
namespace {

std::string Cell(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"|", "\\|"}, {"\n", " "}});
}

std::string CsvField(const std::string& field) {
  if (field.find_first_of(",\"\n") == std::string::npos) return field;
  return absl::StrCat("\"", absl::StrReplaceAll(field, {{"\"", "\"\""}}), "\"");
}

std::string Met(const CheckOutcome& check) {
  if (!check.evaluated()) return "not computed";
  switch (check.level) {
    case Level::kReproduced:
      return "met";
    case Level::kPartly:
      return "partly met";
    case Level::kNoise:
      return "noise";
    case Level::kMixed:
      return "mixed";
    default:
      return "not met";
  }
}

// "corr at 200: 0.9925 (least of 6; ...), needs > 0.99 (our bar): **met**".
std::string CheckLine(const CheckOutcome& check, bool markdown = true) {
  if (!check.evaluated()) return absl::StrCat(check.name, ": not computed (", check.error, ")");
  const char* bold = markdown ? "**" : "";
  return absl::StrCat(check.name, ": ", check.Number(), ", needs ", check.rule, ": ", bold,
                      Met(check), bold);
}

std::string CauseKind(Cause::Kind kind) {
  switch (kind) {
    case Cause::READING:
      return "our reading";
    case Cause::CONFIGURATION:
      return "our configuration";
    case Cause::SCALE:
      return "our scale";
    case Cause::DATA:
      return "our data";
    default:
      return "cause";
  }
}

// A cause's standing, from its intervention's numbers: "established: <intervention line>,
// closing 85% of the gap" or "not established (no run tests it)".
std::string CauseStanding(const CauseOutcome& cause, bool markdown) {
  if (!cause.tested) return "not established (no run tests it)";
  if (!cause.intervention.evaluated()) {
    return absl::StrCat("not established (", CheckLine(cause.intervention, markdown), ")");
  }
  return absl::StrCat(
      CauseStatusName(cause.status), ": intervention ", CheckLine(cause.intervention, markdown),
      cause.intervention.points.empty()
          ? (cause.closed >= 0
                 ? absl::StrFormat(", closing %.0f%% of the gap to the bar", 100 * cause.closed)
                 : absl::StrFormat(", widening the gap to the bar by %.0f%%", -100 * cause.closed))
          : "",
      cause.cause.closes() > 0
          ? absl::StrFormat(" (established at %.0f%%)", 100 * cause.cause.closes())
          : "");
}

// Why a claim is not reproduced: what decided it (the checks that disagree, the control, the
// interval, the precondition), then its causes, each with the intervention that tests it and
// the evidence beside it. `markdown`: CLAIMS.md's cell; else indented lines for stdout.
std::string Why(const ClaimOutcome& claim, bool markdown) {
  if (claim.verdict == Verdict::kReproduced) return "";
  if (claim.verdict == Verdict::kNotEvaluated) return claim.reason;
  std::vector<std::string> parts;
  if (!claim.reason.empty()) parts.push_back(claim.reason);
  const char* bold = markdown ? "**" : "";
  for (const CauseOutcome& cause : claim.causes) {
    std::vector<std::string> evidence;
    for (const CheckOutcome& check : cause.evidence) evidence.push_back(CheckLine(check, markdown));
    parts.push_back(absl::StrCat(
        bold, CauseKind(cause.cause.kind()), bold, ": ", cause.cause.text(), " (",
        CauseStanding(cause, markdown), ")",
        evidence.empty() ? "" : absl::StrCat(" Beside it: ", absl::StrJoin(evidence, "; "))));
  }
  if (claim.causes.empty() && claim.verdict != Verdict::kInconclusive) {
    parts.push_back("cause: none proposed");
  }
  return absl::StrJoin(parts, markdown ? "<br>" : "\n    ");
}

std::set<std::string> Union(const ClaimOutcome& claim, std::set<std::string> CheckOutcome::*field) {
  std::set<std::string> all;
  for (const auto* list : {&claim.checks, &claim.requirements, &claim.controls}) {
    for (const CheckOutcome& check : *list) {
      all.insert((check.*field).begin(), (check.*field).end());
      for (const CheckOutcome& point : check.points) {
        all.insert((point.*field).begin(), (point.*field).end());
      }
    }
  }
  return all;
}

// Our setup, and each way it departs from the paper's.
std::string SetupText(const Claim& claim) {
  if (claim.deviation().empty()) return claim.setup();
  return absl::StrCat(claim.setup(), claim.setup().empty() ? "" : " ",
                      "Deviations from the paper: ", absl::StrJoin(claim.deviation(), "; "), ".");
}

// The plugin folders the paper's trials ran (their code's plugins).
std::set<std::string> PluginsRun(const PaperOutcome& paper) {
  std::set<std::string> folders;
  for (const auto& [name, run] : paper.runs) {
    for (const Trial& trial : run.trials) {
      for (const auto& [folder, hash] : trial.code.plugins) folders.insert(folder);
    }
  }
  return folders;
}

// claims.csv's line for `check` (as `part` of `claim`), and one per point of a curve.
void AppendCsvRows(int paper, const ClaimOutcome& claim, const std::string& part,
                   const CheckOutcome& check, std::string* csv) {
  absl::StrAppend(
      csv, paper, ",", CsvField(claim.claim.id()), ",", VerdictName(claim.verdict), ",",
      CsvField(part), ",", CsvField(check.name), ",",
      check.evaluated() && check.points.empty()
          ? absl::StrFormat("%.17g,%.17g,%.17g,%.17g,%.17g,%d,", check.value, check.mean,
                            check.stddev, check.min, check.max, check.trials)
          : ",,,,,,",
      check.paired && check.evaluated() ? absl::StrFormat("%.17g,%.17g", check.low, check.high)
                                        : ",",
      ",", CsvField(check.rule), ",", Met(check), ",", absl::StrJoin(check.commits, " "), ",",
      absl::StrJoin(check.specs, " "), "\n");
  for (const CheckOutcome& point : check.points) {
    AppendCsvRows(paper, claim, part + ": curve point", point, csv);
  }
}

// CLAIMS.md's first comment: the program its trials ran (ProgramKey) and the plugins it covers.
constexpr char kTrialProgramMark[] = "<!-- trial program: ";
// The mark before programs, whose key also counts the CPU and products CLAIMS.md names.
constexpr char kTrialCodeMark[] = "<!-- trial code: ";

// "CPU (products ...): N trials; ..." for the CPUs the paper's finished trials ran on (each
// trial once, however many runs read it).
std::string CpusRun(const PaperOutcome& paper) {
  std::map<std::string, std::set<std::string>> trials_on;
  for (const auto& [name, run] : paper.runs) {
    for (size_t i = 0; i < run.results.size() && i < run.trials.size(); ++i) {
      if (run.results[i].has_value()) {
        trials_on[DescribeCpu(run.results[i]->code)].insert(run.trials[i].id);
      }
    }
  }
  std::vector<std::string> cpus;
  for (const auto& [cpu, ids] : trials_on) {
    cpus.push_back(absl::StrCat(cpu, ": ", ids.size(), ids.size() == 1 ? " trial" : " trials"));
  }
  return absl::StrJoin(cpus, "; ");
}

}  // namespace

std::string ClaimsMarkdown(const PaperOutcome& paper, absl::string_view rerun_flags) {
  const ClaimsFile& file = paper.claims.file;
  const std::set<std::string> plugins = PluginsRun(paper);
  const CodeVersion trial_code = paper.code.ForPlugins(plugins);
  const std::string cpus = CpusRun(paper);
  std::string md = absl::StrCat("# Paper ", file.number(), " claims: ", file.paper(), "\n\n");
  absl::StrAppend(&md, kTrialProgramMark, ProgramKey(trial_code),
                  "; plugins: ", absl::StrJoin(plugins, " "), " -->\n");
  absl::StrAppend(
      &md, "Generated by `tools/bazel run //experiments:claims -- ", rerun_flags,
      "` from `claims.textproto` and the runs it names, by trial ", DescribeProgram(trial_code),
      cpus.empty() ? "" : absl::StrCat("; its trials ran on ", cpus),
      ". Do not edit: rerun the command.\n\n",
      "Verdicts follow one standard (README, \"Reproducing the papers\"): the central check "
      "decides; checks that disagree read \"mixed\"; an effect paired by seed is judged by its "
      "95% t-interval, and one that straddles its bar is \"inconclusive (noise)\"; an effect "
      "that its matched control gives too is \"not specific\"; a cause is established only by "
      "an intervention run. Each bar says whose it is (ours or the paper's).\n\n");
  absl::StrAppend(&md, "**", TallyLine(CountVerdicts(paper.outcomes)), ".**\n\n");
  md +=
      "| claim | our setup | our number | verdict | why, for a claim not reproduced | commit | "
      "spec |\n";
  md += "|---|---|---|---|---|---|---|\n";
  for (const ClaimOutcome& claim : paper.outcomes) {
    std::vector<std::string> numbers;
    for (size_t i = 0; i < claim.checks.size(); ++i) {
      numbers.push_back(absl::StrCat(static_cast<int>(i) == claim.central ? "central: " : "",
                                     CheckLine(claim.checks[i])));
    }
    for (const CheckOutcome& check : claim.controls) {
      numbers.push_back(absl::StrCat("against its matched control: ", CheckLine(check)));
    }
    for (const CheckOutcome& check : claim.requirements) {
      numbers.push_back(absl::StrCat("precondition: ", CheckLine(check)));
    }
    absl::StrAppend(
        &md, "| **", Cell(claim.claim.id()), "** ", Cell(claim.claim.words()),
        claim.claim.source().empty() ? "" : absl::StrCat(" (", Cell(claim.claim.source()), ")"),
        " | ", Cell(SetupText(claim.claim)), " | ", Cell(absl::StrJoin(numbers, "<br>")), " | **",
        VerdictName(claim.verdict), "** | ", Cell(Why(claim, /*markdown=*/true)), " | ",
        absl::StrJoin(Union(claim, &CheckOutcome::commits), " "), " | ",
        absl::StrJoin(Union(claim, &CheckOutcome::specs), " "), " |\n");
  }
  return md;
}

std::string ClaimsCsv(const PaperOutcome& paper) {
  std::string csv =
      "paper,claim,verdict,part,name,value,mean,sd,min,max,trials,low,high,rule,met,commits,"
      "specs\n";
  for (const ClaimOutcome& claim : paper.outcomes) {
    auto row = [&](const std::string& part, const CheckOutcome& check) {
      AppendCsvRows(paper.claims.file.number(), claim, part, check, &csv);
    };
    for (size_t i = 0; i < claim.checks.size(); ++i) {
      row(static_cast<int>(i) == claim.central ? "central check" : "check", claim.checks[i]);
    }
    for (const CheckOutcome& check : claim.controls) row("control", check);
    for (const CheckOutcome& check : claim.requirements) row("precondition", check);
    for (const CauseOutcome& cause : claim.causes) {
      const std::string kind = CauseKind(cause.cause.kind());
      if (cause.tested) {
        row(absl::StrCat("cause (", kind, ", ", CauseStatusName(cause.status), "): intervention"),
            cause.intervention);
      }
      for (const CheckOutcome& check : cause.evidence) {
        row(absl::StrCat("cause (", kind, "): evidence"), check);
      }
    }
  }
  return csv;
}

std::string QuickVerdictsCsv(const PaperOutcome& paper) {
  std::string csv = "claim,verdict\n";
  for (const ClaimOutcome& claim : paper.outcomes) {
    absl::StrAppend(&csv, CsvField(claim.claim.id()), ",", VerdictName(claim.verdict), "\n");
  }
  return csv;
}

std::vector<std::string> QuickVerdictChanges(const PaperOutcome& paper,
                                             absl::string_view expected) {
  std::map<std::string, std::string> want;
  bool header = true;
  for (absl::string_view line : absl::StrSplit(expected, '\n', absl::SkipEmpty())) {
    if (header) {
      header = false;
      continue;
    }
    const std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(line, absl::MaxSplits(',', 1));
    want[std::string(kv.first)] = std::string(kv.second);
  }
  std::vector<std::string> changes;
  for (const ClaimOutcome& claim : paper.outcomes) {
    const std::string got = VerdictName(claim.verdict);
    auto it = want.find(claim.claim.id());
    if (it == want.end()) {
      changes.push_back(
          absl::StrCat(claim.claim.id(), ": not in the committed quick verdicts (got ", got, ")"));
      continue;
    }
    if (it->second != got) {
      changes.push_back(
          absl::StrCat(claim.claim.id(), ": expected ", it->second, ", got ", got,
                       claim.reason.empty() ? "" : absl::StrCat(" (", claim.reason, ")")));
    }
    want.erase(it);
  }
  for (const auto& [id, verdict] : want) {
    changes.push_back(
        absl::StrCat(id, ": in the committed quick verdicts (", verdict, ") but not a claim"));
  }
  return changes;
}

namespace {

// The fields of one CSV line (quoted fields may hold commas and doubled quotes).
std::vector<std::string> CsvFields(absl::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// claims.csv's columns of commits and spec hashes (ClaimsCsv).
constexpr int kCommitsField = 15, kSpecsField = 16;

constexpr char kStatusBegin[] = "<!-- claims status -->";
constexpr char kStatusEnd[] = "<!-- end claims status -->";

Verdict VerdictNamed(absl::string_view name) {
  for (Verdict v : {Verdict::kReproduced, Verdict::kPartly, Verdict::kMixed, Verdict::kNotSpecific,
                    Verdict::kNotReproduced, Verdict::kNoise, Verdict::kInconclusive}) {
    if (VerdictName(v) == name) return v;
  }
  return Verdict::kNotEvaluated;
}

// One outcome per claim of a CSV whose claim id and verdict are the fields `id_field` and
// `id_field + 1` (claims.csv repeats a claim on each of its checks' lines), and the commits
// of its `commit_field` (-1: none).
std::vector<ClaimOutcome> CsvVerdicts(absl::string_view csv, size_t id_field, int commit_field,
                                      std::set<std::string>* commits) {
  std::vector<ClaimOutcome> outcomes;
  std::string last_id;
  bool header = true;
  for (absl::string_view line : absl::StrSplit(csv, '\n', absl::SkipEmpty())) {
    const std::vector<std::string> fields = CsvFields(line);
    if (header || fields.size() < std::max<size_t>(id_field + 2, commit_field + 1)) {
      header = false;
      continue;
    }
    if (commit_field >= 0) {
      for (absl::string_view commit :
           absl::StrSplit(fields[commit_field], ' ', absl::SkipEmpty())) {
        commits->insert(std::string(commit));
      }
    }
    if (!outcomes.empty() && last_id == fields[id_field]) continue;
    last_id = fields[id_field];
    outcomes.emplace_back().verdict = VerdictNamed(fields[id_field + 1]);
  }
  return outcomes;
}

// The runs of claims.csv's spec column ("run:hash" words) whose hash is not `current`'s for
// the run: their trials came from another spec than the repository's.
std::set<std::string> ChangedRuns(absl::string_view csv,
                                  const std::map<std::string, std::string>& current) {
  std::set<std::string> changed;
  bool header = true;
  for (absl::string_view line : absl::StrSplit(csv, '\n', absl::SkipEmpty())) {
    const std::vector<std::string> fields = CsvFields(line);
    if (header || fields.size() <= kSpecsField) {
      header = false;
      continue;
    }
    for (absl::string_view word : absl::StrSplit(fields[kSpecsField], ' ', absl::SkipEmpty())) {
      const std::pair<std::string, std::string> run_hash = absl::StrSplit(word, ':');
      const auto now = current.find(run_hash.first);
      if (now != current.end() && now->second != run_hash.second) changed.insert(run_hash.first);
    }
  }
  return changed;
}

// Whether CLAIMS.md's mark (ClaimsMarkdown) names the program `current` runs for the same
// plugins: the core and each plugin the trials ran unchanged, built alike (on any CPU).
bool SameTrialCode(const std::string& claims_md, const CodeVersion& current) {
  for (const char* kind : {kTrialProgramMark, kTrialCodeMark}) {
    const size_t at = claims_md.find(kind);
    if (at == std::string::npos) continue;
    const size_t begin = at + std::strlen(kind);
    const std::string mark = claims_md.substr(begin, claims_md.find(" -->", begin) - begin);
    const std::pair<std::string, std::string> key_plugins =
        absl::StrSplit(mark, absl::MaxSplits("; plugins: ", 1));
    const std::set<std::string> plugins =
        absl::StrSplit(key_plugins.second, ' ', absl::SkipEmpty());
    CodeVersion code = current.ForPlugins(plugins);
    if (kind == kTrialProgramMark) return ProgramKey(code) == key_plugins.first;
    // The older mark: this program on the CPU and products its text names ("by trial code KEY
    // (commit ..., flags, CPU, products P).").
    const size_t described = claims_md.find("by trial code ");
    if (described == std::string::npos) return false;
    const size_t open = claims_md.find(" (", described), close = claims_md.find(").", described);
    if (open == std::string::npos || close == std::string::npos || close < open) return false;
    const std::vector<std::string> fields =
        absl::StrSplit(claims_md.substr(open + 2, close - open - 2), ", ");
    if (fields.size() < 2 || !absl::StartsWith(fields.back(), "products ")) return false;
    code.machine = fields[fields.size() - 2];
    code.products = fields.back().substr(std::strlen("products "));
    return code.Key() == key_plugins.first;
  }
  return false;
}

}  // namespace

std::string ReadmeStatusTable(const std::vector<PaperTally>& papers, const CodeVersion& current) {
  std::string table =
      "| paper | claims | reproduced | partly | mixed | not specific | not reproduced | "
      "inconclusive (noise) | inconclusive | not evaluated | table | code |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const PaperTally& paper : papers) {
    std::set<std::string> commits;
    const std::vector<ClaimOutcome> full =
        CsvVerdicts(paper.claims_csv, 1, kCommitsField, &commits);
    const std::vector<ClaimOutcome> quick = CsvVerdicts(paper.quick_csv, 0, -1, nullptr);
    std::string kind = "full length", link = paper.claims_md;
    const std::vector<ClaimOutcome>* shown = &full;
    if (full.empty()) {
      shown = &quick;
      kind = quick.empty() ? "not run yet" : "shortened runs only (`--quick`)";
      link = absl::StrCat(paper.claims_md.substr(0, paper.claims_md.rfind('/') + 1),
                          "claims_quick.csv");
    }
    const Tally t = CountVerdicts(*shown);
    std::string code = absl::StrJoin(commits, " ");
    if (!full.empty() && !SameTrialCode(paper.claims_md_text, current)) {
      absl::StrAppend(&code, "; older trial code than this build's (`--paper=", paper.number,
                      "` reruns its trials)");
    }
    const std::set<std::string> changed = ChangedRuns(paper.claims_csv, paper.spec_hashes);
    if (!changed.empty()) {
      absl::StrAppend(&code, "; specs changed since (", absl::StrJoin(changed, ", "),
                      ": `--paper=", paper.number, "` reruns them)");
    }
    absl::StrAppend(&table, "| ", paper.number, ". ", Cell(paper.paper), " | ", t.claims, " (",
                    kind, ") | ", t.reproduced, " | ", t.partly, " | ", t.mixed, " | ",
                    t.not_specific, " | ", t.not_reproduced, " | ", t.noise, " | ", t.inconclusive,
                    " | ", t.not_evaluated, " | [", link, "](", link, ") | ", code, " |\n");
  }
  return table;
}

absl::StatusOr<std::string> ReplaceStatusTable(absl::string_view readme, absl::string_view table) {
  const size_t begin = readme.find(kStatusBegin), end = readme.find(kStatusEnd);
  if (begin == absl::string_view::npos || end == absl::string_view::npos || end < begin) {
    return absl::InvalidArgumentError(absl::StrCat("no '", kStatusBegin, "' ... '", kStatusEnd,
                                                   "' lines to put the status table between"));
  }
  const size_t after_begin = readme.find('\n', begin) + 1;
  return absl::StrCat(readme.substr(0, after_begin), table, readme.substr(end));
}

std::string ClaimsSummary(const PaperOutcome& paper) {
  const ClaimsFile& file = paper.claims.file;
  std::string text =
      absl::StrCat("Paper ", file.number(), " (", file.paper(), ")", paper.quick ? ", quick" : "",
                   ": ", TallyLine(CountVerdicts(paper.outcomes)), "\n");
  size_t width = 0;
  for (const ClaimOutcome& claim : paper.outcomes) width = std::max(width, claim.claim.id().size());
  for (const ClaimOutcome& claim : paper.outcomes) {
    absl::StrAppend(&text, absl::StrFormat("  %-*s  %-20s", width, claim.claim.id(),
                                           VerdictName(claim.verdict)));
    std::vector<std::string> numbers;
    for (const CheckOutcome& check : claim.checks) {
      numbers.push_back(absl::StrCat(check.name, " ", check.evaluated() ? check.Number() : "n/a"));
    }
    absl::StrAppend(&text, "  ", absl::StrJoin(numbers, "; "), "\n");
    if (const std::string why = Why(claim, /*markdown=*/false); !why.empty()) {
      absl::StrAppend(&text, "    ", why, "\n");
    }
  }
  return text;
}

}  // namespace attnlab

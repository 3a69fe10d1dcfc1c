// tools/bazel run //experiments:claims [-- --paper=N] [-- --quick]: every paper's claims
// judged from runs of this code. Writes CLAIMS.md and claims.csv (with --quick:
// claims_quick.csv) beside each claims file, prints each paper's tally and rewrites README's
// status table (alone with --status_only). --claim=ID judges one claim and writes nothing.
// The repository's papers are the folders experiments/*/ with a claims.textproto;
// --claims=FILE,... judges a researcher's own files instead (paths from where the command was
// typed) and leaves README alone.
//
// Exit status: 0 done (claims whose data are not on this machine are "not evaluated"); 1 a
// trial failed, results could not be written, or --check_quick found a changed verdict;
// 2 bad flags or claims file, or a store of other code's results under --reuse=same;
// 130 interrupted.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "attention/base/files.h"
#include "experiments/command_line.h"
#include "experiments/reproduction/claims_files.h"
#include "experiments/reproduction/claims_report.h"
#include "experiments/reproduction/claims_runner.h"
#include "experiments/store/this_build.h"
#include "experiments/trials/cluster.h"
#include "experiments/trials/crash_stack.h"
#include "experiments/trials/interrupt.h"
#include "experiments/trials/product_setup.h"
#include "experiments/user_paths.h"

ABSL_FLAG(std::string, claims, "",
          "Comma-separated claims files of your own (paths relative to where you typed the "
          "command), judged instead of the repository's papers (every "
          "experiments/<folder>/claims.textproto); README's status table is left alone.");
ABSL_FLAG(int, paper, 0, "Only the claims file of this paper number (0: all).");
ABSL_FLAG(std::string, claim, "",
          "Comma-separated claim ids (3c,3d): judge only these, running only the runs they read, "
          "and print them; writes no file (CLAIMS.md, claims.csv and README's table hold every "
          "claim).");
ABSL_FLAG(bool, quick, false,
          "Shortened runs on small data (each run's quick_set), in minutes, of the runs that "
          "verdicts read (causes are not judged): writes "
          "claims_quick.csv instead of CLAIMS.md and claims.csv.");
ABSL_FLAG(bool, check_quick, false,
          "With --quick: compare the verdicts with the committed claims_quick.csv and exit 1 "
          "when one changed.");
ABSL_FLAG(bool, write, true, "Write the outputs beside each claims file.");
ABSL_FLAG(bool, status_only, false,
          "Run nothing: only rewrite README's status table from each paper's claims.csv and "
          "CLAIMS.md against this build and the specs as they stand (after editing a spec).");
ABSL_FLAG(std::string, out, "attnlab_results/claims",
          "Where the runs' results stores live (a relative path resolves against the directory "
          "`bazel run` was started from).");
ABSL_FLAG(int, threads, 0, "Thread budget (0: every core).");
ABSL_FLAG(std::string, reuse, "rerun",
          "A finished trial that other code ran: rerun (default; the old result moves to the "
          "store's superseded/), same (refuse), any (take it as it is), any-cpu (take it when only "
          "the CPU differs: this program run on another machine, which CLAIMS.md names; rerun "
          "the rest).");

namespace attnlab {
namespace {

// README's status table, from every paper's claims.csv and CLAIMS.md as they now stand and its
// runs' spec hashes (`files`, one per tally): 0, or 1 when a spec could not be read or README
// could not be read or written. Only this needs every paper's specs: a broken spec of one paper
// does not stop another's runs.
int WriteReadmeStatus(const std::vector<ClaimsFileText>& files, std::vector<PaperTally>* tallies,
                      const CodeVersion& code) {
  for (size_t i = 0; i < tallies->size(); ++i) {
    PaperTally& tally = (*tallies)[i];
    absl::StatusOr<std::map<std::string, std::string>> spec_hashes = RunSpecHashes(files[i]);
    if (!spec_hashes.ok()) {
      std::fprintf(stderr, "README.md's status table not written: %s\n",
                   std::string(spec_hashes.status().message()).c_str());
      return 1;
    }
    tally.spec_hashes = *std::move(spec_hashes);
    tally.claims_csv = ReadFile(tally.claims_csv).value_or("");
    tally.quick_csv = ReadFile(tally.quick_csv).value_or("");
    tally.claims_md_text = ReadFile(tally.claims_md_text).value_or("");
  }
  const std::string readme_path = ResolveWorkspacePath("README.md");
  absl::StatusOr<std::string> readme = ReadFile(readme_path);
  absl::StatusOr<std::string> updated =
      readme.ok() ? ReplaceStatusTable(*readme, ReadmeStatusTable(*tallies, code))
                  : readme.status();
  if (!updated.ok()) {
    std::fprintf(stderr, "%s: %s\n", readme_path.c_str(),
                 std::string(updated.status().message()).c_str());
    return 1;
  }
  if (absl::Status s = WriteFileAtomically(readme_path, *updated); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  std::fprintf(stderr, "claims: wrote the status table of %s\n", readme_path.c_str());
  return 0;
}

// Sorts `items` by `number` of each, and `companions` (one per item) alike.
template <typename Item, typename Companion, typename Number>
void SortByNumber(std::vector<Item>* items, std::vector<Companion>* companions, Number number) {
  std::vector<size_t> order(items->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return number((*items)[a]) < number((*items)[b]); });
  std::vector<Item> sorted_items;
  std::vector<Companion> sorted_companions;
  for (size_t i : order) {
    sorted_items.push_back(std::move((*items)[i]));
    sorted_companions.push_back(std::move((*companions)[i]));
  }
  *items = std::move(sorted_items);
  *companions = std::move(sorted_companions);
}

// Whether `file` declares any of `ids`; the ids it declares are erased from `unknown`.
bool DeclaresAny(const ClaimsFile& file, const std::set<std::string>& ids,
                 std::set<std::string>* unknown) {
  bool any = false;
  for (const Claim& claim : file.claim()) {
    if (ids.count(claim.id()) == 0) continue;
    any = true;
    unknown->erase(claim.id());
  }
  return any;
}

int Main(int argc, char** argv) {
  CatchInterrupts();  // before any thread starts (interrupt.h)
  const Cluster& cluster = Cluster::Get();
  absl::SetProgramUsageMessage(
      "Judges the papers' claims from runs of this code (under `mpirun -np K`, the runs' trials\n"
      "spread over the ranks; --out on a filesystem every rank sees).\n  claims [--paper=N] "
      "[--claim=ID,...] "
      "[--quick] "
      "[--check_quick] [--status_only] [--write=false] [--out=DIR] [--threads=N] "
      "[--reuse=rerun|same|any|any-cpu]");
  if (!ParseFlagsOnly(argc, argv)) return 2;
  if (absl::GetFlag(FLAGS_threads) < 0) {
    std::fprintf(stderr, "--threads=%d: must be >= 0\n", absl::GetFlag(FLAGS_threads));
    return 2;
  }
  if (absl::GetFlag(FLAGS_status_only) &&
      (absl::GetFlag(FLAGS_quick) || !absl::GetFlag(FLAGS_write))) {
    std::fprintf(stderr,
                 "--status_only: writes README's full-length status table (not with --quick "
                 "or --write=false)\n");
    return 2;
  }
  if (absl::GetFlag(FLAGS_check_quick) && !absl::GetFlag(FLAGS_quick)) {
    std::fprintf(stderr, "--check_quick: needs --quick\n");
    return 2;
  }
  const std::set<std::string> asked =
      absl::StrSplit(absl::GetFlag(FLAGS_claim), ',', absl::SkipEmpty());
  if (!asked.empty() && (absl::GetFlag(FLAGS_status_only) || absl::GetFlag(FLAGS_check_quick))) {
    std::fprintf(stderr,
                 "--claim: judges some claims and writes nothing (not with --status_only "
                 "or --check_quick, which speak for every claim)\n");
    return 2;
  }
  ClaimsOptions options;
  absl::StatusOr<Reuse> reuse = ParseReuse(absl::GetFlag(FLAGS_reuse));
  if (!reuse.ok()) {
    std::fprintf(stderr, "%s\n", std::string(reuse.status().message()).c_str());
    return 2;
  }
  options.reuse = *reuse;
  options.code = ThisBuild();
  if (absl::Status status = ApplyProductBackendFlag(&options.code); !status.ok()) {
    std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    return 2;
  }
  options.quick = absl::GetFlag(FLAGS_quick);
  options.claims = asked;
  options.out_dir = ResolveUserPath(absl::GetFlag(FLAGS_out));
  options.threads =
      absl::GetFlag(FLAGS_threads) > 0 ? absl::GetFlag(FLAGS_threads) : DefaultThreads();
  options.cluster = &cluster;
  PrintStackOnCrash(argv[0]);
  options.stop = [] { return InterruptSignal() != 0; };

  // The files judged: the user's (--claims) or the repository's papers, whose tallies make
  // README's status table.
  const std::string own_files = absl::GetFlag(FLAGS_claims);
  if (!own_files.empty() && absl::GetFlag(FLAGS_status_only)) {
    std::fprintf(stderr,
                 "--status_only: rewrites README's table of the repository's papers (not with "
                 "--claims)\n");
    return 2;
  }
  std::vector<std::string> names;  // as typed, or relative to the workspace
  if (own_files.empty()) {
    names = RepositoryClaimsFiles(ResolveWorkspacePath("experiments"));
    if (names.empty()) {
      std::fprintf(stderr,
                   "%s: no folder with a claims.textproto (run under `bazel run`, or "
                   "name your files with --claims)\n",
                   ResolveWorkspacePath("experiments").c_str());
      return 2;
    }
  } else {
    names = absl::StrSplit(own_files, ',', absl::SkipEmpty());
  }
  std::vector<ClaimsFileText> files;
  std::vector<std::string> rerun_flags;     // per file judged: how CLAIMS.md says to rerun it
  std::vector<PaperTally> tallies;          // the repository's papers, for README's status table
  std::vector<ClaimsFileText> tally_files;  // and their claims files
  std::map<int, std::string> numbered;      // paper number -> its file
  bool paper_found = false;
  std::set<std::string> unknown = asked;  // --claim's ids no selected file declares
  for (const std::string& name : names) {
    const std::string path = own_files.empty() ? ResolveWorkspacePath(name) : ResolveUserPath(name);
    absl::StatusOr<ClaimsFileText> file = ReadClaimsFile(path);
    if (!file.ok()) {
      std::fprintf(stderr, "%s\n", std::string(file.status().message()).c_str());
      return 2;
    }
    const auto [other, fresh] = numbered.emplace(file->file.number(), path);
    if (!fresh) {
      std::fprintf(stderr, "%s:1: number: %d is also %s's paper number\n", path.c_str(),
                   file->file.number(), other->second.c_str());
      return 2;
    }
    if (own_files.empty()) {
      tallies.push_back({file->file.number(),
                         file->file.paper(),
                         DirectoryOf(name) + "/CLAIMS.md",
                         DirectoryOf(file->path) + "/claims.csv",
                         DirectoryOf(file->path) + "/claims_quick.csv",
                         DirectoryOf(file->path) + "/CLAIMS.md",  // its path until read
                         {}});
      tally_files.push_back(*file);
    }
    if (absl::GetFlag(FLAGS_paper) == 0 || file->file.number() == absl::GetFlag(FLAGS_paper)) {
      paper_found = true;
      if (asked.empty() || DeclaresAny(file->file, asked, &unknown)) {
        rerun_flags.push_back(own_files.empty() ? absl::StrCat("--paper=", file->file.number())
                                                : absl::StrCat("--claims=", name));
        files.push_back(std::move(*file));
      }
    }
  }
  // Papers in the order of their numbers, whatever their folders are called.
  SortByNumber(&files, &rerun_flags, [](const ClaimsFileText& f) { return f.file.number(); });
  SortByNumber(&tallies, &tally_files, [](const PaperTally& t) { return t.number; });
  if (!paper_found) {
    std::fprintf(stderr, "--paper=%d: no claims file declares this number\n",
                 absl::GetFlag(FLAGS_paper));
    return 2;
  }
  if (!unknown.empty()) {
    const int paper = absl::GetFlag(FLAGS_paper);
    std::fprintf(stderr, "--claim=%s: %s\n", unknown.begin()->c_str(),
                 paper == 0 ? "no claims file declares this claim"
                            : absl::StrCat("paper ", paper, " declares no such claim").c_str());
    return 2;
  }
  if (absl::GetFlag(FLAGS_status_only)) {
    return WriteReadmeStatus(tally_files, &tallies, options.code);
  }
  int status = 0;
  std::vector<std::string> tally_lines;
  for (size_t f = 0; f < files.size(); ++f) {
    const ClaimsFileText& file = files[f];
    absl::StatusOr<PaperOutcome> paper = RunClaims(file, options);
    if (!paper.ok() && cluster.root()) {  // every rank stops alike; rank 0 says why
      std::fprintf(stderr, "%s\n", std::string(paper.status().message()).c_str());
    }
    if (absl::IsCancelled(paper.status())) return 130;
    if (!paper.ok()) {
      const bool bad_input =
          absl::IsInvalidArgument(paper.status()) || absl::IsFailedPrecondition(paper.status());
      return bad_input ? 2 : 1;
    }
    if (!cluster.root()) continue;  // rank 0 judges, writes and prints
    for (const auto& [name, run] : paper->runs) {
      for (const std::string& error : run.errors) status = error.empty() ? status : 1;
    }
    const std::string dir = DirectoryOf(file.path);
    std::vector<std::pair<std::string, std::string>> outputs;
    if (options.quick) {
      outputs.emplace_back(dir + "/claims_quick.csv", QuickVerdictsCsv(*paper));
    } else {
      outputs.emplace_back(dir + "/CLAIMS.md", ClaimsMarkdown(*paper, rerun_flags[f]));
      outputs.emplace_back(dir + "/claims.csv", ClaimsCsv(*paper));
    }
    if (absl::GetFlag(FLAGS_check_quick)) {
      absl::StatusOr<std::string> expected = ReadFile(dir + "/claims_quick.csv");
      if (!expected.ok()) {
        std::fprintf(stderr, "%s/claims_quick.csv: %s\n", dir.c_str(),
                     std::string(expected.status().message()).c_str());
        return 1;
      }
      const std::vector<std::string> changes = QuickVerdictChanges(*paper, *expected);
      for (const std::string& change : changes) {
        std::fprintf(stderr, "paper %d, quick verdict changed: %s\n", file.file.number(),
                     change.c_str());
      }
      if (!changes.empty()) status = 1;
    }
    if (absl::GetFlag(FLAGS_write) && asked.empty()) {
      for (const auto& [path, text] : outputs) {
        if (absl::Status s = WriteFileAtomically(path, text); !s.ok()) {
          std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
          return 1;
        }
        std::fprintf(stderr, "claims: wrote %s\n", path.c_str());
      }
    }
    const std::string text = ClaimsSummary(*paper);
    tally_lines.push_back(text.substr(0, text.find('\n') + 1));
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
  }
  if (!cluster.root()) return 0;
  if (files.size() > 1) {
    std::fputs("\n", stdout);
    for (const std::string& tally : tally_lines) std::fputs(tally.c_str(), stdout);
  }
  if (!asked.empty()) {
    std::fprintf(stderr,
                 "claims: --claim wrote nothing (CLAIMS.md, claims.csv and README's table hold "
                 "every claim: run without --claim to write them)\n");
    return status;
  }
  if (absl::GetFlag(FLAGS_write) && !options.quick && !own_files.empty()) {
    std::fprintf(stderr,
                 "claims: README's status table lists the repository's papers; --claims leaves "
                 "it as it is\n");
  } else if (absl::GetFlag(FLAGS_write) && !options.quick) {
    if (int written = WriteReadmeStatus(tally_files, &tallies, options.code); written != 0) {
      return written;
    }
  }
  return status;
}

}  // namespace
}  // namespace attnlab

int main(int argc, char** argv) {
  const int status = attnlab::Main(argc, argv);
  // A rank that stops early ends the job: another may be waiting for it in a collective.
  if (status != 0 && attnlab::Cluster::Get().size() > 1) MPI_Abort(MPI_COMM_WORLD, status);
  return status;
}

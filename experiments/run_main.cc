// The experiment runner: `bazel run //experiments:run -- --spec=FILE --out=DIR`. The
// per-paper targets (//experiments:max_margin, ...) are this binary with a default spec.
//
// Exit status: 0 success; 1 a trial failed or results could not be written; 2 bad flags or spec;
// 130 interrupted (Ctrl-C or SIGTERM: running trials wrote a checkpoint).
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "attention/plugin_catalog.h"
#include "experiments/command_line.h"
#include "experiments/spec/field_path.h"
#include "experiments/spec/sweep.h"
#include "experiments/store/this_build.h"
#include "experiments/trials/cluster.h"
#include "experiments/trials/crash_stack.h"
#include "experiments/trials/interrupt.h"
#include "experiments/trials/product_setup.h"
#include "experiments/trials/runner.h"
#include "experiments/trials/summary_table.h"
#include "experiments/user_paths.h"

ABSL_FLAG(std::string, spec, "",
          "Experiment spec, a text-format attnlab.ExperimentSpec. A relative path resolves "
          "against the directory `bazel run` was started from.");
ABSL_FLAG(std::string, default_spec, "",
          "The spec used without --spec (set by per-experiment targets; relative to the "
          "workspace root).");
ABSL_FLAG(std::string, out, "",
          "Results directory (summary.csv, <trial>/metrics.csv, <trial>/spec.textproto). "
          "Default: attnlab_results/<spec store, or name>. Relative paths resolve like --spec.");
// Declared for --help and flag checking; the values are read from argv by SetAssignments, since
// absl keeps only the last of a repeated flag.
ABSL_FLAG(std::string, set, "",
          "Comma-separated FIELD=VALUE overrides of the spec, e.g. "
          "--set=training.steps=100,optimizer.lr=0.01 or "
          "--set=dataset.config.train=/data/wiki.train.tokens (text-format values; repeatable).");
ABSL_FLAG(int, threads, 0,
          "Thread budget: trials run side by side, and leftover threads split batches inside "
          "trials. 0: every core of this machine (under mpirun: the cores divided among the "
          "ranks on it).");
ABSL_FLAG(std::string, reuse, "same",
          "A finished trial in --out that other code ran (other sources, compiler, flags, "
          "libraries or CPU): same = refuse, naming both codes; rerun = run it again (the old "
          "result moves to <out>/superseded/); any = take it as it is; any-cpu = take it when "
          "only the CPU differs (the same program run on another machine), rerun the rest.");
ABSL_FLAG(bool, dry_run, false, "Only check the spec: parse it and build every trial.");
ABSL_FLAG(double, progress_seconds, 30,
          "When stderr is not a terminal (a log file, a batch job): a progress line every this "
          "many seconds (> 0).");
ABSL_FLAG(bool, list_plugins, false,
          "List the registered plugins of every kind (layers, losses, regularizers, "
          "mechanisms, metrics, datasets, optimizers, schedules) and exit.");
ABSL_FLAG(bool, markdown, false,
          "With --list_plugins: as a Markdown table (README's plugin table; tools/plugin_table "
          "puts it there).");

namespace attnlab {
namespace {

// Every registered plugin of every kind (attention/plugin_catalog.h): a Markdown table, or a
// list with each config message and folder.
void ListPlugins() {
  const bool markdown = absl::GetFlag(FLAGS_markdown);
  if (markdown) std::printf("| kind | plugin | what it is |\n|---|---|---|\n");
  std::string kind;
  for (const PluginInfo* plugin : AllPlugins()) {
    if (markdown) {
      std::string summary = plugin->summary;
      absl::StrReplaceAll({{"|", "\\|"}}, &summary);
      std::printf("| %s | `%s` | %s |\n", plugin->kind.c_str(), plugin->name.c_str(),
                  summary.c_str());
      continue;
    }
    if (plugin->kind != kind) std::printf("%s plugins:\n", plugin->kind.c_str());
    kind = plugin->kind;
    std::printf("  %-20s %s [%s%s]\n", plugin->name.c_str(), plugin->summary.c_str(),
                plugin->config_type != nullptr
                    ? absl::StrCat("config ", plugin->config_type->full_name(), ", ").c_str()
                    : "",
                plugin->folder.c_str());
  }
}

// Every --set on the command line, in order (absl keeps only the last of a repeated flag).
std::vector<std::string> SetAssignments(int argc, char** argv) {
  std::vector<std::string> assignments;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    std::string value;
    if (arg.rfind("--set=", 0) == 0) {
      value = arg.substr(6);
    } else if (arg == "--set" && i + 1 < argc) {
      value = argv[++i];
    } else {
      continue;
    }
    for (std::string& part : SplitAssignments(value)) assignments.push_back(std::move(part));
  }
  return assignments;
}

int Main(int argc, char** argv) {
  CatchInterrupts();  // before any thread starts (interrupt.h)
  const Cluster& cluster = Cluster::Get();
  absl::SetProgramUsageMessage(
      "Runs an attnlab experiment spec.\n  run --spec=FILE [--out=DIR] [--threads=N] "
      "[--reuse=same|rerun|any] [--dry_run] [--list_plugins]");
  if (!ParseFlagsOnly(argc, argv)) return 2;
  if (absl::GetFlag(FLAGS_list_plugins)) {
    ListPlugins();
    return 0;
  }
  if (absl::GetFlag(FLAGS_threads) < 0) {
    std::fprintf(stderr, "--threads=%d: must be >= 0\n", absl::GetFlag(FLAGS_threads));
    return 2;
  }
  if (!(absl::GetFlag(FLAGS_progress_seconds) > 0)) {
    std::fprintf(stderr, "--progress_seconds=%g: must be > 0\n",
                 absl::GetFlag(FLAGS_progress_seconds));
    return 2;
  }
  std::string spec_path = ResolveUserPath(absl::GetFlag(FLAGS_spec));
  if (spec_path.empty()) spec_path = ResolveWorkspacePath(absl::GetFlag(FLAGS_default_spec));
  if (spec_path.empty()) {
    std::fprintf(stderr, "--spec: missing; give the experiment spec file (--spec=FILE)\n");
    return 2;
  }
  absl::StatusOr<ParsedSpec> parsed = ReadSpecFile(spec_path);
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s\n", std::string(parsed.status().message()).c_str());
    return 2;
  }
  const std::vector<std::string> assignments = SetAssignments(argc, argv);
  for (const std::string& assignment : assignments) {
    const size_t eq = assignment.find('=');
    absl::Status status =
        eq == std::string::npos
            ? absl::InvalidArgumentError("expected FIELD=VALUE")
            : SetFieldFromText(&parsed->spec, assignment.substr(0, eq), assignment.substr(eq + 1));
    if (!status.ok()) {
      std::fprintf(stderr, "--set %s: %s\n", assignment.c_str(),
                   std::string(status.message()).c_str());
      return 2;
    }
  }
  // An override the sweep replaces in every trial would be dropped without a word.
  for (const std::string& assignment : assignments) {
    const size_t eq = assignment.find('=');
    absl::Status status =
        CheckNotSwept(parsed->spec, assignment.substr(0, eq), assignment.substr(eq + 1));
    if (!status.ok()) {
      std::fprintf(stderr, "--set %s: %s\n", assignment.c_str(),
                   std::string(status.message()).c_str());
      return 2;
    }
  }
  RunOptions options;
  options.code = ThisBuild();
  if (absl::Status status = ApplyProductBackendFlag(&options.code); !status.ok()) {
    std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    return 2;
  }
  if (absl::StatusOr<Reuse> reuse = ParseReuse(absl::GetFlag(FLAGS_reuse)); reuse.ok()) {
    options.reuse = *reuse;
  } else {
    std::fprintf(stderr, "%s\n", std::string(reuse.status().message()).c_str());
    return 2;
  }
  options.threads =
      absl::GetFlag(FLAGS_threads) > 0 ? absl::GetFlag(FLAGS_threads) : DefaultThreads();
  options.cluster = &cluster;
  options.dry_run = absl::GetFlag(FLAGS_dry_run);
  options.progress_seconds = absl::GetFlag(FLAGS_progress_seconds);
  options.out_dir = absl::GetFlag(FLAGS_out);
  if (options.out_dir.empty()) {
    const std::string name = !parsed->spec.store().empty()  ? parsed->spec.store()
                             : !parsed->spec.name().empty() ? parsed->spec.name()
                                                            : "experiment";
    options.out_dir = absl::StrCat("attnlab_results/", name);
  }
  options.out_dir = ResolveUserPath(options.out_dir);

  PrintStackOnCrash(argv[0]);
  options.stop = [] { return InterruptSignal() != 0; };
  absl::StatusOr<ExperimentResult> result = RunExperiment(*parsed, options);
  if (absl::IsCancelled(result.status())) {
    if (cluster.root())
      std::fprintf(stderr, "%s\n", std::string(result.status().message()).c_str());
    return 130;
  }
  if (!result.ok()) {
    const std::string rank = cluster.root() ? "" : absl::StrCat("rank ", cluster.rank(), ": ");
    std::fprintf(stderr, "%s%s\n", rank.c_str(), std::string(result.status().message()).c_str());
    // Bad input (a spec error, a missing data file, a store of other code's results) is 2; a
    // failure while running is 1.
    const bool bad_input = absl::IsInvalidArgument(result.status()) ||
                           absl::IsNotFound(result.status()) ||
                           absl::IsFailedPrecondition(result.status());
    return bad_input ? 2 : 1;
  }
  if (options.dry_run) {
    if (cluster.root())
      std::printf("%s: OK, %zu trial(s)\n", spec_path.c_str(), result->trials.size());
    return 0;
  }
  if (!cluster.root()) return 0;  // rank 0 reports for everyone
  std::cout << SummaryTable(parsed->spec, *result);
  std::fprintf(stderr, "results: %s (%zu trials, %d reused, %d failed)\n", options.out_dir.c_str(),
               result->trials.size(), result->reused, result->failed);
  return result->failed > 0 ? 1 : 0;
}

}  // namespace
}  // namespace attnlab

int main(int argc, char** argv) { return attnlab::Main(argc, argv); }

// tools/bazel run //experiments:fc_vs_transformer: paper 3's FC nets against the transformer as
// one table, from the tuned study: each FC width at its best learning rate of 3c_grid (by the
// mean validation error over seeds), beside 3c's transformer and predicting 0, with each row's
// error over predicting 0's. Both specs share one store, so a trial the claims ran is reused.
// Writes the table to stdout and <out>/fc_vs_transformer_tuned.csv.
//
// Exit status: 0 done; 1 a trial failed or the table could not be written; 2 bad flags or
// spec, or a store of other code's results under --reuse=same; 130 interrupted.
#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "attention/base/files.h"
#include "experiments/command_line.h"
#include "experiments/spec/spec_loader.h"
#include "experiments/store/this_build.h"
#include "experiments/trials/crash_stack.h"
#include "experiments/trials/interrupt.h"
#include "experiments/trials/product_setup.h"
#include "experiments/trials/runner.h"
#include "experiments/tuned_table.h"
#include "experiments/user_paths.h"

ABSL_FLAG(std::string, tuned, "experiments/sparse_selection/3c_grid.textproto",
          "The tuned study: models on the sweep axis `model` times learning rates on `lr` "
          "(relative to the workspace).");
ABSL_FLAG(std::string, references, "experiments/sparse_selection/3c.textproto",
          "The untuned references on the axis `model` (the transformer, predicting 0); its "
          "models that the tuned study tunes are left out.");
ABSL_FLAG(std::string, out, "attnlab_results/fc_vs_transformer",
          "The results store both specs run in (relative to where you typed the command).");
ABSL_FLAG(int, threads, 0, "Thread budget (0: every core).");
ABSL_FLAG(std::string, reuse, "same",
          "A finished trial that other code ran: same (refuse), rerun, any, any-cpu "
          "(command_line.h).");

namespace attnlab {
namespace {

int Main(int argc, char** argv) {
  CatchInterrupts();
  absl::SetProgramUsageMessage(
      "Paper 3's FC nets at their best learning rates against the transformer, one table.\n"
      "  fc_vs_transformer [--out=DIR] [--threads=N] [--reuse=same|rerun|any]");
  if (!ParseFlagsOnly(argc, argv)) return 2;
  if (absl::GetFlag(FLAGS_threads) < 0) {
    std::fprintf(stderr, "--threads=%d: must be >= 0\n", absl::GetFlag(FLAGS_threads));
    return 2;
  }
  RunOptions options;
  options.code = ThisBuild();
  if (absl::Status status = ApplyProductBackendFlag(&options.code); !status.ok()) {
    std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    return 2;
  }
  absl::StatusOr<Reuse> reuse = ParseReuse(absl::GetFlag(FLAGS_reuse));
  if (!reuse.ok()) {
    std::fprintf(stderr, "%s\n", std::string(reuse.status().message()).c_str());
    return 2;
  }
  options.reuse = *reuse;
  options.threads = absl::GetFlag(FLAGS_threads) > 0
                        ? absl::GetFlag(FLAGS_threads)
                        : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  options.out_dir = ResolveUserPath(absl::GetFlag(FLAGS_out));
  PrintStackOnCrash(argv[0]);
  options.stop = [] { return InterruptSignal() != 0; };

  ExperimentResult results[2];
  const std::string specs[2] = {absl::GetFlag(FLAGS_tuned), absl::GetFlag(FLAGS_references)};
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<ParsedSpec> parsed = ReadSpecFile(ResolveWorkspacePath(specs[i]));
    if (!parsed.ok()) {
      std::fprintf(stderr, "%s\n", std::string(parsed.status().message()).c_str());
      return 2;
    }
    absl::StatusOr<ExperimentResult> result = RunExperiment(*parsed, options);
    if (absl::IsCancelled(result.status())) return 130;
    if (!result.ok()) {
      std::fprintf(stderr, "%s\n", std::string(result.status().message()).c_str());
      const bool bad_input = absl::IsInvalidArgument(result.status()) ||
                             absl::IsNotFound(result.status()) ||
                             absl::IsFailedPrecondition(result.status());
      return bad_input ? 2 : 1;
    }
    results[i] = *std::move(result);
  }
  absl::StatusOr<std::vector<TunedRow>> rows =
      TunedRows(results[0], results[1], "model", "lr", "err_T200", "params");
  if (!rows.ok()) {
    std::fprintf(stderr, "%s\n", std::string(rows.status().message()).c_str());
    return absl::IsFailedPrecondition(rows.status()) ? 1 : 2;
  }
  std::fputs(TunedTableText(*rows, "lr", "err_T200", "predict 0").c_str(), stdout);
  const std::string csv = options.out_dir + "/fc_vs_transformer_tuned.csv";
  if (absl::Status s = WriteFileAtomically(csv, TunedTableCsv(*rows)); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  std::fprintf(stderr, "fc_vs_transformer: wrote %s\n", csv.c_str());
  return 0;
}

}  // namespace
}  // namespace attnlab

int main(int argc, char** argv) { return attnlab::Main(argc, argv); }

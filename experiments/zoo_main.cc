// tools/bazel run //experiments:zoo: every registered attention mechanism on the zoo's tasks
// (experiments/zoo/zoo.textproto), one table on stdout, zoo.csv in --out.
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_split.h"
#include "attention/base/files.h"
#include "experiments/command_line.h"
#include "experiments/store/this_build.h"
#include "experiments/trials/crash_stack.h"
#include "experiments/trials/interrupt.h"
#include "experiments/trials/product_setup.h"
#include "experiments/user_paths.h"
#include "experiments/zoo.h"
#include "google/protobuf/text_format.h"

ABSL_FLAG(std::string, zoo, "", "The zoo spec (attnlab.ZooSpec, text format).");
ABSL_FLAG(std::string, default_zoo, "",
          "The zoo spec when --zoo is not given (set by the target).");
ABSL_FLAG(std::string, out, "attnlab_results/zoo",
          "Results directory: a store per task and mechanism, and zoo.csv.");
ABSL_FLAG(int, threads, 2, "Threads.");
ABSL_FLAG(int64_t, steps, 0, "> 0: every task trains this many steps (a quick look).");
ABSL_FLAG(std::string, reuse, "same",
          "Finished trials of other code in --out: same (refuse), rerun, any (take them) or "
          "any-cpu (take them when only the CPU differs).");
ABSL_FLAG(std::string, mechanisms, "",
          "Comma-separated mechanisms (default: the zoo spec's, or every registered one).");
ABSL_FLAG(std::string, tasks, "",
          "Comma-separated task labels (default: every task of the zoo spec).");

namespace attnlab {
namespace {

int Main(int argc, char** argv) {
  CatchInterrupts();  // before any thread starts (interrupt.h)
  if (!ParseFlagsOnly(argc, argv)) return 2;
  std::string path = ResolveUserPath(absl::GetFlag(FLAGS_zoo));
  if (path.empty()) path = ResolveWorkspacePath(absl::GetFlag(FLAGS_default_zoo));
  if (path.empty()) {
    std::fprintf(stderr, "--zoo: missing; give the zoo spec file\n");
    return 2;
  }
  if (absl::GetFlag(FLAGS_threads) < 1) {
    std::fprintf(stderr, "--threads=%d: must be >= 1\n", absl::GetFlag(FLAGS_threads));
    return 2;
  }
  if (absl::GetFlag(FLAGS_steps) < 0) {
    std::fprintf(stderr, "--steps=%ld: must be >= 0\n", long(absl::GetFlag(FLAGS_steps)));
    return 2;
  }
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) {
    std::fprintf(stderr, "%s: cannot read zoo spec (%s)\n", path.c_str(),
                 std::string(text.status().message()).c_str());
    return 2;
  }
  ZooSpec zoo;
  if (!google::protobuf::TextFormat::ParseFromString(*text, &zoo)) {
    std::fprintf(stderr, "%s: not a text-format attnlab.ZooSpec (protobuf's message above)\n",
                 path.c_str());
    return 2;
  }
  if (!absl::GetFlag(FLAGS_mechanisms).empty()) {
    zoo.clear_mechanism();
    for (absl::string_view name : absl::StrSplit(absl::GetFlag(FLAGS_mechanisms), ',')) {
      zoo.add_mechanism(std::string(name));
    }
  }
  if (absl::Status status = KeepTasks(absl::GetFlag(FLAGS_tasks), &zoo); !status.ok()) {
    std::fprintf(stderr, "--tasks=%s: %s\n", absl::GetFlag(FLAGS_tasks).c_str(),
                 std::string(status.message()).c_str());
    return 2;
  }
  ZooOptions options;
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
  options.out_dir = ResolveUserPath(absl::GetFlag(FLAGS_out));
  options.threads = absl::GetFlag(FLAGS_threads);
  options.steps = absl::GetFlag(FLAGS_steps);
  PrintStackOnCrash(argv[0]);
  options.stop = [] { return InterruptSignal() != 0; };
  absl::StatusOr<std::vector<ZooCell>> cells = RunZoo(zoo, path, options);
  if (!cells.ok()) {
    std::fprintf(stderr, "%s\n", std::string(cells.status().message()).c_str());
    return absl::IsCancelled(cells.status()) ? 130 : 2;
  }
  const std::string csv = options.out_dir + "/zoo.csv";
  if (absl::Status status = WriteZooCsv(*cells, csv); !status.ok()) {
    std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    return 1;
  }
  std::fputs(ZooTable(*cells).c_str(), stdout);
  std::fprintf(stderr, "results: %s\n", csv.c_str());
  return 0;
}

}  // namespace
}  // namespace attnlab

int main(int argc, char** argv) { return attnlab::Main(argc, argv); }

#include "experiments/trials/product_setup.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <memory>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "attention/base/files.h"
#include "attention/base/status_macros.h"
#include "attention/kernels/library_product.h"
#include "experiments/user_paths.h"

ABSL_FLAG(
    std::string, product_backend, "tuned",
    "Which code multiplies float blocks: tuned (for each class of block, the first of onednn, "
    "libxsmm, tiled within 10% of the fastest, timed once per CPU model and kept in "
    "~/.cache/attnlab/products/; tiled where neither HOME nor XDG_CACHE_HOME is set), or "
    "one of tiled, libxsmm, onednn for every block, or choices:LETTERS, a letter per class "
    "(t, x, o: the tuned file's `choices` line, e.g. with one class changed to A/B it). "
    "Part of the code version: results of one are not reused by another.");

namespace attnlab {
namespace {

constexpr int kTimingRepeats = 5;

// An exclusive lock on `path` while it lives: one process tunes, others on the machine (MPI
// ranks, runs side by side) wait for its file instead of timing at the same time.
class FileLock {
 public:
  explicit FileLock(const std::string& path)
      : fd_(open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644)) {
    while (fd_ >= 0 && flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        close(fd_);
        fd_ = -1;
      }
    }
  }
  ~FileLock() {
    if (fd_ >= 0) close(fd_);  // closing releases the lock
  }
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_;
};

// Times every class, logging to stderr.
std::vector<ProductClassTiming> Tune(const std::string& machine) {
  std::fprintf(stderr,
               "products: timing TiledProduct, libxsmm and oneDNN on %d classes of float block "
               "(once for %s)\n",
               kProductClasses, machine.c_str());
  const auto start = std::chrono::steady_clock::now();
  std::vector<ProductClassTiming> timings = TimeProductClasses(kTimingRepeats);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::fprintf(stderr, "products: tuned in %.1f s: %s\n", took.count(),
               ProductChoicesString(ChoicesOf(timings)).c_str());
  return timings;
}

}  // namespace

std::string ProductChoicesPath(const std::string& cache_dir, const std::string& machine) {
  // v4: the classes of product_choices.h, the blocks product_timing.cc times for them, its rule
  // of choice and how a backend multiplies them (v4: the second output class timed on 64 x 64
  // blocks); a change to any renames the file, so that every machine tunes again.
  return absl::StrCat(cache_dir, "/products/", absl::StrReplaceAll(machine, {{" ", "_"}}),
                      ".v4.tsv");
}

std::string ProductChoicesFile(const std::string& machine,
                               const std::vector<ProductClassTiming>& timings) {
  return absl::StrCat("# attnlab: the float product chosen for each class of block on ", machine,
                      ",\n# the first of onednn, libxsmm, tiled within 10% of the fastest "
                      "(experiments/product_setup.h).\n"
                      "# Delete this file to tune again.\nchoices\t",
                      ProductChoicesString(ChoicesOf(timings)), "\n", ProductTimingsTable(timings));
}

absl::StatusOr<ProductChoices> ParseProductChoicesFile(const std::string& path,
                                                       absl::string_view text) {
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (!absl::ConsumePrefix(&line, "choices\t")) continue;
    absl::StatusOr<ProductChoices> choices = ParseProductChoices(line);
    if (!choices.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", line_number,
                                                     ": choices: ", choices.status().message(),
                                                     "; delete the file to tune again"));
    }
    return choices;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": no 'choices' line; delete the file to tune again"));
}

absl::StatusOr<std::string> SetUpProducts(absl::string_view backend, const std::string& cache_dir) {
  if (absl::string_view letters = backend; absl::ConsumePrefix(&letters, "choices:")) {
    absl::StatusOr<ProductChoices> choices = ParseProductChoices(letters);
    if (!choices.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--product_backend=", backend, ": ", choices.status().message()));
    }
    SetProductBackend(ProductBackend::kChosen);
    SetProductChoices(*choices);
    return absl::StrCat("chosen ", letters);
  }
  if (backend != "tuned") {
    ProductBackend forced;
    if (backend == "chosen" || !ParseProductBackend(std::string(backend).c_str(), &forced)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--product_backend: '", backend,
                       "' is not one of tuned, tiled, libxsmm, onednn, choices:LETTERS"));
    }
    SetProductBackend(forced);
    return absl::StrCat("forced ", backend);
  }
  if (cache_dir.empty()) {
    // Choices timed afresh by every process would differ from run to run (and so would the
    // code version): without a place to keep them, every block is tiled (Bazel's tests).
    SetProductBackend(ProductBackend::kTiled);
    return std::string("tiled: no cache directory");
  }
  const std::string machine = CurrentMachine();
  const std::string path = ProductChoicesPath(cache_dir, machine);
  // A cache that cannot be made, read or written never blocks a run: this process tunes for
  // itself (its code version records the choices it made).
  auto for_this_process = [&](const absl::Status& why) {
    std::fprintf(stderr,
                 "products: cannot keep the choices in %s (%s): tuning for this process "
                 "only\n",
                 DirectoryOf(path).c_str(), std::string(why.message()).c_str());
    return ChoicesOf(Tune(machine));
  };
  ProductChoices choices;
  std::unique_ptr<FileLock> lock;
  if (absl::Status made = MakeDirectories(DirectoryOf(path)); !made.ok()) {
    choices = for_this_process(made);
  } else if (lock = std::make_unique<FileLock>(path + ".lock"); !lock->ok()) {
    choices = for_this_process(ErrnoError(absl::StrCat("cannot lock ", path, ".lock")));
  } else if (absl::StatusOr<std::string> text = ReadFile(path); text.ok()) {
    ASSIGN_OR_RETURN(choices, ParseProductChoicesFile(path, *text));
  } else if (absl::IsNotFound(text.status())) {
    const std::vector<ProductClassTiming> timings = Tune(machine);
    choices = ChoicesOf(timings);
    if (absl::Status kept = WriteFileAtomically(path, ProductChoicesFile(machine, timings));
        kept.ok()) {
      std::fprintf(stderr, "products: kept in %s\n", path.c_str());
    } else {
      std::fprintf(stderr, "products: not kept (%s): used by this process only\n",
                   std::string(kept.message()).c_str());
    }
  } else {
    choices = for_this_process(text.status());
  }
  SetProductBackend(ProductBackend::kChosen);
  SetProductChoices(choices);
  return absl::StrCat("tuned ", ProductChoicesString(choices));
}

absl::Status ApplyProductBackendFlag(CodeVersion* code) {
  ASSIGN_OR_RETURN(code->products,
                   SetUpProducts(absl::GetFlag(FLAGS_product_backend), CacheDirectory()));
  return absl::OkStatus();
}

}  // namespace attnlab

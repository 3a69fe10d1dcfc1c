#include "experiments/store/results_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "attention/base/files.h"
#include "attention/base/npy.h"
#include "experiments/spec/spec_loader.h"

namespace attnlab {
namespace {

// CSV field, quoted when it holds a comma, quote or newline.
std::string CsvField(const std::string& field) {
  if (field.find_first_of(",\"\n") == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string FormatValue(double value) { return absl::StrFormat("%.17g", value); }

constexpr char kManifest[] = "manifest.tsv";
constexpr char kProvenance[] = "provenance.tsv";

std::string ProvenanceText(const CodeVersion& code, const std::vector<DataFile>& data) {
  std::string text = CodeVersionLines(code);
  for (const DataFile& file : data) {
    absl::StrAppend(&text, "data\t", file.path, "\t", file.size, "\t", file.hash, "\n");
  }
  return text;
}

}  // namespace

std::string MetricsCsv(const TrialResult& result) {
  std::string csv = "step,metric,value\n";
  for (const MetricPoint& point : result.points) {
    absl::StrAppend(&csv, point.step, ",", point.metric, ",", FormatValue(point.value), "\n");
  }
  return csv;
}

absl::StatusOr<TrialResult> ParseMetricsCsv(absl::string_view csv, const std::string& file) {
  TrialResult result;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(csv, '\n', absl::SkipEmpty())) {
    ++line_number;
    if (line_number == 1) {
      if (line != "step,metric,value") {
        return absl::DataLossError(absl::StrCat(file, ":1: expected header step,metric,value"));
      }
      continue;
    }
    std::vector<absl::string_view> fields = absl::StrSplit(line, ',');
    MetricPoint point;
    if (fields.size() != 3 || !absl::SimpleAtoi(fields[0], &point.step) ||
        !absl::SimpleAtod(fields[2], &point.value)) {
      return absl::DataLossError(absl::StrCat(file, ":", line_number, ": malformed row"));
    }
    point.metric = std::string(fields[1]);
    result.points.push_back(std::move(point));
  }
  return result;
}

absl::StatusOr<std::optional<TrialResult>> ResultsStore::Load(const std::string& id,
                                                              std::string* damaged) const {
  const std::string dir = TrialDir(id);
  if (!Exists(dir)) return std::optional<TrialResult>();
  std::string why;
  absl::StatusOr<std::string> metrics = ReadFile(dir + "/metrics.csv");
  absl::StatusOr<std::string> manifest = ReadFile(dir + "/" + kManifest);
  if (!manifest.ok()) {
    why = absl::StrCat(kManifest, " missing (written before manifests, or cut short)");
  } else {
    for (absl::string_view line : absl::StrSplit(*manifest, '\n', absl::SkipEmpty())) {
      if (absl::StartsWith(line, "#")) continue;
      const std::vector<std::string> fields = absl::StrSplit(line, '\t');
      uint64_t size = 0;
      if (fields.size() != 3 || !absl::SimpleAtoi(fields[0], &size)) {
        why = absl::StrCat(kManifest, ": malformed line '", line, "'");
        break;
      }
      absl::StatusOr<std::string> bytes =
          fields[2] == "metrics.csv" ? metrics : ReadFile(dir + "/" + fields[2]);
      if (!bytes.ok()) {
        why = absl::StrCat(fields[2], ": ", bytes.status().message());
      } else if (bytes->size() != size) {
        why = absl::StrCat(fields[2], ": ", bytes->size(), " bytes, the manifest says ", size);
      } else if (absl::StrFormat("%016x", Fnv1a(*bytes)) != fields[1]) {
        why = absl::StrCat(fields[2], ": its contents differ from the manifest's");
      }
      if (!why.empty()) break;
    }
  }
  if (!why.empty()) {
    if (damaged != nullptr) *damaged = why;
    return std::optional<TrialResult>();
  }
  if (!metrics.ok()) return metrics.status();
  absl::StatusOr<TrialResult> result = ParseMetricsCsv(*metrics, dir + "/metrics.csv");
  if (!result.ok()) return result.status();
  result->code = StoredCode(id).value_or(CodeVersion());
  return std::optional<TrialResult>(std::move(*result));
}

std::optional<CodeVersion> ResultsStore::StoredCode(const std::string& id) const {
  const std::string dir = TrialDir(id);
  if (!Exists(dir + "/" + kManifest)) return std::nullopt;
  absl::StatusOr<std::string> provenance = ReadFile(dir + "/" + kProvenance);
  return provenance.ok() ? ParseCodeVersionLines(*provenance) : CodeVersion();
}

absl::Status ResultsStore::Supersede(const std::string& id) const {
  const std::optional<CodeVersion> code = StoredCode(id);
  const std::string key = code.has_value() && !code->source.empty() ? code->Key() : "unknown";
  const std::string aside = absl::StrCat(dir_, "/superseded");
  if (absl::Status s = MakeDirectories(aside); !s.ok()) return s;
  std::string target = absl::StrCat(aside, "/", id, ".", key);
  for (int n = 2; Exists(target); ++n) target = absl::StrCat(aside, "/", id, ".", key, ".", n);
  if (rename(TrialDir(id).c_str(), target.c_str()) != 0) {
    return ErrnoError("cannot move " + TrialDir(id) + " to " + target);
  }
  return absl::OkStatus();
}

StoreLock::~StoreLock() { close(fd_); }  // releases the flock

absl::StatusOr<std::unique_ptr<StoreLock>> ResultsStore::Lock(
    const std::function<void(const std::string&)>& waiting,
    const std::function<bool()>& stop) const {
  if (absl::Status s = MakeDirectories(dir_); !s.ok()) return s;
  const std::string path = dir_ + "/.lock";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("cannot write in " + dir_);
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) {
      absl::Status status = ErrnoError("cannot lock " + path);
      close(fd);
      return status;
    }
    char holder[32] = {};
    const ssize_t n = pread(fd, holder, sizeof(holder) - 1, 0);
    waiting(absl::StrCat("waiting for the run writing to ", dir_,
                         n > 0 ? absl::StrCat(" (pid ", absl::StripAsciiWhitespace(holder), ")")
                               : std::string(),
                         " to finish"));
    // Polled, not a blocking flock: a signal handler installed with SA_RESTART (std::signal)
    // would restart the blocking call, and Ctrl-C would wait for the other run.
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR) {
        absl::Status status = ErrnoError("cannot lock " + path);
        close(fd);
        return status;
      }
      if (stop && stop()) {
        close(fd);
        return absl::CancelledError(
            absl::StrCat("interrupted while waiting for the run writing to ", dir_));
      }
      usleep(50 * 1000);
    }
  }
  const std::string pid = absl::StrCat(getpid(), "\n");
  if (ftruncate(fd, 0) != 0 || pwrite(fd, pid.data(), pid.size(), 0) != ssize_t(pid.size())) {
    absl::Status status = ErrnoError("cannot write in " + dir_);
    close(fd);
    return status;
  }
  return std::make_unique<StoreLock>(fd);
}

absl::Status ResultsStore::RemoveStaleTemporaries() const {
  DIR* dir = opendir(dir_.c_str());
  if (dir == nullptr) return absl::OkStatus();  // nothing written yet
  std::vector<std::string> stale;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.find(".tmp.") != std::string::npos) {  // ".<id>.tmp.<pid>", "summary.csv.tmp.<pid>"
      stale.push_back(name);
    }
  }
  closedir(dir);
  for (const std::string& name : stale) {
    if (absl::Status s = RemoveTree(dir_ + "/" + name); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ResultsStore::Save(const Trial& trial, const TrialResult& result) const {
  if (absl::Status s = MakeDirectories(dir_); !s.ok()) return s;
  const std::string temporary = absl::StrCat(dir_, "/.", trial.id, ".tmp.", getpid());
  if (absl::Status s = RemoveTree(temporary); !s.ok()) return s;
  if (mkdir(temporary.c_str(), 0755) != 0) return ErrnoError("cannot create " + temporary);
  absl::Status status = WriteTrialFiles(trial, result, temporary);
  const std::string final_dir = TrialDir(trial.id);
  if (status.ok() && Exists(final_dir)) status = RemoveTree(final_dir);
  if (status.ok() && rename(temporary.c_str(), final_dir.c_str()) != 0) {
    status = ErrnoError("cannot rename " + temporary + " to " + final_dir);
  }
  if (!status.ok()) {
    RemoveTree(temporary).IgnoreError();  // best effort: the first error is the one to report
    return status;
  }
  return RemoveTree(CheckpointPath(trial));  // finished: the result supersedes it
}

absl::Status ResultsStore::WriteTrialFiles(const Trial& trial, const TrialResult& result,
                                           const std::string& dir) const {
  std::vector<std::pair<std::string, std::string>> files = {
      {"spec.textproto", PrintSpec(trial.spec)},
      {"metrics.csv", MetricsCsv(result)},
      {kProvenance, ProvenanceText(trial.code, trial.data)}};
  for (const auto& [name, array] : result.arrays) {
    files.emplace_back(absl::StrCat(name, ".npy"), NpyBytes(array));
  }
  std::string manifest = "# size, FNV-1a 64 and path of every file of this trial, written last\n";
  for (const auto& [name, bytes] : files) {
    const std::string path = absl::StrCat(dir, "/", name);
    if (absl::Status s = MakeDirectories(path.substr(0, path.rfind('/'))); !s.ok()) return s;
    if (absl::Status s = WriteFileAtomically(path, bytes); !s.ok()) return s;
    absl::StrAppend(&manifest, bytes.size(), "\t", absl::StrFormat("%016x", Fnv1a(bytes)), "\t",
                    name, "\n");
  }
  return WriteFileAtomically(absl::StrCat(dir, "/", kManifest), manifest);
}

absl::Status ResultsStore::WriteSummary(const std::vector<std::string>& sweep_columns,
                                        const std::vector<std::string>& metric_names,
                                        const std::vector<Trial>& trials,
                                        const std::vector<std::optional<TrialResult>>& results,
                                        const std::vector<std::string>& errors) const {
  if (absl::Status s = MakeDirectories(dir_); !s.ok()) return s;
  std::string csv = "trial";
  for (const std::string& column : sweep_columns) absl::StrAppend(&csv, ",", CsvField(column));
  absl::StrAppend(&csv, ",status");
  for (const std::string& metric : metric_names) absl::StrAppend(&csv, ",", CsvField(metric));
  csv += ",code,commit\n";
  for (size_t i = 0; i < trials.size(); ++i) {
    absl::StrAppend(&csv, trials[i].id);
    for (const auto& label : trials[i].labels) absl::StrAppend(&csv, ",", CsvField(label.second));
    if (results[i].has_value()) {
      absl::StrAppend(&csv, ",ok");
      for (const std::string& metric : metric_names) {
        absl::StrAppend(&csv, ",", FormatValue(results[i]->Final(metric)));
      }
      const CodeVersion& code = results[i]->code;
      absl::StrAppend(&csv, ",", code.source.empty() ? "unknown" : code.Key(), ",",
                      code.commit.empty() ? "unknown" : code.commit);
    } else {
      absl::StrAppend(&csv, ",", CsvField("failed: " + errors[i]));
      for (size_t m = 0; m < metric_names.size(); ++m) csv += ",";
      absl::StrAppend(&csv, ",", trials[i].code.Key(), ",", trials[i].code.commit);
    }
    csv += "\n";
  }
  return WriteFileAtomically(dir_ + "/summary.csv", csv);
}

}  // namespace attnlab

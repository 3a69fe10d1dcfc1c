// Learning-rate schedules: a multiplier of the base rate per step. Schedules are plugins
// (plugins/schedules/), named in the spec's ScheduleSpec with ScheduleSpec.warmup_steps on top.
#ifndef ATTNLAB_SOLVERS_SCHEDULE_H_
#define ATTNLAB_SOLVERS_SCHEDULE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/base/status_macros.h"
#include "attention/registry.h"
#include "solvers/optimizer.pb.h"

namespace attnlab {

class Schedule {
 public:
  virtual ~Schedule() = default;
  // The multiplier of the base rate at 0-based step `step`.
  virtual double Factor(int64_t step) const = 0;
};

inline Registry<Schedule>& ScheduleRegistry() { return Registry<Schedule>::Global("schedule"); }

// The schedule a ScheduleSpec names (none: constant), with its warm-up. Errors are FieldErrors
// relative to the ScheduleSpec.
absl::StatusOr<std::unique_ptr<Schedule>> CreateSchedule(const ScheduleSpec& spec);

// Registers Plugin, which has static absl::StatusOr<std::unique_ptr<Plugin>> Create(const Config&).
template <typename Config, typename Plugin>
bool RegisterSchedule(const char* file, const std::string& name, const std::string& summary,
                      const std::vector<std::string>& examples) {
  Registry<Schedule>::Entry entry;
  entry.name = name;
  entry.summary = summary;
  entry.config_type = Config::descriptor();
  entry.examples = examples;
  entry.source_file = file;
  entry.factory = TypedFactory<Schedule, Config>(
      [](const Config& config) -> absl::StatusOr<std::unique_ptr<Schedule>> {
        ASSIGN_OR_RETURN(std::unique_ptr<Plugin> plugin, Plugin::Create(config));
        return std::unique_ptr<Schedule>(std::move(plugin));
      });
  return ScheduleRegistry().Register(std::move(entry));
}

}  // namespace attnlab

// At the end of a schedule plugin's .cc:
//   ATTNLAB_REGISTER_SCHEDULE("cosine", plugins::CosineConfig, CosineSchedule, "one line",
//                             {"example config", ...});
#define ATTNLAB_REGISTER_SCHEDULE(name, Config, Plugin, summary, ...)        \
  static const bool ATTNLAB_CONCAT(attnlab_registered_schedule_, __LINE__) = \
      ::attnlab::RegisterSchedule<Config, Plugin>(__FILE__, name, summary, __VA_ARGS__)

#endif  // ATTNLAB_SOLVERS_SCHEDULE_H_

// A trial's program: its code (CodeVersion) less the CPU it ran on and the product backends
// tuned there. Two trials of one program on different CPUs compute the same thing with
// different float rounding: `--reuse=any-cpu` takes such a result (so a study longer than one
// machine's session can finish on several), and a claims table names the CPUs its trials ran on.
#ifndef ATTNLAB_EXPERIMENTS_STORE_PROGRAM_H_
#define ATTNLAB_EXPERIMENTS_STORE_PROGRAM_H_

#include <string>

#include "experiments/store/code_version.h"

namespace attnlab {

// 12 hex digits: Key() with the machine and products left out.
std::string ProgramKey(const CodeVersion& code);

// One line: "program 3fa2c1d07e9b (commit 360dff7, source 1a2b..., plugins ..., compiler 12.2.0,
// flags)".
std::string DescribeProgram(const CodeVersion& code);

// "GenuineIntel family 6 model 167 (products tuned xxo...)": where a trial ran.
std::string DescribeCpu(const CodeVersion& code);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_STORE_PROGRAM_H_

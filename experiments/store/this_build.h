// The code version of this binary: generated at build time by tools/code_version (the
// //experiments:this_build library). Only the programs link it, so a commit relinks them and
// not the tests, which pass their own version to the runner.
#ifndef ATTNLAB_EXPERIMENTS_STORE_THIS_BUILD_H_
#define ATTNLAB_EXPERIMENTS_STORE_THIS_BUILD_H_

#include "experiments/store/code_version.h"

namespace attnlab {

CodeVersion ThisBuild();

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_STORE_THIS_BUILD_H_

// libraries.h and GoogleTest, for tests' precompiled_header.
#ifndef ATTNLAB_TOOLS_PRECOMPILED_HEADER_TESTING_H_
#define ATTNLAB_TOOLS_PRECOMPILED_HEADER_TESTING_H_

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "tools/precompiled_header/libraries.h"

#endif  // ATTNLAB_TOOLS_PRECOMPILED_HEADER_TESTING_H_

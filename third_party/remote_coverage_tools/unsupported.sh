#!/bin/sh
echo "remote_coverage_tools is stubbed out (offline build); bazel coverage is not supported." >&2
exit 1

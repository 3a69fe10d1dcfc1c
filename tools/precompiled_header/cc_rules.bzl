"""cc_library, cc_test and cc_binary as Bazel's, each C++ file starting with a precompiled
header (precompiled_header.bzl): libraries.h for libraries and binaries, testing.h for tests.
A package's BUILD loads them in place of the native rules. A .gch serves only files compiled
with its flags: a target's copts pick one of those in //tools/precompiled_header (its BUILD
makes one per set of copts our targets use); a target with other copts compiles without."""

_PACKAGE = "tools/precompiled_header"
_HEADERS = [
    "precompiled_libraries",
    "precompiled_libraries_O3",
    "precompiled_testing",
    "precompiled_testing_O3",
]

def _with_header(kind, kwargs):
    if not kwargs.get("srcs"):
        return kwargs  # nothing to compile
    copts = kwargs.get("copts", [])
    name = "_".join(["precompiled", kind] + [
        "".join([c if c.isalnum() else "_" for c in copt.elems()]).strip("_")
        for copt in copts
    ])
    if name not in _HEADERS:
        return kwargs
    kwargs["copts"] = copts + ["-include", "%s/%s.h" % (_PACKAGE, name)]
    kwargs["deps"] = kwargs.get("deps", []) + ["//%s:%s" % (_PACKAGE, name)]
    return kwargs

def cc_library(**kwargs):
    native.cc_library(**_with_header("libraries", kwargs))

def cc_binary(**kwargs):
    native.cc_binary(**_with_header("libraries", kwargs))

def cc_test(**kwargs):
    native.cc_test(**_with_header("testing", kwargs))

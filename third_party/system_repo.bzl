"""system_repo: expose a Debian-installed library to Bazel without any download.

Only the listed header directories are symlinked into the external repo, so `includes = ["."]`
adds e.g. -isystem external/com_google_absl holding just `absl/`, never all of /usr/include
(which would shadow libstdc++'s <math.h> wrappers).
"""

def _system_repo_impl(rctx):
    for dst, src in rctx.attr.symlinks.items():
        if not rctx.path(src).exists:
            fail("system_repo(%s): %s not found -- run tools/bazel, which installs the Debian -dev packages" % (rctx.name, src))
        rctx.symlink(src, dst)
    rctx.symlink(rctx.attr.build_file, "BUILD.bazel")
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)

system_repo = repository_rule(
    implementation = _system_repo_impl,
    local = True,
    attrs = {
        "symlinks": attr.string_dict(doc = "repo-relative path -> absolute system path"),
        "build_file": attr.label(mandatory = True, allow_single_file = True),
    },
)

"""code_version: a C++ source defining ThisBuild() (experiments/this_build.h), the identity of
the code a results store's trials ran: a hash of every source file of our own that `deps`
compile (with each target's copts and defines) outside the plugin folders (the core), a hash of
each plugin folder's (plugins/<...>/<name>/), the build's flags, and the commit and Debian
library versions that tools/workspace_status reports. A trial's code is the core and the plugins
its spec names (experiments/code_version.h), so editing one plugin reruns only its trials."""

def _plugin_folder(path):
    """The plugin folder a source file belongs to ("plugins/metrics/accuracy"), or "" (the core):
    any folder below plugins/, whose files are one plugin's."""
    parts = path.split("/")
    if len(parts) >= 3 and parts[0] == "plugins":
        return "/".join(parts[:-1])
    return ""

_SourcesInfo = provider(fields = ["files", "settings"])

def _sources_aspect_impl(target, ctx):
    direct = []
    for attr in ("srcs", "hdrs", "textual_hdrs"):
        for dep in getattr(ctx.rule.attr, attr, []):
            direct.append(dep.files)
    settings = []
    if target.label.workspace_name == "":
        options = [
            getattr(ctx.rule.attr, name, [])
            for name in ("copts", "defines", "local_defines")
        ]
        # A plugin target's settings count for its folder (so adding one changes no other key).
        folder = ""
        for d in direct:
            for f in d.to_list():
                if f.is_source:
                    folder = _plugin_folder(f.short_path)
                    break
            if folder:
                break
        # A target that compiles none of its own sources and sets no options (a proto's C++
        # library, //plugins:all) adds nothing to hash: listing it in the core would change the
        # core's key whenever a plugin is added.
        has_sources = any([f.is_source for d in direct for f in d.to_list()])
        if has_sources or any(options):
            settings.append("%s\t%s %s" % (folder, target.label, options))
    transitive_files = [
        dep[_SourcesInfo].files
        for dep in getattr(ctx.rule.attr, "deps", [])
        if _SourcesInfo in dep
    ]
    transitive_settings = [
        dep[_SourcesInfo].settings
        for dep in getattr(ctx.rule.attr, "deps", [])
        if _SourcesInfo in dep
    ]
    return [_SourcesInfo(
        files = depset(transitive = direct + transitive_files),
        settings = depset(settings, transitive = transitive_settings),
    )]

_sources_aspect = aspect(
    implementation = _sources_aspect_impl,
    attr_aspects = ["deps"],
)

def _code_version_impl(ctx):
    files = depset(transitive = [d[_SourcesInfo].files for d in ctx.attr.deps]).to_list()
    # Our own sources only: the Debian libraries enter by their package versions.
    by_path = {f.path: f for f in files if f.is_source and f.owner.workspace_name == ""}
    files = [by_path[path] for path in sorted(by_path.keys())]
    settings = depset(transitive = [d[_SourcesInfo].settings for d in ctx.attr.deps]).to_list()
    flags = " ".join(
        ["-c " + ctx.var["COMPILATION_MODE"]] + ctx.fragments.cpp.copts +
        ctx.fragments.cpp.cxxopts,
    )
    manifest = ctx.actions.declare_file(ctx.label.name + ".sources")
    ctx.actions.write(
        manifest,
        "\n".join(
            ["%s\t%s" % (_plugin_folder(f.short_path), f.path) for f in files] +
            ["#settings"] + sorted(settings) + ["#flags", "\t" + flags],
        ) + "\n",
    )
    ctx.actions.run(
        executable = ctx.executable._generate,
        arguments = [manifest.path, ctx.info_file.path, flags, ctx.outputs.out.path],
        inputs = files + [manifest, ctx.info_file],
        outputs = [ctx.outputs.out],
        mnemonic = "CodeVersion",
        progress_message = "Hashing the sources of %s" % ctx.label,
    )
    return [
        DefaultInfo(files = depset([ctx.outputs.out])),
        OutputGroupInfo(sources = depset([manifest])),
    ]

code_version = rule(
    implementation = _code_version_impl,
    attrs = {
        "deps": attr.label_list(aspects = [_sources_aspect]),
        "out": attr.output(mandatory = True),
        "_generate": attr.label(
            default = "//tools/code_version:generate",
            executable = True,
            cfg = "exec",
        ),
    },
    fragments = ["cpp"],
)

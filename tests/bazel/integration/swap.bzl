"""The swap test's one set of cc_library attributes, given to several rules."""

def swap_library(name, rule, implementation_deps = True, **kwargs):
    """Declares name with rule, the swap attributes and kwargs.

    Args:
      name: the target's name.
      rule: cc_library, hip_library, cuda_library, offload_bundle...
      implementation_deps: False for Bazel 4.2's cc_library, which has no
        such attribute: swap_impl is then a dep.
      **kwargs: the rule's own attributes (targets, kind).
    """
    if implementation_deps:
        kwargs["implementation_deps"] = [":swap_impl"]
        deps = [":swap_base"]
    else:
        deps = [":swap_base", ":swap_impl"]
    rule(
        name = name,
        srcs = ["swap/swap.cc"],
        hdrs = [
            "swap/api/api.h",
            "swap/api/inc/inc_header.h",
            ":swap_generated",
        ],
        defines = ["API_DEFINE=5"],
        include_prefix = "swap",
        includes = ["swap/api/inc"],
        local_defines = ["LOCAL_ONLY=1"],
        strip_include_prefix = "swap/api",
        textual_hdrs = ["swap/api/table.inc"],
        deps = deps,
        **kwargs
    )

"""The C++ builtins of Bazel 4.2, under names the re-exporting files can bind."""

CC_INFO = CcInfo  # buildifier: disable=native-cc-info
CC_COMMON = cc_common  # buildifier: disable=native-cc-common

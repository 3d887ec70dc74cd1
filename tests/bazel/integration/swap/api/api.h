// The swap test's public header: included as "swap/api.h" (include_prefix
// and strip_include_prefix) and as "integration/swap/api/api.h" (the
// workspace root), as cc_library's compiles allow.
#ifndef SWAP_API_H
#define SWAP_API_H

int swap_value();

#endif

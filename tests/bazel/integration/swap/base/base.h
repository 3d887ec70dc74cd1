// A dependency's header, included as "swapbase/base.h" (its include_prefix).
#ifndef SWAP_BASE_H
#define SWAP_BASE_H
#define BASE_VALUE 3
#endif

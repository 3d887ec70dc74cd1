// An implementation dependency's header (includes = ["swap/impl"]): the
// library's sources see it, its dependents do not.
#ifndef SWAP_IMPL_H
#define SWAP_IMPL_H
#define IMPL_VALUE 13
#endif

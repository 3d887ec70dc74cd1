// Found through the rule's includes = ["swap/api/inc"] (-isystem).
#ifndef SWAP_INC_HEADER_H
#define SWAP_INC_HEADER_H
#define INC_VALUE 11
#endif

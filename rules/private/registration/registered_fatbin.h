// What a HIP or CUDA registration constructor hands its runtime, and the
// size of the fat binary it points at (which the call does not say):
// shared by the recorder here and the LD_PRELOAD shim of the Bazel
// integration tests (tests/bazel/integration/registration_shim.c), so
// that both read a registered fat binary the same way.
#ifndef RULES_OFFLOAD_REGISTERED_FATBIN_H_
#define RULES_OFFLOAD_REGISTERED_FATBIN_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

// What -fcuda-include-gpubinary's and offload wrap's constructors pass:
// magic, version, the fat binary, unused.
struct FatbinWrapper {
  int32_t magic;
  int32_t version;
  const unsigned char* data;
  const void* unused;
};

static inline uint64_t Read64(const unsigned char* p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

// A clang offload bundle: magic, entry count, then (offset, size, ID
// length, ID) per entry. Its size is where the last entry ends.
static inline size_t BundleSize(const unsigned char* p) {
  if (memcmp(p, "__CLANG_OFFLOAD_BUNDLE__", 24) != 0) return 0;
  uint64_t n = Read64(p + 24);
  size_t pos = 32, end = 0;
  for (uint64_t i = 0; i < n && i < 1024; i++) {
    uint64_t offset = Read64(p + pos), size = Read64(p + pos + 8), len = Read64(p + pos + 16);
    pos += 24 + len;
    if (offset + size > end) end = offset + size;
  }
  return end > pos ? end : pos;
}

// An NVIDIA fat binary: magic 0xBA55ED50, version, header size (16 bits
// each), then the size of what follows the header (64 bits).
static inline size_t FatbinSize(const unsigned char* p) {
  uint32_t magic;
  uint16_t header;
  memcpy(&magic, p, 4);
  memcpy(&header, p + 6, 2);
  return magic == 0xBA55ED50u ? header + Read64(p + 8) : 0;
}

#endif  // RULES_OFFLOAD_REGISTERED_FATBIN_H_

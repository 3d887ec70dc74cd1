// What a HIP or CUDA registration constructor hands its runtime, and the
// size of the fat binary it points at (which the call does not say):
// shared by the recorder here and the LD_PRELOAD shim of the Bazel
// integration tests (tests/bazel/integration/registration_shim.c), so
// that both read a registered fat binary the same way.
//
// The sizes come from the fat binary's own header, which the program may
// get wrong: every size is checked against the bytes that can be read
// there (ReadableFrom), so that a header claiming more never copies memory
// that is not the program's data, or crashes on memory that is not mapped.
#ifndef RULES_OFFLOAD_REGISTERED_FATBIN_H_
#define RULES_OFFLOAD_REGISTERED_FATBIN_H_

#include <link.h>
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

static inline uint32_t Read32(const unsigned char* p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

struct SegmentSearch {
  uintptr_t addr;
  size_t readable;
};

static inline int FindSegment(struct dl_phdr_info* info, size_t size, void* data) {
  struct SegmentSearch* s = (struct SegmentSearch*)data;
  (void)size;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD) continue;
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    if (s->addr >= start && s->addr - start < ph->p_memsz) {
      s->readable = ph->p_memsz - (s->addr - start);
      return 1;
    }
  }
  return 0;
}

// ReadableFrom returns how many bytes from p on lie in the loaded segment
// (an ELF PT_LOAD, its size in memory) of the program or a shared library
// that holds p; 0 when p is in none. Registration constructors pass
// pointers into the program's own data; the heap, a stack or a wild
// pointer is none of that, and reading past a segment's end would read
// another mapping, or fault.
static inline size_t ReadableFrom(const void* p) {
  struct SegmentSearch s = {(uintptr_t)p, 0};
  dl_iterate_phdr(FindSegment, &s);
  return s.readable;
}

// A compressed offload bundle (clang-offload-bundler -compress, clang
// --offload-compress): "CCOB", version, method, then in version 2 a 32-bit
// and in version 3 a 64-bit total size, header included. Version 1 has no
// total size: its end is known only to its decompressor.
static inline size_t CompressedBundleSize(const unsigned char* p, size_t avail, const char** why) {
  uint16_t version;
  uint64_t total, header;
  if (avail < 16) {
    *why = "a compressed bundle's header runs past the program's data";
    return 0;
  }
  memcpy(&version, p + 4, 2);
  if (version == 2) {
    total = Read32(p + 8), header = 24;
  } else if (version == 3) {
    total = Read64(p + 8), header = 32;
  } else {
    *why = "a compressed bundle of a version without its total size in the header (version 1) or of an unknown version";
    return 0;
  }
  if (total < header || total > avail) {
    *why = "a compressed bundle's total size is smaller than its header or runs past the program's data";
    return 0;
  }
  return (size_t)total;
}

// BundleSize returns the size of the clang offload bundle at p (magic,
// entry count, then offset, size, ID length and ID per entry; it ends
// where the last entry ends), or of the compressed bundle there, reading
// no byte past p + avail. It returns 0 and sets *why when p holds neither,
// or when the header claims more than avail bytes.
static inline size_t BundleSize(const unsigned char* p, size_t avail, const char** why) {
  if (avail >= 4 && memcmp(p, "CCOB", 4) == 0) return CompressedBundleSize(p, avail, why);
  if (avail < 32 || memcmp(p, "__CLANG_OFFLOAD_BUNDLE__", 24) != 0) {
    *why = "not a clang offload bundle (no __CLANG_OFFLOAD_BUNDLE__ or CCOB magic)";
    return 0;
  }
  uint64_t n = Read64(p + 24);
  size_t pos = 32, end = 0;
  for (uint64_t i = 0; i < n; i++) {
    if (avail - pos < 24) {
      *why = "a bundle's entry table runs past the program's data";
      return 0;
    }
    uint64_t offset = Read64(p + pos), size = Read64(p + pos + 8), len = Read64(p + pos + 16);
    if (len > avail - pos - 24) {
      *why = "a bundle entry's ID runs past the program's data";
      return 0;
    }
    pos += 24 + (size_t)len;
    if (offset > avail || size > avail - offset) {
      *why = "a bundle entry runs past the program's data";
      return 0;
    }
    if (offset + size > end) end = (size_t)(offset + size);
  }
  return end > pos ? end : pos;
}

// FatbinSize returns the size of the NVIDIA fat binary at p (magic
// 0xBA55ED50, version and header size, 16 bits each, then the size of
// what follows the header, 64 bits), reading no byte past p + avail. It
// returns 0 and sets *why when p holds none, or when the header claims
// more than avail bytes.
static inline size_t FatbinSize(const unsigned char* p, size_t avail, const char** why) {
  uint16_t header;
  if (avail < 16 || Read32(p) != 0xBA55ED50u) {
    *why = "not an NVIDIA fat binary (no 0xBA55ED50 magic)";
    return 0;
  }
  memcpy(&header, p + 6, 2);
  uint64_t size = Read64(p + 8);
  if (header > avail || size > avail - header) {
    *why = "an NVIDIA fat binary's size runs past the program's data";
    return 0;
  }
  return header + (size_t)size;
}

#endif  // RULES_OFFLOAD_REGISTERED_FATBIN_H_

// An LD_PRELOAD library that records what a program registers with the HIP
// or CUDA runtime before main: each fat binary (dumped to a file, for the
// real LLVM and NVIDIA tools to list), each kernel and each device variable.
// Every call then goes on to the real runtime (dlsym RTLD_NEXT), so the
// program runs as it would without the shim. The log is $SHIM_LOG.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// What -fcuda-include-gpubinary's constructor passes: magic, version, the
// fat binary, unused.
struct FatbinWrapper {
  int32_t magic;
  int32_t version;
  const unsigned char* data;
  const void* unused;
};

static FILE* Log(void) {
  static FILE* log;
  if (!log) {
    const char* path = getenv("SHIM_LOG");
    log = path ? fopen(path, "a") : NULL;
    if (!log) log = stderr;
  }
  return log;
}

static uint64_t Read64(const unsigned char* p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

// A clang offload bundle: magic, entry count, then (offset, size, ID
// length, ID) per entry. Its size is where the last entry ends.
static size_t BundleSize(const unsigned char* p) {
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
static size_t FatbinSize(const unsigned char* p) {
  uint32_t magic;
  uint16_t header;
  memcpy(&magic, p, 4);
  memcpy(&header, p + 6, 2);
  return magic == 0xBA55ED50u ? header + Read64(p + 8) : 0;
}

static void Dump(const char* what, int32_t magic, const unsigned char* data, size_t size, void** handle) {
  static int count;
  const char* base = getenv("SHIM_LOG");
  char path[4096];
  snprintf(path, sizeof path, "%s.fatbin%d", base ? base : "shim", count++);
  FILE* f = fopen(path, "wb");
  if (f) {
    fwrite(data, 1, size, f);
    fclose(f);
  }
  fprintf(Log(), "%s magic=0x%x size=%zu file=%s handle=%p\n", what, (unsigned)magic, size, path, (void*)handle);
  fflush(Log());
}

static void* Real(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (!f) {
    fprintf(Log(), "shim: no real %s\n", name);
    abort();
  }
  return f;
}

static void Named(const char* what, const char* name, void** handle) {
  fprintf(Log(), "%s %s handle=%p\n", what, name, (void*)handle);
  fflush(Log());
}

void** __hipRegisterFatBinary(const struct FatbinWrapper* w) {
  void** handle = ((void** (*)(const struct FatbinWrapper*))Real("__hipRegisterFatBinary"))(w);
  Dump("hipRegisterFatBinary", w->magic, w->data, BundleSize(w->data), handle);
  return handle;
}

void __hipRegisterFunction(void** module, const void* host, char* device_function, const char* device_name,
                           unsigned int limit, void* tid, void* bid, void* block, void* grid, int* wsize) {
  Named("hipRegisterFunction", device_name, module);
  ((void (*)(void**, const void*, char*, const char*, unsigned int, void*, void*, void*, void*, int*))Real(
      "__hipRegisterFunction"))(module, host, device_function, device_name, limit, tid, bid, block, grid, wsize);
}

void __hipRegisterVar(void** module, void* var, char* host_var, char* device_var, int ext, size_t size,
                      int constant, int global) {
  Named("hipRegisterVar", device_var, module);
  ((void (*)(void**, void*, char*, char*, int, size_t, int, int))Real("__hipRegisterVar"))(
      module, var, host_var, device_var, ext, size, constant, global);
}

void** __cudaRegisterFatBinary(const struct FatbinWrapper* w) {
  void** handle = ((void** (*)(const struct FatbinWrapper*))Real("__cudaRegisterFatBinary"))(w);
  Dump("cudaRegisterFatBinary", w->magic, w->data, FatbinSize(w->data), handle);
  return handle;
}

void __cudaRegisterFunction(void** handle, const char* host, char* device_function, const char* device_name,
                            int limit, void* tid, void* bid, void* block, void* grid, int* wsize) {
  Named("cudaRegisterFunction", device_name, handle);
  ((void (*)(void**, const char*, char*, const char*, int, void*, void*, void*, void*, int*))Real(
      "__cudaRegisterFunction"))(handle, host, device_function, device_name, limit, tid, bid, block, grid, wsize);
}

void __cudaRegisterVar(void** handle, char* host_var, char* device_address, const char* device_name, int ext,
                       size_t size, int constant, int global) {
  Named("cudaRegisterVar", device_name, handle);
  ((void (*)(void**, char*, char*, const char*, int, size_t, int, int))Real("__cudaRegisterVar"))(
      handle, host_var, device_address, device_name, ext, size, constant, global);
}

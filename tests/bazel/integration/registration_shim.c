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

#include "rules/private/registration/registered_fatbin.h"

static FILE* Log(void) {
  static FILE* log;
  if (!log) {
    const char* path = getenv("SHIM_LOG");
    log = path ? fopen(path, "a") : NULL;
    if (!log) log = stderr;
  }
  return log;
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

// RegisteredSize is the size of the fat binary at data, from its header,
// read within the program's loaded data; 0, logged, where the header is
// not one or claims more.
static size_t RegisteredSize(const unsigned char* data, size_t (*size)(const unsigned char*, size_t, const char**)) {
  const char* why = NULL;
  size_t n = size(data, ReadableFrom(data), &why);
  if (why) fprintf(Log(), "shim: the fat binary at %p: %s\n", (const void*)data, why);
  return n;
}

static void Named(const char* what, const char* name, void** handle) {
  fprintf(Log(), "%s %s handle=%p\n", what, name, (void*)handle);
  fflush(Log());
}

void** __hipRegisterFatBinary(const struct FatbinWrapper* w) {
  void** handle = ((void** (*)(const struct FatbinWrapper*))Real("__hipRegisterFatBinary"))(w);
  Dump("hipRegisterFatBinary", w->magic, w->data, RegisteredSize(w->data, BundleSize), handle);
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
  Dump("cudaRegisterFatBinary", w->magic, w->data, RegisteredSize(w->data, FatbinSize), handle);
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

// An LD_PRELOAD library that records what an OpenMP program registers with
// libomptarget (__tgt_register_lib, called by the constructor of the
// registration code before main): the number of device images, each image's
// bytes (dumped to a file, for LLVM's own tools to read), its entry table,
// and the host entries by name. The call then goes on to the real
// libomptarget (dlsym RTLD_NEXT), so the program runs as it would without
// the shim. The log is $SHIM_LOG.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// libomptarget's structures of LLVM 14-19 (omptarget.h): the legacy
// offload entry, the device image and the descriptor.
struct __tgt_offload_entry {
  void* addr;
  char* name;
  size_t size;
  int32_t flags;
  int32_t reserved;
};

struct __tgt_device_image {
  void* ImageStart;
  void* ImageEnd;
  struct __tgt_offload_entry* EntriesBegin;
  struct __tgt_offload_entry* EntriesEnd;
};

struct __tgt_bin_desc {
  int32_t NumDeviceImages;
  struct __tgt_device_image* DeviceImages;
  struct __tgt_offload_entry* HostEntriesBegin;
  struct __tgt_offload_entry* HostEntriesEnd;
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

// Writes one image's bytes to $SHIM_LOG.image<i>; returns the file's name.
static const char* Dump(int i, const struct __tgt_device_image* im) {
  static char path[4096];
  const char* base = getenv("SHIM_LOG");
  snprintf(path, sizeof path, "%s.image%d", base ? base : "shim", i);
  FILE* f = fopen(path, "wb");
  if (f) {
    fwrite(im->ImageStart, 1, (size_t)((const char*)im->ImageEnd - (const char*)im->ImageStart), f);
    fclose(f);
  }
  return path;
}

void __tgt_register_lib(struct __tgt_bin_desc* desc) {
  FILE* log = Log();
  fprintf(log, "tgt_register_lib images=%d host_entries=%td\n", desc->NumDeviceImages,
          desc->HostEntriesEnd - desc->HostEntriesBegin);
  for (const struct __tgt_offload_entry* e = desc->HostEntriesBegin; e < desc->HostEntriesEnd; e++) {
    fprintf(log, "host_entry %s size=%zu flags=%d\n", e->name, e->size, e->flags);
  }
  for (int i = 0; i < desc->NumDeviceImages; i++) {
    const struct __tgt_device_image* im = &desc->DeviceImages[i];
    // Every image's entry table is the host's (LLVM's wrapper points each
    // image at the one table): "same" says so.
    int same = im->EntriesBegin == desc->HostEntriesBegin && im->EntriesEnd == desc->HostEntriesEnd;
    fprintf(log, "image %d size=%td entries=%s file=%s\n", i, (const char*)im->ImageEnd - (const char*)im->ImageStart,
            same ? "host" : "other", Dump(i, im));
  }
  fflush(log);
  void (*real)(struct __tgt_bin_desc*) = (void (*)(struct __tgt_bin_desc*))dlsym(RTLD_NEXT, "__tgt_register_lib");
  if (!real) {
    fprintf(log, "shim: no real __tgt_register_lib\n");
    abort();
  }
  real(desc);
}

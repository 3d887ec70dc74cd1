// The recording stand-in of the offload runtimes that
// offload_registration_test links a program's offload libraries against,
// in place of the HIP runtime, the CUDA runtime (static or shared) and
// libomptarget. Only the registration constructors run: they call the
// functions below, which write what is registered to the file named by
// the program's first argument; then __wrap_main, which -Wl,--wrap=main
// makes the C runtime call instead of the program's main, exits. `offload regcheck`
// reads the record:
//
//   offload-registration-record 1
//   fatbin <handle> <kind> <magic> <size>\n<size bytes>\n   (OpenMP: one per image, same handle)
//   function <handle> <name>\n
//   var <handle> <name>\n
//
// Nothing here runs device code or needs a GPU.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/private/registration/registered_fatbin.h"

static FILE* out;
static int handles;
static void* slots[4096];

// The record's path: the program's first argument, read from
// /proc/self/cmdline because constructors may run before any other code of
// ours; else $OFFLOAD_REGISTRATION_RECORD.
static char path_buf[4096];

static const char* RecordPath(void) {
  FILE* f = fopen("/proc/self/cmdline", "rb");
  if (f) {
    size_t n = fread(path_buf, 1, sizeof path_buf - 1, f);
    fclose(f);
    path_buf[n] = 0;
    size_t first = strlen(path_buf);
    if (first + 1 < n) return path_buf + first + 1;
  }
  const char* env = getenv("OFFLOAD_REGISTRATION_RECORD");
  return env ? env : "registration.record";
}

static FILE* Out(void) {
  if (!out) {
    const char* path = RecordPath();
    out = fopen(path, "wb");
    if (!out) {
      perror("offload registration recorder");
      exit(3);
    }
    fputs("offload-registration-record 1\n", out);
  }
  return out;
}

static void** NewHandle(void) {
  if (handles >= (int)(sizeof slots / sizeof slots[0])) {
    fputs("offload registration recorder: too many fat binaries\n", stderr);
    exit(3);
  }
  return &slots[handles++];
}

static int HandleOf(void** h) { return h >= slots && h < slots + handles ? (int)(h - slots) : -1; }

static void Blob(void** h, const char* kind, uint32_t magic, const unsigned char* data, size_t size) {
  fprintf(Out(), "fatbin %d %s 0x%x %zu\n", HandleOf(h), kind, magic, size);
  fwrite(data, 1, size, Out());
  fputc('\n', Out());
  fflush(Out());
}

static void** Fatbin(const char* kind, uint32_t magic, const unsigned char* data, size_t size) {
  void** h = NewHandle();
  Blob(h, kind, magic, data, size);
  return h;
}

static void Named(const char* what, void** h, const char* name) {
  fprintf(Out(), "%s %d %s\n", what, HandleOf(h), name ? name : "");
  fflush(Out());
}

// CUDA.
void** __cudaRegisterFatBinary(const struct FatbinWrapper* w) {
  return Fatbin("cuda", (uint32_t)w->magic, w->data, FatbinSize(w->data));
}
void __cudaRegisterFatBinaryEnd(void** h) { (void)h; }
void __cudaUnregisterFatBinary(void** h) { (void)h; }
void __cudaRegisterFunction(void** h, const char* host, char* device_function, const char* device_name, int limit,
                            void* tid, void* bid, void* block, void* grid, int* wsize) {
  Named("function", h, device_name);
}
void __cudaRegisterVar(void** h, char* host_var, char* device_address, const char* device_name, int ext,
                       size_t size, int constant, int global) {
  Named("var", h, device_name);
}
void __cudaRegisterManagedVar(void** h, void** host_var, char* device_address, const char* device_name, int ext,
                              size_t size, int constant, int global) {
  Named("var", h, device_name);
}
void __cudaRegisterSurface(void** h, const void* host_var, const void** device_address, const char* device_name,
                           int dim, int ext) {
  Named("var", h, device_name);
}
void __cudaRegisterTexture(void** h, const void* host_var, const void** device_address, const char* device_name,
                           int dim, int norm, int ext) {
  Named("var", h, device_name);
}
char __cudaInitModule(void** h) { return 0; }

// HIP.
void** __hipRegisterFatBinary(const struct FatbinWrapper* w) {
  return Fatbin("hip", (uint32_t)w->magic, w->data, BundleSize(w->data));
}
void __hipUnregisterFatBinary(void** h) { (void)h; }
void __hipRegisterFunction(void** h, const void* host, char* device_function, const char* device_name,
                           unsigned int limit, void* tid, void* bid, void* block, void* grid, int* wsize) {
  Named("function", h, device_name);
}
void __hipRegisterVar(void** h, void* var, char* host_var, char* device_var, int ext, size_t size, int constant,
                      int global) {
  Named("var", h, device_var);
}
void __hipRegisterManagedVar(void* h, void** pointer, void* init_value, const char* name, size_t size,
                             unsigned align) {
  Named("var", (void**)h, name);
}
void __hipRegisterSurface(void** h, void* var, char* host_var, char* device_var, int type, int ext) {
  Named("var", h, device_var);
}
void __hipRegisterTexture(void** h, void* var, char* host_var, char* device_var, int type, int norm, int ext) {
  Named("var", h, device_var);
}

// libomptarget. Offload entries come in two layouts: LLVM 20's (reserved
// 0, version 1, kind, flags, address, name, size, data, aux: 56 bytes)
// and the legacy one (address, name, size, flags, data: 32 bytes), whose
// first field is an address, never 0.
struct __tgt_device_image {
  const unsigned char* image_start;
  const unsigned char* image_end;
  const unsigned char* entries_begin;
  const unsigned char* entries_end;
};
struct __tgt_bin_desc {
  int32_t num_device_images;
  struct __tgt_device_image* device_images;
  const unsigned char* host_entries_begin;
  const unsigned char* host_entries_end;
};

static void Entries(void** h, const unsigned char* p, const unsigned char* end) {
  int modern = end - p >= 56 && Read64(p) == 0 && p[8] == 1 && p[9] == 0;
  size_t stride = modern ? 56 : 32;
  for (; end - p >= (ptrdiff_t)stride; p += stride) {
    const char* name;
    uint64_t size;
    uint32_t flags;
    if (modern) {
      memcpy(&flags, p + 12, 4);
      memcpy(&name, p + 24, sizeof name);
      size = Read64(p + 32);
    } else {
      memcpy(&name, p + 8, sizeof name);
      size = Read64(p + 16);
      memcpy(&flags, p + 24, 4);
    }
    // 0x10: OMP_REGISTER_REQUIRES, a flag word, not a symbol.
    if (flags & 0x10) continue;
    Named(size == 0 ? "function" : "var", h, name);
  }
}

void __tgt_register_lib(struct __tgt_bin_desc* desc) {
  // One handle for the library: its images are the targets of one unit.
  void** h = NewHandle();
  for (int i = 0; i < desc->num_device_images; i++) {
    const struct __tgt_device_image* img = &desc->device_images[i];
    Blob(h, "openmp", 0, img->image_start, (size_t)(img->image_end - img->image_start));
  }
  Entries(h, desc->host_entries_begin, desc->host_entries_end);
}
void __tgt_unregister_lib(struct __tgt_bin_desc* desc) { (void)desc; }
void __tgt_register_requires(int64_t flags) { (void)flags; }

int __wrap_main(void) {
  Out();
  fclose(out);
  return 0;
}

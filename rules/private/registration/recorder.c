// The recording stand-in of the offload runtimes that
// offload_registration_test links a program's offload libraries against,
// in place of the HIP runtime, the CUDA runtime (static or shared; CUDA
// 11.8 to 13) and libomptarget. Only the registration constructors run:
// they call the functions below, which write what is registered to the
// file named by the program's first argument; then __wrap_main, which
// -Wl,--wrap=main makes the C runtime call instead of the program's main,
// ends the record and exits. `offload regcheck` reads the record:
//
//   offload-registration-record 2
//   fatbin <handle> <kind> <magic> <size>\n<size bytes>\n   (OpenMP: one per image, same handle)
//   function <handle> <name>\n
//   var <handle> <name>\n
//   end <count>\n   (count: the lines above, after the first)
//
// A record without its end line is one the program did not finish (a
// crash, a full disk): the reader refuses it. Every write is checked, and
// any failure exits with status 3, naming it. Sizes and names come from
// the program's memory and are read only within the loaded segment that
// holds them (ReadableFrom).
//
// Nothing here runs device code or needs a GPU.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/private/registration/registered_fatbin.h"

static FILE* out;
static int handles;
static void* slots[4096];
static unsigned long lines;  // written after the first, for the end line

// maxName bounds a registered name: the reader's longest line.
enum { maxName = 60 << 10 };

// Fail reports why the record cannot be written and exits: the action
// that runs the program fails, naming the problem.
static void Fail(const char* format, ...) {
  va_list args;
  va_start(args, format);
  fputs("offload registration recorder: ", stderr);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
  exit(3);
}

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

// Check exits unless everything written so far reached the file: a full
// disk shows at the flush, not at the write into stdio's buffer.
static void Check(void) {
  if (fflush(out) != 0 || ferror(out)) Fail("writing %s: %s", RecordPath(), strerror(errno));
}

static FILE* Out(void) {
  if (!out) {
    const char* path = RecordPath();
    out = fopen(path, "wb");
    if (!out) Fail("opening %s: %s", path, strerror(errno));
    fputs("offload-registration-record 2\n", out);
    Check();
  }
  return out;
}

static void** NewHandle(void) {
  if (handles >= (int)(sizeof slots / sizeof slots[0])) Fail("too many fat binaries");
  return &slots[handles++];
}

static int HandleOf(void** h) { return h >= slots && h < slots + handles ? (int)(h - slots) : -1; }

// Bytes checks that size bytes from data lie in the program's loaded data.
static void Bytes(const char* what, const unsigned char* data, size_t size) {
  if (size > 0 && ReadableFrom(data) < size)
    Fail("%s of %zu bytes at %p is not within the program's loaded data", what, size, (const void*)data);
}

static void Blob(void** h, const char* kind, uint32_t magic, const unsigned char* data, size_t size) {
  Bytes("a registered image", data, size);
  fprintf(Out(), "fatbin %d %s 0x%x %zu\n", HandleOf(h), kind, magic, size);
  fwrite(data, 1, size, out);
  fputc('\n', out);
  lines++;
  Check();
}

static void** Fatbin(const char* kind, uint32_t magic, const unsigned char* data, size_t size) {
  void** h = NewHandle();
  Blob(h, kind, magic, data, size);
  return h;
}

// RegisteredSize is the size of the fat binary a HIP or CUDA wrapper
// points at, from its header (size, read within avail bytes).
static size_t RegisteredSize(const char* kind, const struct FatbinWrapper* w,
                             size_t (*size)(const unsigned char*, size_t, const char**)) {
  if (ReadableFrom(w) < sizeof *w) Fail("a %s fat binary wrapper at %p is not within the program's loaded data", kind, (const void*)w);
  size_t avail = ReadableFrom(w->data);
  if (avail == 0) Fail("the %s fat binary at %p is not within the program's loaded data", kind, (const void*)w->data);
  const char* why = NULL;
  size_t n = size(w->data, avail, &why);
  if (why) Fail("the %s fat binary at %p: %s", kind, (const void*)w->data, why);
  return n;
}

// Named records a registered name, which must end within the program's
// loaded data and fit on one line of the record.
static void Named(const char* what, void** h, const char* name) {
  if (!name) name = "";
  size_t room = ReadableFrom(name), most = room < maxName ? room : maxName;
  size_t n = strnlen(name, most);
  if (room == 0) Fail("a %s name at %p is not within the program's loaded data", what, (const void*)name);
  if (n == most) Fail("a %s name at %p does not end within the program's loaded data or %d bytes", what, (const void*)name, maxName);
  if (memchr(name, '\n', n)) Fail("a %s name holds a newline: %.80s", what, name);
  fprintf(Out(), "%s %d %.*s\n", what, HandleOf(h), (int)n, name);
  lines++;
  Check();
}

// CUDA.
void** __cudaRegisterFatBinary(const struct FatbinWrapper* w) {
  return Fatbin("cuda", (uint32_t)w->magic, w->data, RegisteredSize("cuda", w, FatbinSize));
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

// The rest of what libcudart_static.a defines for generated code (CUDA
// 11.8 to 13.0), so that no call of a program linked here jumps to an
// unresolved address. Accepted, not recorded: __cudaRegisterHostVar
// registers a host variable, not device code's; the table of CUDA 13's
// __cudaRegisterUnifiedTable has no documented layout. The launch entry
// points refuse, so a launch from a constructor launches nothing:
// <<<...>>> skips the call when the push fails, and cudafe++'s stubs
// return when the pop or __cudaGetKernel fails.
struct Dim3 {
  unsigned x, y, z;
};
void __cudaRegisterHostVar(void** h, const char* device_name, char* host_var, size_t size) { (void)h; }
void __cudaRegisterUnifiedTable(void* table, void* a, void* b, void* c, void* d) { (void)table; }
unsigned __cudaPushCallConfiguration(struct Dim3 grid, struct Dim3 block, size_t shared, void* stream) { return 1; }
int __cudaPopCallConfiguration(struct Dim3* grid, struct Dim3* block, size_t* shared, void* stream) { return 1; }
int __cudaGetKernel(void** kernel, const void* function) { return 1; }
int __cudaLaunchKernel(const void* f, struct Dim3 grid, struct Dim3 block, void** args, size_t shared, void* stream) {
  return 1;
}
int __cudaLaunchKernel_ptsz(const void* f, struct Dim3 grid, struct Dim3 block, void** args, size_t shared,
                            void* stream) {
  return 1;
}

// HIP.
void** __hipRegisterFatBinary(const struct FatbinWrapper* w) {
  return Fatbin("hip", (uint32_t)w->magic, w->data, RegisteredSize("hip", w, BundleSize));
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
  if (end < p) Fail("offload entries end before they begin");
  Bytes("the offload entries", p, (size_t)(end - p));
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
  if (ReadableFrom(desc) < sizeof *desc) Fail("an offload descriptor at %p is not within the program's loaded data", (void*)desc);
  if (desc->num_device_images < 0 ||
      ReadableFrom(desc->device_images) / sizeof *desc->device_images < (size_t)desc->num_device_images)
    Fail("the %d device images of an offload descriptor are not within the program's loaded data",
         desc->num_device_images);
  for (int i = 0; i < desc->num_device_images; i++) {
    const struct __tgt_device_image* img = &desc->device_images[i];
    if (img->image_end < img->image_start) Fail("device image %d ends before it begins", i);
    Blob(h, "openmp", 0, img->image_start, (size_t)(img->image_end - img->image_start));
  }
  Entries(h, desc->host_entries_begin, desc->host_entries_end);
}
void __tgt_unregister_lib(struct __tgt_bin_desc* desc) { (void)desc; }
void __tgt_register_requires(int64_t flags) { (void)flags; }

int __wrap_main(void) {
  fprintf(Out(), "end %lu\n", lines);
  Check();
  if (fclose(out) != 0) Fail("closing %s: %s", RecordPath(), strerror(errno));
  return 0;
}

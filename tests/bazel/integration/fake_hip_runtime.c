/* A stand-in for the HIP runtime's registration entry points, so the
   registration code offload_wrapper generates can run on a machine without
   a GPU: it checks what the constructor hands over (the wrapper struct
   clang emits, magic "HIPF", and the fat binary it points to) before main,
   and records every kernel registered with the handle it was registered
   against. Each test says what it expects:
     EXPECT_ENTRIES  (-D) the bundle entry IDs, comma-separated
     EXPECT_ELF      (-D) how many of them are ELF code objects
     argv[1]         a file naming the program's kernels (device-side names,
                     one a line, as clang-22 compiles them from the sources:
                     BUILD.bazel's kernel_names); without it the program
                     must register no kernel (a fat binary without host code)
   Every kernel must be registered exactly once, against the handle
   __hipRegisterFatBinary returned. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fatbin_wrapper {
  int32_t magic;
  int32_t version;
  const void *data;
  void *reserved;
};

static int registrations;
static char ids[8][64];
static uint64_t sizes[8];
static int nids;
static int elf_payloads;
static void *handle[1];
static char kernels[8][128];
static int nkernels, foreign_handles;

static uint64_t u64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

void **__hipRegisterFatBinary(void *w) {
  const struct fatbin_wrapper *fw = w;
  const unsigned char *b = fw->data;
  if (fw->magic != 0x48495046 || fw->version != 1) {
    fprintf(stderr, "bad fat binary wrapper: magic %#x version %d\n", fw->magic, fw->version);
    exit(2);
  }
  if (((uintptr_t)b & 4095) != 0) fprintf(stderr, "note: fat binary not 4096-aligned\n");
  if (memcmp(b, "__CLANG_OFFLOAD_BUNDLE__", 24) != 0) {
    fprintf(stderr, "the wrapper does not point at an offload bundle\n");
    exit(2);
  }
  uint64_t n = u64(b + 24);
  const unsigned char *e = b + 32;
  for (uint64_t i = 0; i < n && nids < 8; i++) {
    uint64_t off = u64(e), size = u64(e + 8), len = u64(e + 16);
    if (len >= sizeof ids[0]) exit(3);
    memcpy(ids[nids], e + 24, len);
    sizes[nids] = size;
    if (size >= 4 && memcmp(b + off, "\177ELF", 4) == 0) elf_payloads++;
    nids++;
    e += 24 + len;
  }
  registrations++;
  return handle;
}

void __hipUnregisterFatBinary(void **h) { (void)h; }
int __hipRegisterFunction(void **h, void *f, void *n, void *d, int t, void *a, void *b, void *c, void *g, void *s) {
  (void)f, (void)n, (void)t, (void)a, (void)b, (void)c, (void)g, (void)s;
  if (h != handle) foreign_handles++;
  if (nkernels == 8) fprintf(stderr, "more than 8 kernels registered\n"), exit(3);
  snprintf(kernels[nkernels++], sizeof kernels[0], "%s", (const char *)d);
  return 0;
}
void __hipRegisterVar(void **h, void *v, void *n, void *d, int e, size_t s, int c, int g) {
  (void)h, (void)v, (void)n, (void)d, (void)e, (void)s, (void)c, (void)g;
}
void __hipRegisterManagedVar(void **h, void *a, void *b, void *n, size_t s, int al) {
  (void)h, (void)a, (void)b, (void)n, (void)s, (void)al;
}
void __hipRegisterSurface(void **h, void *v, void *n, void *d, int t, int e) {
  (void)h, (void)v, (void)n, (void)d, (void)t, (void)e;
}
void __hipRegisterTexture(void **h, void *v, void *n, void *d, int t, int nm, int e) {
  (void)h, (void)v, (void)n, (void)d, (void)t, (void)nm, (void)e;
}

static int has(const char *id) {
  for (int i = 0; i < nids; i++)
    if (strcmp(ids[i], id) == 0) return 1;
  return 0;
}

/* How many kernels named name were registered. */
static int registered_kernel(const char *name) {
  int n = 0;
  for (int i = 0; i < nkernels; i++) n += strcmp(kernels[i], name) == 0;
  return n;
}

static int has_kernel(const char *name) { return registered_kernel(name) == 1; }

/* Calls fn on each item of the comma-separated list; returns the count,
   or -1 when fn rejects one. */
static int each(const char *list, int (*fn)(const char *)) {
  char buf[1024];
  int n = 0;
  snprintf(buf, sizeof buf, "%s", list);
  for (char *item = strtok(buf, ","); item; item = strtok(NULL, ","), n++)
    if (!fn(item)) return fprintf(stderr, "missing: %s\n", item), -1;
  return n;
}

/* Checks the kernels named in path, one a line, against those registered;
   returns how many it named, or -1 when one was not registered once. */
static int expected_kernels(const char *path) {
  FILE *f = fopen(path, "r");
  char line[256];
  int n = 0;
  if (!f) return fprintf(stderr, "cannot read %s\n", path), -1;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (!line[0]) continue;
    n++;
    if (!has_kernel(line)) {
      fclose(f);
      return fprintf(stderr, "kernel %s registered %d times, want once\n", line, registered_kernel(line)), -1;
    }
  }
  fclose(f);
  if (n == 0) return fprintf(stderr, "%s names no kernel: the test would prove nothing\n", path), -1;
  return n;
}

int main(int argc, char **argv) {
  for (int i = 0; i < nids; i++) printf("registered entry %s (%llu bytes)\n", ids[i], (unsigned long long)sizes[i]);
  for (int i = 0; i < nkernels; i++) printf("registered kernel %s\n", kernels[i]);
  if (registrations != 1) return fprintf(stderr, "%d registrations before main, want 1\n", registrations), 1;
  if (each(EXPECT_ENTRIES, has) != nids) return fprintf(stderr, "unexpected entries\n"), 1;
  if (elf_payloads != EXPECT_ELF) return fprintf(stderr, "%d ELF code objects, want %d\n", elf_payloads, EXPECT_ELF), 1;
  int want = argc > 1 ? expected_kernels(argv[1]) : 0;
  if (want != nkernels) return fprintf(stderr, "%d kernels registered, want %d\n", nkernels, want), 1;
  if (foreign_handles) return fprintf(stderr, "%d kernels registered against another handle\n", foreign_handles), 1;
  printf("ok: the generated constructor registered the fat binary and its %d kernels before main\n", nkernels);
  return 0;
}

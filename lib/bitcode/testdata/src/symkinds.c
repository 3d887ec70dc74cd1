// Symbols of every linkage and visibility clang gives C code.
int g_def = 1;
int g_common; // common with -fcommon
extern int g_undef;
static int s_local = 2;
__attribute__((weak)) int g_weak = 3;
__attribute__((visibility("hidden"))) int g_hidden = 4;
__attribute__((visibility("protected"))) int g_prot = 5;
const int g_const = 6;
__thread int g_tls = 7;
__attribute__((used)) static int s_used = 8;
extern __attribute__((weak)) int g_extweak;
__attribute__((section("mysec"))) int g_sec = 9;

int f_def(void) { return g_undef + s_local + s_used + g_extweak; }
static int f_static(void) { return 1; }
__attribute__((weak)) int f_weak(void) { return f_static(); }
extern int f_undef(void);
int call_undef(void) { return f_undef(); }
int f_alias(void) __attribute__((alias("f_def")));
int f_walias(void) __attribute__((weak, alias("f_def")));
__attribute__((visibility("hidden"))) int f_hidden(void) { return 2; }
static int (*resolve(void))(void) { return f_def; }
int f_ifunc(void) __attribute__((ifunc("resolve")));
const char *str(void) { return "private string"; }

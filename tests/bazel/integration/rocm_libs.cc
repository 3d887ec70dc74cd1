// Host APIs of rocRAND and hipRAND from plain C++ (no GPU here: both report
// an error), and every shared library the loader mapped.
#include <hiprand/hiprand.h>
#include <link.h>
#include <rocrand/rocrand.h>

#include <cstdio>

static int PrintLoaded(struct dl_phdr_info* info, size_t, void*) {
  if (info->dlpi_name && info->dlpi_name[0]) std::printf("loaded %s\n", info->dlpi_name);
  return 0;
}

int main() {
  rocrand_generator roc;
  std::printf("rocrand_create_generator %d\n", static_cast<int>(rocrand_create_generator(&roc, ROCRAND_RNG_PSEUDO_DEFAULT)));
  hiprandGenerator_t hip;
  std::printf("hiprandCreateGenerator %d\n", static_cast<int>(hiprandCreateGenerator(&hip, HIPRAND_RNG_PSEUDO_DEFAULT)));
  dl_iterate_phdr(PrintLoaded, nullptr);
  return 0;
}

#define DEP_VALUE 3

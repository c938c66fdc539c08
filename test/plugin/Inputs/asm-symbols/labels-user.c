#include <stdio.h>
int next(int);
int main(int argc, char **argv) {
  printf("next=%d,%d\n", next(argc), next(argc + 5));
  return 0;
}

/* EXPECT(c): counts and reports a failed check without stopping, so one run
 * shows every failure; the test prints `failures` and exits non-zero. */
#ifndef KFENCE_TEST_EXPECT_H
#define KFENCE_TEST_EXPECT_H
#include <stdio.h>

static int failures;
#define EXPECT(c)                                                              \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "FAILED line %d: %s\n", __LINE__, #c);                   \
      failures++;                                                              \
    }                                                                          \
  } while (0)
#endif

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * KFENCE_OPTIONS="name=value:name=value,..." (':' or ',' between options).
 *
 * A value that cannot be honoured is a configuration error: the message
 * names the variable, the option and what it accepts, and the process exits
 * with status 1. Running on without the detector the user asked for would
 * hide the mistake; refusing to start shows it on the first run.
 */
#define _GNU_SOURCE
#include "kfence_internal.h"

#include <stdlib.h>
#include <string.h>

struct kfence_options kfence_opts = {
    .sample_interval = 100,
    .sample_rate = 0,
    .num_objects = 255,
    .side = KFENCE_SIDE_RANDOM,
};

enum option_kind { OPT_ULONG, OPT_BOOL, OPT_SIDE };

struct option_desc {
  const char *name;
  enum option_kind kind;
  unsigned long min, max;
  void *field;
};

/*
 * The ranges keep derived quantities in bounds: 2 * sample_rate - 1 must fit
 * the sampler's int32_t counters; (num_objects + 1) * 2 pages stay a sane mapping.
 */
static const struct option_desc options[] = {
    {"sample_interval", OPT_ULONG, 0, 86400000, &kfence_opts.sample_interval},
    {"sample_rate", OPT_ULONG, 0, 1ul << 30, &kfence_opts.sample_rate},
    {"num_objects", OPT_ULONG, 1, 65535, &kfence_opts.num_objects},
    {"side", OPT_SIDE, 0, 0, &kfence_opts.side},
    {"panic_on_warn", OPT_BOOL, 0, 1, &kfence_opts.panic_on_warn},
    {"debug", OPT_BOOL, 0, 1, &kfence_opts.debug},
    {"print_stats_at_exit", OPT_BOOL, 0, 1, &kfence_opts.print_stats_at_exit},
    {"print_objects_at_exit", OPT_BOOL, 0, 1, &kfence_opts.print_objects_at_exit},
};

static _Noreturn void bad_value(const struct option_desc *opt, const char *value,
                                int len) {
  fprintf(stderr, "kfence: KFENCE_OPTIONS: invalid value '%.*s' for %s: ", len,
          value, opt->name);
  switch (opt->kind) {
  case OPT_ULONG:
    fprintf(stderr, "expected an integer in [%lu, %lu]\n", opt->min, opt->max);
    break;
  case OPT_BOOL:
    fprintf(stderr, "expected 0 or 1\n");
    break;
  case OPT_SIDE:
    fprintf(stderr, "expected random, left or right\n");
    break;
  }
  exit(1);
}

static bool equals(const char *s, int len, const char *word) {
  return (size_t)len == strlen(word) && !memcmp(s, word, (size_t)len);
}

static void set_option(const struct option_desc *opt, const char *value,
                       int len) {
  if (opt->kind == OPT_SIDE) {
    enum kfence_side *side = opt->field;
    if (equals(value, len, "random"))
      *side = KFENCE_SIDE_RANDOM;
    else if (equals(value, len, "left"))
      *side = KFENCE_SIDE_LEFT;
    else if (equals(value, len, "right"))
      *side = KFENCE_SIDE_RIGHT;
    else
      bad_value(opt, value, len);
    return;
  }
  /* Digits only: strtoul would take signs, spaces and hex, and overflow. */
  unsigned long v = 0;
  if (len == 0)
    bad_value(opt, value, len);
  for (int i = 0; i < len; i++) {
    if (value[i] < '0' || value[i] > '9' || v > opt->max)
      bad_value(opt, value, len);
    v = v * 10 + (unsigned long)(value[i] - '0');
  }
  if (v < opt->min || v > opt->max)
    bad_value(opt, value, len);
  if (opt->kind == OPT_BOOL)
    *(bool *)opt->field = v;
  else
    *(unsigned long *)opt->field = v;
}

/* Parses in place without allocating: this can run inside malloc(). */
void kfence_parse_options(const char *text) {
  const size_t nr = sizeof(options) / sizeof(options[0]);
  while (text && *text) {
    int len = (int)strcspn(text, ":,");
    const char *eq = memchr(text, '=', (size_t)len);
    if (len == 0) {
      text++;
      continue;
    }
    if (!eq) {
      fprintf(stderr,
              "kfence: KFENCE_OPTIONS: '%.*s' is not of the form name=value\n",
              len, text);
      exit(1);
    }
    int name_len = (int)(eq - text);
    size_t i;
    for (i = 0; i < nr; i++)
      if (equals(text, name_len, options[i].name))
        break;
    if (i == nr) {
      fprintf(stderr, "kfence: KFENCE_OPTIONS: unknown option '%.*s'; known:",
              name_len, text);
      for (i = 0; i < nr; i++)
        fprintf(stderr, " %s", options[i].name);
      fputc('\n', stderr);
      exit(1);
    }
    set_option(&options[i], eq + 1, len - name_len - 1);
    text += len;
  }
}

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * KFENCE_OPTIONS="name=value:name=value,..." (':' or ',' between options).
 *
 * A value that cannot be honoured is a configuration error: the message
 * names the variable, the option and what it accepts, and the process exits
 * with status 1. Running on without the detector the user asked for would
 * hide the mistake; refusing to start shows it on the first run.
 *
 * In secure mode (AT_SECURE: a setuid, setgid or file-capability program)
 * the variable is the caller's, who must not get a root process to write a
 * file or show more of itself than its reports on stderr do: a value above
 * its option's secure bound (options.inc) is ignored, and the options
 * ignored are named once on stderr. glibc drops its own MALLOC_* variables
 * there silently; naming them tells a user why KFENCE behaves otherwise
 * than asked, and the names are the caller's own input.
 */
#define _GNU_SOURCE
#include "kfence_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

struct kfence_options kfence_opts = {
#define KFENCE_OPTION(type, name, def, min, max, secure, desc) .name = def,
#include "options.inc"
};

enum option_kind { OPT_ulong, OPT_bool, OPT_side, OPT_path };

struct option_desc {
  const char *name;
  enum option_kind kind;
  unsigned long min, max;
  unsigned long secure; /* the largest value honoured in secure mode */
  void *field;
};

static const struct option_desc options[] = {
#define KFENCE_OPTION(type, name, def, min, max, secure, desc)                 \
  {#name, OPT_##type, min, max, secure, &kfence_opts.name},
#include "options.inc"
};
#define NR_OPTIONS (sizeof(options) / sizeof(options[0]))

/* Options whose value secure mode ignored, one bit each, in list order. */
static unsigned long ignored;
_Static_assert(NR_OPTIONS <= 8 * sizeof(ignored), "one bit per option");

/* In secure mode, a value above the option's bound is ignored. */
static bool honoured(const struct option_desc *opt, unsigned long value,
                     bool secure) {
  if (!secure || value <= opt->secure)
    return true;
  ignored |= 1ul << (opt - options);
  return false;
}

static _Noreturn void bad_value(const struct option_desc *opt, const char *value,
                                int len) {
  fprintf(stderr, "kfence: KFENCE_OPTIONS: invalid value '%.*s' for %s: ", len,
          value, opt->name);
  switch (opt->kind) {
  case OPT_ulong:
    fprintf(stderr, "expected an integer in [%lu, %lu]\n", opt->min, opt->max);
    break;
  case OPT_bool:
    fprintf(stderr, "expected 0 or 1\n");
    break;
  case OPT_side:
    fprintf(stderr, "expected random, left or right\n");
    break;
  case OPT_path:
    fprintf(stderr, "expected a file name prefix of 1 to %lu bytes\n",
            opt->max);
    break;
  }
  exit(1);
}

static bool equals(const char *s, int len, const char *word) {
  return (size_t)len == strlen(word) && !memcmp(s, word, (size_t)len);
}

static void set_option(const struct option_desc *opt, const char *value,
                       int len, bool secure) {
  if (opt->kind == OPT_path) {
    if (len == 0 || (unsigned long)len > opt->max)
      bad_value(opt, value, len);
    if (!honoured(opt, (unsigned long)len, secure))
      return;
    memcpy(opt->field, value, (size_t)len);
    ((char *)opt->field)[len] = '\0';
    return;
  }
  if (opt->kind == OPT_side) {
    enum kfence_side side;
    if (equals(value, len, "random"))
      side = KFENCE_SIDE_RANDOM;
    else if (equals(value, len, "left"))
      side = KFENCE_SIDE_LEFT;
    else if (equals(value, len, "right"))
      side = KFENCE_SIDE_RIGHT;
    else
      bad_value(opt, value, len);
    if (honoured(opt, side, secure))
      *(enum kfence_side *)opt->field = side;
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
  if (!honoured(opt, v, secure))
    return;
  if (opt->kind == OPT_bool)
    *(bool *)opt->field = v;
  else
    *(unsigned long *)opt->field = v;
}

#define IGNORED_PREFIX                                                         \
  "kfence: KFENCE_OPTIONS: ignored in secure mode (setuid, setgid or file "   \
  "capabilities):"
/* " name" for every option: the most the line can list. */
typedef char all_names[sizeof(""
#define KFENCE_OPTION(type, name, def, min, max, secure, desc) " " #name
#include "options.inc"
                              )];

/* Names the options secure mode ignored, in one write(): no stdio, which
 * may allocate. */
static void say_ignored(void) {
  char line[sizeof(IGNORED_PREFIX) + sizeof(all_names)];
  size_t len = sizeof(IGNORED_PREFIX) - 1;
  memcpy(line, IGNORED_PREFIX, len);
  for (size_t i = 0; i < NR_OPTIONS; i++) {
    if (!(ignored & (1ul << i)))
      continue;
    line[len++] = ' ';
    memcpy(line + len, options[i].name, strlen(options[i].name));
    len += strlen(options[i].name);
  }
  line[len++] = '\n';
  write(STDERR_FILENO, line, len);
}

/* Parses in place without allocating: this can run inside malloc(). */
static void parse_options(const char *text, bool secure) {
  const size_t nr = NR_OPTIONS;
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
    set_option(&options[i], eq + 1, len - name_len - 1, secure);
    text += len;
  }
  if (ignored)
    say_ignored();
}

/*
 * In secure mode the variable is also removed, so that a program this one
 * starts after making its real user id root (a setuid wrapper), no longer
 * in secure mode, does not honour what the caller wrote: glibc's loader
 * removes its own MALLOC_* variables for the same reason. unsetenv() takes
 * the C library's environment lock, which no allocation holds: this runs in
 * a constructor, or in a hook that program code called.
 */
void kfence_read_options(void) {
  bool secure = getauxval(AT_SECURE) != 0;
  parse_options(getenv("KFENCE_OPTIONS"), secure);
  if (secure)
    unsetenv("KFENCE_OPTIONS");
}

/*===- klto-asm-rewrite.c - run the module-asm rewriter from the shell ----===*
 *
 * Lets tests and people see exactly what the plugin would do to a piece of
 * module asm without building IR around it:
 *
 *   klto-asm-rewrite [-t triple] [-m modname] [-T table] [-n]
 *                    [-f local_fn] [-F global_fn] [-d local_data]
 *                    [-D global_data] [-c chunk_line]... < input.s
 *   klto-asm-rewrite --help | --version
 *
 * Each -c splits the input at the next line that is exactly "#chunk" and
 * gives the chunk its source line. Prints the rewritten asm on stdout and
 * the rewriter's events (entries, stubs, renamed labels, diagnostics) on
 * stderr, one per line.
 *===----------------------------------------------------------------------===*/
#include "klto/asmrewrite.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMES 64

struct names {
  const char *v[MAX_NAMES];
  size_t n;
};

struct ctx {
  struct names local_fn, global_fn, local_data, global_data;
};

static bool has(const struct names *s, struct klto_str name) {
  for (size_t i = 0; i < s->n; ++i)
    if (strlen(s->v[i]) == name.n && !memcmp(s->v[i], name.p, name.n))
      return true;
  return false;
}

static enum klto_sym_class classify(void *p, struct klto_str name) {
  struct ctx *c = p;
  if (has(&c->local_fn, name))
    return KLTO_SYM_LOCAL_FUNC;
  if (has(&c->global_fn, name))
    return KLTO_SYM_GLOBAL_FUNC;
  if (has(&c->local_data, name))
    return KLTO_SYM_LOCAL_DATA;
  if (has(&c->global_data, name))
    return KLTO_SYM_GLOBAL_DATA;
  return KLTO_SYM_UNKNOWN;
}

static void need_stub(void *p, struct klto_str target, const char *stub,
                      bool is_data) {
  (void)p;
  fprintf(stderr, "%s %.*s -> %s\n", is_data ? "alias" : "stub",
          (int)target.n, target.p, stub);
}

static void entry(void *p, const struct klto_asm_entry *e) {
  (void)p;
  fprintf(stderr, "entry %.*s level=%.*s fn=%.*s counter=%llu line=%llu "
                  "section=%s label=%s stub=%s\n",
          (int)e->table.n, e->table.p, (int)e->level.n, e->level.p,
          (int)e->fn.n, e->fn.p, e->counter, e->line, e->section,
          e->label ? e->label : "-", e->stub ? e->stub : "-");
}

static void label_renamed(void *p, struct klto_str old, const char *new_name,
                          unsigned long long line) {
  (void)p;
  fprintf(stderr, "label %.*s -> %s (line %llu)\n", (int)old.n, old.p,
          new_name, line);
}

static void diag(void *p, enum klto_diag_level level, size_t chunk,
                 const char *msg) {
  (void)p;
  static const char *const names[] = {"remark", "warning", "error"};
  fprintf(stderr, "%s: chunk %zu: %s\n", names[level], chunk, msg);
}

static int add(struct names *s, const char *v) {
  if (s->n == MAX_NAMES) {
    fprintf(stderr, "klto-asm-rewrite: at most %d names per option\n",
            MAX_NAMES);
    return 1;
  }
  s->v[s->n++] = v;
  return 0;
}

static const char usage[] =
    "usage: klto-asm-rewrite [options] < input.s\n"
    "Rewrites module asm as klto's plugin would: the asm on stdout, what was\n"
    "done (entries, stubs, renamed labels, diagnostics) on stderr.\n"
    "  -t <triple>   target (default x86_64-linux-gnu)\n"
    "  -m <modname>  module name for entry ids (default kmod_test)\n"
    "  -T <section>  one more table besides Linux's initcall tables\n"
    "  -n            no stubs: leave references to statics as they are\n"
    "  -f <name>     a static function of the translation unit\n"
    "  -F <name>     a global function\n"
    "  -d <name>     static data\n"
    "  -D <name>     global data\n"
    "  -c <line>     split the input at the next \"#chunk\" line; the chunk\n"
    "                starts at source line <line> (repeatable)\n"
    "  --help        print this and exit\n"
    "  --version     print the version and exit\n";

int main(int argc, char **argv) {
  static const struct option long_options[] = {
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0}};
  struct ctx c = {0};
  const char *triple = "x86_64-linux-gnu", *modname = "kmod_test";
  const char *tables[MAX_NAMES];
  unsigned long long lines[MAX_NAMES];
  size_t n_tables = 0, n_lines = 0;
  bool stubs = true;
  int opt, bad = 0;
  while ((opt = getopt_long(argc, argv, "t:m:T:nf:F:d:D:c:", long_options,
                            NULL)) != -1) {
    switch (opt) {
    case 'h': fputs(usage, stdout); return 0;
    case 'V': printf("klto-asm-rewrite (klto %s)\n", KLTO_VERSION); return 0;
    case 't': triple = optarg; break;
    case 'm': modname = optarg; break;
    case 'T':
      if (n_tables == MAX_NAMES) {
        fprintf(stderr, "klto-asm-rewrite: at most %d tables (-T)\n",
                MAX_NAMES);
        return 2;
      }
      tables[n_tables++] = optarg;
      break;
    case 'n': stubs = false; break;
    case 'f': bad |= add(&c.local_fn, optarg); break;
    case 'F': bad |= add(&c.global_fn, optarg); break;
    case 'd': bad |= add(&c.local_data, optarg); break;
    case 'D': bad |= add(&c.global_data, optarg); break;
    case 'c':
      if (n_lines == MAX_NAMES) {
        fprintf(stderr, "klto-asm-rewrite: at most %d chunks (-c)\n",
                MAX_NAMES);
        return 2;
      }
      lines[n_lines++] = strtoull(optarg, NULL, 10);
      break;
    default: bad = 1;
    }
  }
  if (bad || optind != argc) {
    fputs(usage, stderr);
    return 2;
  }

  size_t len = 0, cap = 1 << 16;
  char *text = malloc(cap);
  for (size_t r; text && (r = fread(text + len, 1, cap - len, stdin)) > 0;) {
    len += r;
    if (len == cap)
      text = realloc(text, cap *= 2);
  }
  if (!text) {
    fprintf(stderr, "klto-asm-rewrite: out of memory\n");
    return 1;
  }

  struct klto_tables tabs = {tables, n_tables};
  struct klto_asm_options o = {klto_asm_dialect_for_triple(triple),
                               klto_str_c(modname), &tabs, stubs};
  struct klto_asm_hooks h = {&c, classify, need_stub, entry, label_renamed,
                             diag};
  struct klto_asm_rewriter *rw = klto_asm_rewriter_new(&o, &h);
  unsigned long long counter = 0;
  size_t begin = 0;
  static const char marker[] = "#chunk\n";
  for (size_t k = 0; k < n_lines || begin < len; ++k) {
    size_t end = len;
    if (k + 1 < n_lines) {
      const char *m = NULL;
      for (size_t i = begin; i + sizeof(marker) - 1 <= len; ++i)
        if ((i == 0 || text[i - 1] == '\n') &&
            !memcmp(text + i, marker, sizeof(marker) - 1)) {
          m = text + i;
          break;
        }
      end = m ? (size_t)(m - text) + sizeof(marker) - 1 : len;
    }
    klto_asm_rewriter_add_chunk(rw, text + begin, end - begin,
                                k < n_lines ? lines[k] : 0, &counter);
    begin = end;
    if (k + 1 >= n_lines && begin >= len)
      break;
  }
  struct klto_buf out = {0};
  long edits = klto_asm_rewriter_finish(rw, &out);
  if (edits < 0) {
    fprintf(stderr, "klto-asm-rewrite: out of memory\n");
    return 1;
  }
  fwrite(out.p, 1, out.n, stdout);
  fprintf(stderr, "edits %ld\n", edits);
  klto_buf_free(&out);
  klto_asm_rewriter_free(rw);
  free(text);
  return 0;
}

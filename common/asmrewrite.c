/*===- asmrewrite.c - makes module asm safe for LTO -----------------------===*
 *
 * See klto/asmrewrite.h for what is rewritten. Works in two phases because
 * neither can be decided statement by statement: whether a label is local to
 * the translation unit needs every chunk's `.globl`s, and an entry's id needs
 * the function its section block registers, which follows the `.section`.
 *   add_chunk: lex, split statements, track the current section, record every
 *              token that may change (a "site") and every entry block.
 *   finish:    decide the new names, then copy the text with the sites
 *              replaced.
 *===----------------------------------------------------------------------===*/
#include "klto/asmrewrite.h"

#include "klto/asmsections.h"
#include "klto/strmap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum site_kind {
  SITE_EXPR,      /* a name in an operand: label rename, stub or alias */
  SITE_NAME_ONLY, /* a name in .globl/.type/...: label rename only */
  SITE_LABEL_DEF, /* a label or .set definition */
  SITE_SECTION,   /* the name operand of an entry's .section */
};

struct site {
  size_t chunk, begin, end; /* byte range within the chunk */
  enum site_kind kind;
  long entry;        /* entry block it lies in, or -1 */
  bool quoted;       /* SITE_SECTION: the name was a string literal */
  const char *repl;  /* decided in finish; NULL: unchanged */
};

struct entry {
  size_t chunk;
  struct klto_str table, level;
  long section_site, label_site, fn_site, first_site;
  unsigned long long counter, line;
  bool closed, valid;
  const char *section, *label, *stub;
};

struct chunk {
  const char *text;
  size_t len;
  unsigned long long line;
};

struct klto_asm_rewriter {
  const struct klto_asm_options *opts;
  const struct klto_asm_hooks *hooks;
  struct chunk *chunks;
  size_t n_chunks, cap_chunks;
  struct site *sites;
  size_t n_sites, cap_sites;
  struct entry *entries;
  size_t n_entries, cap_entries;
  struct klto_strmap labels;  /* label name -> its first SITE_LABEL_DEF */
  struct klto_strmap globals; /* names made global by .globl/.weak */
  char **strings;             /* every string finish() made, to free */
  size_t n_strings, cap_strings;
  /* Where the assembler is emitting, as the entry a section is (-1 for
   * other sections): only an entry block that is still open gives
   * statements to an entry. */
  struct klto_sections sections;
  bool oom;
};

/* Grows `*v` (of `*cap` elements of `size` bytes) to hold one more. */
static bool reserve(struct klto_asm_rewriter *rw, void **v, size_t *cap,
                    size_t n, size_t size) {
  if (n < *cap)
    return true;
  size_t ncap = *cap ? *cap * 2 : 16;
  void *p = realloc(*v, ncap * size);
  if (!p) {
    rw->oom = true;
    return false;
  }
  *v = p;
  *cap = ncap;
  return true;
}

static struct klto_str chunk_str(const struct klto_asm_rewriter *rw,
                                 size_t chunk, size_t begin, size_t end) {
  struct klto_str s = {rw->chunks[chunk].text + begin, end - begin};
  return s;
}

static struct klto_str site_str(const struct klto_asm_rewriter *rw,
                                const struct site *s) {
  return chunk_str(rw, s->chunk, s->begin, s->end);
}

static void diag(struct klto_asm_rewriter *rw, enum klto_diag_level level,
                 size_t chunk, const char *fmt, ...) {
  if (!rw->hooks->diag)
    return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  rw->hooks->diag(rw->hooks->ctx, level, chunk, msg);
}

static enum klto_sym_class classify(struct klto_asm_rewriter *rw,
                                    struct klto_str name) {
  return rw->hooks->classify ? rw->hooks->classify(rw->hooks->ctx, name)
                             : KLTO_SYM_UNKNOWN;
}

static bool is_func(enum klto_sym_class c) {
  return c == KLTO_SYM_LOCAL_FUNC || c == KLTO_SYM_GLOBAL_FUNC;
}

/* Makes a string owned by the rewriter; NULL (and oom) on failure. */
static const char *make_string(struct klto_asm_rewriter *rw, const char *fmt,
                               ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!s || !reserve(rw, (void **)&rw->strings, &rw->cap_strings,
                     rw->n_strings, sizeof(char *))) {
    free(s);
    rw->oom = true;
    return NULL;
  }
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  rw->strings[rw->n_strings++] = s;
  return s;
}

static long add_site(struct klto_asm_rewriter *rw, size_t chunk, size_t begin,
                     size_t end, enum site_kind kind) {
  if (!reserve(rw, (void **)&rw->sites, &rw->cap_sites, rw->n_sites,
               sizeof(struct site)))
    return -1;
  struct site *s = &rw->sites[rw->n_sites];
  s->chunk = chunk;
  s->begin = begin;
  s->end = end;
  s->kind = kind;
  long cur = rw->sections.cur;
  s->entry = cur >= 0 && !rw->entries[cur].closed ? cur : -1;
  s->quoted = false;
  s->repl = NULL;
  return (long)rw->n_sites++;
}

struct klto_asm_rewriter *
klto_asm_rewriter_new(const struct klto_asm_options *opts,
                      const struct klto_asm_hooks *hooks) {
  struct klto_asm_rewriter *rw = calloc(1, sizeof(*rw));
  if (!rw)
    return NULL;
  rw->opts = opts;
  rw->hooks = hooks;
  klto_sections_init(&rw->sections, -1, -1);
  return rw;
}

void klto_asm_rewriter_free(struct klto_asm_rewriter *rw) {
  if (!rw)
    return;
  for (size_t i = 0; i < rw->n_strings; ++i)
    free(rw->strings[i]);
  free(rw->strings);
  free(rw->chunks);
  free(rw->sites);
  free(rw->entries);
  klto_strmap_free(&rw->labels);
  klto_strmap_free(&rw->globals);
  free(rw);
}

void klto_buf_free(struct klto_buf *b) {
  free(b->p);
  memset(b, 0, sizeof(*b));
}

static bool buf_append(struct klto_buf *b, const char *p, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n + 1)
      cap *= 2;
    char *q = realloc(b->p, cap);
    if (!q)
      return false;
    b->p = q;
    b->cap = cap;
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
  b->p[b->n] = '\0';
  return true;
}

/*--- Phase 1: statements --------------------------------------------------*/

/* Directives other than the section ones (klto/asmsections.h). */
enum directive {
  DIR_NONE,     /* an instruction or data directive: operands are refs */
  DIR_GLOBAL,   /* .globl/.global/.weak: names become global */
  DIR_NAMES,    /* .hidden/.local/...: operands are names only */
  DIR_FIRST,    /* .type/.size: first operand a name, rest expressions */
  DIR_SET,      /* .set/.equ/.equiv/.eqv: first operand is defined */
  DIR_NOREFS,   /* operands hold no symbol references we may touch */
};

static const struct {
  const char *name;
  enum directive kind;
} directives[] = {
    {".globl", DIR_GLOBAL},
    {".global", DIR_GLOBAL},     {".weak", DIR_GLOBAL},
    {".hidden", DIR_NAMES},      {".protected", DIR_NAMES},
    {".internal", DIR_NAMES},    {".local", DIR_NAMES},
    {".type", DIR_FIRST},        {".size", DIR_FIRST},
    {".set", DIR_SET},           {".equ", DIR_SET},
    {".equiv", DIR_SET},         {".eqv", DIR_SET},
    {".file", DIR_NOREFS},       {".ident", DIR_NOREFS},
    {".macro", DIR_NOREFS},      {".endm", DIR_NOREFS},
    {".purgem", DIR_NOREFS},     {".include", DIR_NOREFS},
    {".incbin", DIR_NOREFS},     {".ascii", DIR_NOREFS},
    {".asciz", DIR_NOREFS},      {".string", DIR_NOREFS},
    {".loc", DIR_NOREFS},        {".symver", DIR_NOREFS},
    {".arch", DIR_NOREFS},       {".arch_extension", DIR_NOREFS},
    {".cpu", DIR_NOREFS},        {".fpu", DIR_NOREFS},
    {".syntax", DIR_NOREFS},     {".option", DIR_NOREFS},
    {".attribute", DIR_NOREFS},  {".intel_syntax", DIR_NOREFS},
    {".att_syntax", DIR_NOREFS}, {".code16", DIR_NOREFS},
    {".code32", DIR_NOREFS},     {".code64", DIR_NOREFS},
    {".irp", DIR_NOREFS},        {".irpc", DIR_NOREFS},
    {".error", DIR_NOREFS},      {".warning", DIR_NOREFS},
    {".print", DIR_NOREFS},      {".subsection", DIR_NOREFS},
};

static enum directive directive_kind(struct klto_str head) {
  if (!head.n || head.p[0] != '.')
    return DIR_NONE;
  for (size_t i = 0; i < sizeof(directives) / sizeof(directives[0]); ++i)
    if (strlen(directives[i].name) == head.n &&
        !strncasecmp(directives[i].name, head.p, head.n))
      return directives[i].kind;
  return DIR_NONE;
}

static bool punct_is(const char *text, const struct klto_token *t, char c) {
  return t->kind == KLTO_TOK_PUNCT && text[t->begin] == c;
}

static bool tok_is(const struct klto_asm_rewriter *rw, size_t chunk,
                   const struct klto_token *t, char c) {
  return punct_is(rw->chunks[chunk].text, t, c);
}

/* Closes the open entry block, if any: its registered function is known now. */
static void close_entry(struct klto_asm_rewriter *rw) {
  long idx = rw->sections.cur;
  if (idx < 0 || rw->entries[idx].closed)
    return;
  struct entry *e = &rw->entries[idx];
  e->closed = true;
  if (e->fn_site < 0)
    e->fn_site = e->first_site;
  if (e->fn_site < 0) {
    diag(rw, KLTO_DIAG_ERROR, e->chunk,
         "entry in table '%.*s' references no function, so it cannot be "
         "given a unique name; it was left unchanged and will not be ordered",
         (int)e->table.n, e->table.p);
    return;
  }
  e->valid = true;
  rw->sites[e->fn_site].entry = idx;
}

/* A section directive at toks[i]: an entry block opens when it names a
 * table, and any open one closes. */
static void section_statement(struct klto_asm_rewriter *rw, size_t chunk,
                              const struct klto_asm_stmt *st, size_t i,
                              enum klto_section_directive d,
                              unsigned long long line,
                              unsigned long long *counter) {
  close_entry(rw);
  struct klto_str name;
  size_t first, last;
  bool quoted;
  long named = -1;
  /* A name with escapes is not renamed: it is no entry of ours. */
  if (klto_section_name(rw->chunks[chunk].text, st, i + 1, d, &name, &first,
                        &last, &quoted) &&
      (d == KLTO_SECT_SECTION || d == KLTO_SECT_PUSH) &&
      !(quoted && memchr(name.p, '\\', name.n)) &&
      klto_is_table(rw->opts->tables, name) &&
      reserve(rw, (void **)&rw->entries, &rw->cap_entries, rw->n_entries,
              sizeof(struct entry))) {
    struct entry *e = &rw->entries[rw->n_entries];
    memset(e, 0, sizeof(*e));
    e->chunk = chunk;
    e->table = name;
    if (!klto_initcall_level(name, &e->level))
      e->level.n = 0;
    e->label_site = e->fn_site = e->first_site = -1;
    e->counter = (*counter)++;
    e->line = line;
    named = (long)rw->n_entries++;
  }
  klto_sections_apply(&rw->sections, d, named);
  if (named < 0)
    return;
  struct entry *e = &rw->entries[named];
  e->section_site = add_site(rw, chunk, st->toks[first].begin,
                             st->toks[last].end, SITE_SECTION);
  if (e->section_site >= 0)
    rw->sites[e->section_site].quoted = quoted;
}

/* True if the name at toks[i] is an operand name rather than a register,
 * relocation specifier (@PLT, :lo12:) or macro argument. */
static bool is_ref_position(const char *text, const struct klto_asm_stmt *st, size_t i) {
  const struct klto_token *t = &st->toks[i];
  if (t->end - t->begin == 1 && text[t->begin] == '.')
    return false;
  if (i > 0) {
    const struct klto_token *p = &st->toks[i - 1];
    /* Adjacent only: "% rax" is not a register. */
    if (p->end == t->begin &&
        (punct_is(text, p, '%') || punct_is(text, p, '@') ||
         punct_is(text, p, '\\')))
      return false;
    if (punct_is(text, p, ':') && i + 1 < st->n &&
        punct_is(text, &st->toks[i + 1], ':'))
      return false;
  }
  return true;
}

static void add_name_site(struct klto_asm_rewriter *rw, size_t chunk,
                          const struct klto_token *t, enum site_kind kind) {
  long idx = add_site(rw, chunk, t->begin, t->end, kind);
  if (idx < 0 || kind != SITE_EXPR)
    return;
  struct site *s = &rw->sites[idx];
  if (s->entry < 0)
    return;
  struct entry *e = &rw->entries[s->entry];
  if (e->first_site < 0)
    e->first_site = idx;
  if (e->fn_site < 0 && is_func(classify(rw, site_str(rw, s))))
    e->fn_site = idx;
}

static void add_label_def(struct klto_asm_rewriter *rw, size_t chunk,
                          const struct klto_token *t, bool entry_label) {
  long idx = add_site(rw, chunk, t->begin, t->end, SITE_LABEL_DEF);
  if (idx < 0)
    return;
  bool inserted;
  if (!klto_strmap_insert(&rw->labels, site_str(rw, &rw->sites[idx]), idx,
                          &inserted))
    rw->oom = true;
  long e = rw->sites[idx].entry;
  if (entry_label && e >= 0 && rw->entries[e].label_site < 0)
    rw->entries[e].label_site = idx;
}

static void operands(struct klto_asm_rewriter *rw, size_t chunk,
                     const struct klto_asm_stmt *st, size_t from, enum site_kind kind) {
  for (size_t i = from; i < st->n; ++i)
    if (st->toks[i].kind == KLTO_TOK_IDENT &&
        is_ref_position(rw->chunks[chunk].text, st, i))
      add_name_site(rw, chunk, &st->toks[i], kind);
}

struct label_ctx {
  struct klto_asm_rewriter *rw;
  size_t chunk;
};

static void statement_label(void *p, const struct klto_token *t) {
  struct label_ctx *lc = p;
  add_label_def(lc->rw, lc->chunk, t, true);
}

static void statement(struct klto_asm_rewriter *rw, size_t chunk,
                      const struct klto_asm_stmt *st, unsigned long long line,
                      unsigned long long *counter) {
  struct label_ctx lc = {rw, chunk};
  size_t i = klto_asm_labels(rw->chunks[chunk].text, st, statement_label, &lc);
  if (i >= st->n)
    return;
  const struct klto_token *head = &st->toks[i];
  if (head->kind != KLTO_TOK_IDENT) {
    operands(rw, chunk, st, i, SITE_EXPR);
    return;
  }
  if (i + 1 < st->n && tok_is(rw, chunk, &st->toks[i + 1], '=')) {
    add_label_def(rw, chunk, head, false);
    operands(rw, chunk, st, i + 2, SITE_EXPR);
    return;
  }
  struct klto_str hs = chunk_str(rw, chunk, head->begin, head->end);
  enum klto_section_directive sd = klto_section_directive(hs);
  if (sd != KLTO_SECT_NONE) {
    section_statement(rw, chunk, st, i, sd, line, counter);
    return;
  }
  switch (directive_kind(hs)) {
  case DIR_NONE:
    operands(rw, chunk, st, i + 1, SITE_EXPR);
    break;
  case DIR_GLOBAL:
    for (size_t k = i + 1; k < st->n; ++k) {
      const struct klto_token *t = &st->toks[k];
      if (t->kind != KLTO_TOK_IDENT)
        continue;
      bool inserted;
      if (!klto_strmap_insert(&rw->globals,
                              chunk_str(rw, chunk, t->begin, t->end), 0,
                              &inserted))
        rw->oom = true;
      add_name_site(rw, chunk, t, SITE_NAME_ONLY);
    }
    break;
  case DIR_NAMES:
    operands(rw, chunk, st, i + 1, SITE_NAME_ONLY);
    break;
  case DIR_FIRST:
    if (i + 1 < st->n && st->toks[i + 1].kind == KLTO_TOK_IDENT)
      add_name_site(rw, chunk, &st->toks[i + 1], SITE_NAME_ONLY);
    if (hs.n == 5 && !strncasecmp(hs.p, ".size", 5))
      operands(rw, chunk, st, i + 2, SITE_EXPR);
    break;
  case DIR_SET:
    if (i + 1 < st->n && st->toks[i + 1].kind == KLTO_TOK_IDENT)
      add_label_def(rw, chunk, &st->toks[i + 1], false);
    operands(rw, chunk, st, i + 2, SITE_EXPR);
    break;
  case DIR_NOREFS:
    break;
  }
}

struct chunk_ctx {
  struct klto_asm_rewriter *rw;
  size_t chunk;
  unsigned long long line, *counter;
};

static void chunk_statement(void *p, const struct klto_asm_stmt *st) {
  struct chunk_ctx *cc = p;
  statement(cc->rw, cc->chunk, st, cc->line, cc->counter);
}

void klto_asm_rewriter_add_chunk(struct klto_asm_rewriter *rw,
                                 const char *text, size_t len,
                                 unsigned long long line,
                                 unsigned long long *counter) {
  if (!reserve(rw, (void **)&rw->chunks, &rw->cap_chunks, rw->n_chunks,
               sizeof(struct chunk)))
    return;
  size_t chunk = rw->n_chunks++;
  rw->chunks[chunk] = (struct chunk){text, len, line};

  struct chunk_ctx cc = {rw, chunk, line, counter};
  if (!klto_asm_statements(text, len, rw->opts->dialect, chunk_statement,
                           &cc))
    rw->oom = true;
  /* An entry is one asm statement's worth: a block left open at the end of a
   * chunk (no .previous) ends there. */
  close_entry(rw);
}

/*--- Phase 2: names and output ---------------------------------------------*/

static void name_entry(struct klto_asm_rewriter *rw, struct entry *e) {
  const struct klto_asm_options *o = rw->opts;
  struct klto_str fn = site_str(rw, &rw->sites[e->fn_site]);
  char id[1024];
  size_t n = klto_format_id(id, sizeof(id), o->modname, e->counter, e->line, fn);
  if (n >= sizeof(id) || !klto_is_symbol_name(fn)) {
    diag(rw, KLTO_DIAG_ERROR, e->chunk,
         "cannot name the entry for '%.*s' in table '%.*s': the name is not "
         "a plain symbol or too long; it was left unchanged",
         (int)(fn.n > 64 ? 64 : fn.n), fn.p, (int)e->table.n, e->table.p);
    e->valid = false;
    return;
  }
  e->section = make_string(rw, "%.*s..%s", (int)e->table.n, e->table.p, id);
  /* Symbol and stub add a prefix and a level to the id, or the modname to
   * the function: both fit what the id's room allows. */
  char name[2 * sizeof(id) + 64];
  klto_format_entry_symbol(name, sizeof(name), klto_str_c(id), e->level);
  e->label = make_string(rw, "%s", name);
  if (o->stubs && classify(rw, fn) == KLTO_SYM_LOCAL_FUNC) {
    klto_format_stub(name, sizeof(name), klto_str_c(id), e->level, o->modname,
                     fn);
    e->stub = make_string(rw, "%s", name);
  }
  if (e->label_site >= 0) {
    struct klto_str old = site_str(rw, &rw->sites[e->label_site]);
    if (classify(rw, old) != KLTO_SYM_UNKNOWN ||
        klto_strmap_find(&rw->globals, old)) {
      diag(rw, KLTO_DIAG_WARNING, e->chunk,
           "entry label '%.*s' is also named outside the asm, so it keeps "
           "its name; two files defining it will not link under full LTO",
           (int)old.n, old.p);
      e->label_site = -1;
    }
  }
}

/* The new name of a label definition, or NULL to keep it. */
static const char *label_name(struct klto_asm_rewriter *rw, long def) {
  struct site *s = &rw->sites[def];
  struct klto_str name = site_str(rw, s);
  if (klto_strmap_find(&rw->globals, name) ||
      classify(rw, name) != KLTO_SYM_UNKNOWN || klto_is_entry_symbol(name) ||
      klto_label_keeps_name(name))
    return NULL;
  if (s->entry >= 0 && rw->entries[s->entry].valid &&
      rw->entries[s->entry].label_site == def)
    return rw->entries[s->entry].label;
  return make_string(rw, "%.*s.%.*s", (int)name.n, name.p,
                     (int)rw->opts->modname.n, rw->opts->modname.p);
}

static const char *stub_for(struct klto_asm_rewriter *rw, struct site *s,
                            struct klto_strmap *stubs) {
  struct klto_str name = site_str(rw, s);
  const char *stub = NULL;
  enum klto_sym_class c = classify(rw, name);
  if (s->entry >= 0 && rw->entries[s->entry].valid &&
      rw->entries[s->entry].fn_site == (long)(s - rw->sites))
    stub = rw->entries[s->entry].stub;
  else if (c == KLTO_SYM_LOCAL_FUNC || c == KLTO_SYM_LOCAL_DATA) {
    size_t n = klto_format_stub(NULL, 0, (struct klto_str){NULL, 0},
                                (struct klto_str){NULL, 0}, rw->opts->modname,
                                name);
    char *buf = malloc(n + 1);
    if (buf) {
      klto_format_stub(buf, n + 1, (struct klto_str){NULL, 0},
                       (struct klto_str){NULL, 0}, rw->opts->modname, name);
      stub = make_string(rw, "%s", buf);
    }
    free(buf);
    if (!buf)
      rw->oom = true;
  }
  if (!stub)
    return NULL;
  bool inserted;
  if (!klto_strmap_insert(stubs, klto_str_c(stub), 0, &inserted)) {
    rw->oom = true;
    return NULL;
  }
  if (inserted && rw->hooks->need_stub)
    rw->hooks->need_stub(rw->hooks->ctx, name, stub,
                         c == KLTO_SYM_LOCAL_DATA);
  return stub;
}

static bool append(struct klto_asm_rewriter *rw, struct klto_buf *b,
                   const char *p, size_t n) {
  if (buf_append(b, p, n))
    return true;
  rw->oom = true;
  return false;
}

long klto_asm_rewriter_finish(struct klto_asm_rewriter *rw,
                              struct klto_buf *out) {
  for (size_t i = 0; i < rw->n_entries; ++i)
    if (rw->entries[i].valid)
      name_entry(rw, &rw->entries[i]);

  /* Label definitions first: references may precede them. */
  for (size_t i = 0; i < rw->labels.cap; ++i) {
    struct klto_strmap_slot *slot = &rw->labels.slots[i];
    if (slot->key.p)
      rw->sites[slot->value].repl = label_name(rw, slot->value);
  }

  struct klto_strmap stubs = {NULL, 0, 0};
  for (size_t i = 0; i < rw->n_sites && !rw->oom; ++i) {
    struct site *s = &rw->sites[i];
    struct klto_strmap_slot *def = klto_strmap_find(&rw->labels, site_str(rw, s));
    switch (s->kind) {
    case SITE_SECTION:
      if (s->entry >= 0 && rw->entries[s->entry].valid)
        s->repl = s->quoted
                      ? make_string(rw, "\"%s\"", rw->entries[s->entry].section)
                      : rw->entries[s->entry].section;
      break;
    case SITE_LABEL_DEF:
    case SITE_NAME_ONLY:
      if (def)
        s->repl = rw->sites[def->value].repl;
      break;
    case SITE_EXPR:
      if (def)
        s->repl = rw->sites[def->value].repl;
      else if (rw->opts->stubs)
        s->repl = stub_for(rw, s, &stubs);
      break;
    }
  }
  klto_strmap_free(&stubs);

  long edits = 0;
  out->n = 0;
  append(rw, out, "", 0);
  size_t si = 0;
  for (size_t c = 0; c < rw->n_chunks && !rw->oom; ++c) {
    const struct chunk *ch = &rw->chunks[c];
    size_t pos = 0;
    for (; si < rw->n_sites && rw->sites[si].chunk == c; ++si) {
      const struct site *s = &rw->sites[si];
      if (!s->repl)
        continue;
      struct klto_str old = site_str(rw, s);
      if (strlen(s->repl) == old.n && !memcmp(s->repl, old.p, old.n))
        continue;
      append(rw, out, ch->text + pos, s->begin - pos);
      append(rw, out, s->repl, strlen(s->repl));
      pos = s->end;
      ++edits;
    }
    append(rw, out, ch->text + pos, ch->len - pos);
  }
  if (rw->oom)
    return -1;

  for (size_t i = 0; i < rw->n_entries && rw->hooks->entry; ++i) {
    const struct entry *e = &rw->entries[i];
    if (!e->valid)
      continue;
    struct klto_asm_entry pub = {
        e->table,    e->level,
        site_str(rw, &rw->sites[e->fn_site]),
        e->section,  e->label_site >= 0 ? e->label : NULL,
        e->stub,     e->counter,
        e->line,     e->chunk};
    rw->hooks->entry(rw->hooks->ctx, &pub);
  }
  for (size_t i = 0; i < rw->n_sites && rw->hooks->label_renamed; ++i) {
    const struct site *s = &rw->sites[i];
    if (s->kind != SITE_LABEL_DEF || !s->repl ||
        klto_strmap_find(&rw->labels, site_str(rw, s))->value != (long)i)
      continue;
    bool entry_label = s->entry >= 0 && rw->entries[s->entry].valid &&
                       rw->entries[s->entry].label_site == (long)i;
    if (!entry_label)
      rw->hooks->label_renamed(rw->hooks->ctx, site_str(rw, s), s->repl,
                               rw->chunks[s->chunk].line);
  }
  return edits;
}

/*--- Operand names of any asm text -----------------------------------------*/

/* Calls `fn` with each token of `st` that names a symbol as an operand. In
 * an LLVM IR template, $N, ${N:modifier} and ${:uid} are operands, not
 * names. */
static void operand_tokens(const char *text, const struct klto_asm_stmt *st,
                           bool ir_template,
                           void (*fn)(void *ctx, const struct klto_token *t),
                           void *ctx) {
  size_t i = klto_asm_labels(text, st, NULL, NULL);
  if (i >= st->n || st->toks[i].kind != KLTO_TOK_IDENT)
    return;
  struct klto_str head = {text + st->toks[i].begin,
                          st->toks[i].end - st->toks[i].begin};
  enum directive d = directive_kind(head);
  if (klto_section_directive(head) != KLTO_SECT_NONE ||
      (d != DIR_NONE && d != DIR_SET && d != DIR_FIRST))
    return;
  bool in_operand = false;
  for (size_t k = i + 1; k < st->n; ++k) {
    const struct klto_token *t = &st->toks[k];
    const struct klto_token *prev = &st->toks[k - 1];
    if (ir_template && punct_is(text, t, '{') && punct_is(text, prev, '$') &&
        prev->end == t->begin)
      in_operand = true;
    else if (in_operand && punct_is(text, t, '}'))
      in_operand = false;
    else if (t->kind == KLTO_TOK_IDENT && !in_operand &&
             is_ref_position(text, st, k))
      fn(ctx, t);
  }
}

struct names_ctx {
  const char *text;
  bool ir_template;
  void (*fn)(void *ctx, struct klto_str name);
  void *ctx;
};

static void name_token(void *p, const struct klto_token *t) {
  struct names_ctx *nc = p;
  nc->fn(nc->ctx, (struct klto_str){nc->text + t->begin, t->end - t->begin});
}

static void names_statement(void *p, const struct klto_asm_stmt *st) {
  struct names_ctx *nc = p;
  operand_tokens(nc->text, st, nc->ir_template, name_token, nc);
}

bool klto_asm_operand_names(const char *text, size_t len,
                            enum klto_asm_dialect dialect, bool ir_template,
                            void (*fn)(void *ctx, struct klto_str name),
                            void *ctx) {
  struct names_ctx nc = {text, ir_template, fn, ctx};
  return klto_asm_statements(text, len, dialect, names_statement, &nc);
}

struct rename_ctx {
  const char *text;
  bool ir_template;
  struct klto_str old_name, new_name;
  struct klto_buf *out;
  size_t copied; /* input bytes already in `out` */
  long renamed;
};

static void rename_token(void *p, const struct klto_token *t) {
  struct rename_ctx *rc = p;
  if (rc->renamed < 0 || t->end - t->begin != rc->old_name.n ||
      memcmp(rc->text + t->begin, rc->old_name.p, rc->old_name.n))
    return;
  if (!buf_append(rc->out, rc->text + rc->copied, t->begin - rc->copied) ||
      !buf_append(rc->out, rc->new_name.p, rc->new_name.n)) {
    rc->renamed = -1;
    return;
  }
  rc->copied = t->end;
  ++rc->renamed;
}

static void rename_statement(void *p, const struct klto_asm_stmt *st) {
  struct rename_ctx *rc = p;
  operand_tokens(rc->text, st, rc->ir_template, rename_token, rc);
}

long klto_asm_rename_symbol(const char *text, size_t len,
                            enum klto_asm_dialect dialect, bool ir_template,
                            struct klto_str old_name, struct klto_str new_name,
                            struct klto_buf *out) {
  struct rename_ctx rc = {text, ir_template, old_name, new_name, out, 0, 0};
  if (!klto_asm_statements(text, len, dialect, rename_statement, &rc) ||
      rc.renamed < 0 || !buf_append(out, text + rc.copied, len - rc.copied))
    return -1;
  return rc.renamed;
}

struct outline_ctx {
  const char *text;
  void (*defined)(void *ctx, struct klto_str name);
  void *ctx;
  struct klto_buf *macros;
  int macro_depth;
  bool oom;
};

static bool head_is(struct klto_str head, const char *name) {
  return head.n == strlen(name) && !strncasecmp(head.p, name, head.n);
}

static void outline_label(void *p, const struct klto_token *t) {
  struct outline_ctx *oc = p;
  oc->defined(oc->ctx,
              (struct klto_str){oc->text + t->begin, t->end - t->begin});
}

static void outline_statement(void *p, const struct klto_asm_stmt *st) {
  struct outline_ctx *oc = p;
  if (!st->n)
    return;
  size_t i = klto_asm_labels(oc->text, st, oc->macro_depth ? NULL : outline_label,
                             oc);
  struct klto_str head = {NULL, 0};
  if (i < st->n && st->toks[i].kind == KLTO_TOK_IDENT)
    head = (struct klto_str){oc->text + st->toks[i].begin,
                             st->toks[i].end - st->toks[i].begin};
  bool opens = head_is(head, ".macro");
  bool closes = head_is(head, ".endm") || head_is(head, ".endmacro");
  if (opens || oc->macro_depth) {
    size_t b = st->toks[0].begin, e = st->toks[st->n - 1].end;
    if (!buf_append(oc->macros, oc->text + b, e - b) ||
        !buf_append(oc->macros, "\n", 1))
      oc->oom = true;
    oc->macro_depth += opens - (closes && oc->macro_depth);
    return;
  }
  const struct klto_token *name = NULL;
  if (i + 1 < st->n && punct_is(oc->text, &st->toks[i + 1], '='))
    name = &st->toks[i];
  else if ((directive_kind(head) == DIR_SET || head_is(head, ".comm") ||
            head_is(head, ".lcomm")) &&
           i + 1 < st->n && st->toks[i + 1].kind == KLTO_TOK_IDENT)
    name = &st->toks[i + 1];
  if (name)
    outline_label(oc, name);
}

bool klto_asm_outline(const char *text, size_t len,
                      enum klto_asm_dialect dialect,
                      void (*defined)(void *ctx, struct klto_str name),
                      void *ctx, struct klto_buf *macros) {
  struct outline_ctx oc = {text, defined, ctx, macros, 0, false};
  return klto_asm_statements(text, len, dialect, outline_statement, &oc) &&
         !oc.oom;
}

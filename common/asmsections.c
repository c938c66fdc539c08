/*===- asmsections.c - GNU as's current section, tracked once -------------===*
 *
 * See klto/asmsections.h.
 *===----------------------------------------------------------------------===*/
#include "klto/asmsections.h"

#include <stdlib.h>
#include <string.h>

bool klto_asm_statements(const char *text, size_t len,
                         enum klto_asm_dialect dialect,
                         void (*fn)(void *ctx, const struct klto_asm_stmt *st),
                         void *ctx) {
  struct klto_lexer lx;
  klto_lex_init(&lx, text, len, dialect);
  struct klto_asm_stmt st = {NULL, 0, 0};
  bool ok = true;
  for (;;) {
    struct klto_token t = klto_lex_next(&lx);
    if (t.kind == KLTO_TOK_SPACE || t.kind == KLTO_TOK_COMMENT)
      continue;
    if (t.kind == KLTO_TOK_EOS || t.kind == KLTO_TOK_EOF) {
      fn(ctx, &st);
      st.n = 0;
      if (t.kind == KLTO_TOK_EOF)
        break;
      continue;
    }
    if (st.n == st.cap) {
      size_t cap = st.cap ? st.cap * 2 : 16;
      struct klto_token *p = realloc(st.toks, cap * sizeof(*p));
      if (!p) {
        ok = false;
        break;
      }
      st.toks = p;
      st.cap = cap;
    }
    st.toks[st.n++] = t;
  }
  free(st.toks);
  return ok;
}

static bool punct_is(const char *text, const struct klto_token *t, char c) {
  return t->kind == KLTO_TOK_PUNCT && text[t->begin] == c;
}

size_t klto_asm_labels(const char *text, const struct klto_asm_stmt *st,
                       void (*label)(void *ctx, const struct klto_token *t),
                       void *ctx) {
  size_t i = 0;
  while (i + 1 < st->n && punct_is(text, &st->toks[i + 1], ':')) {
    if (st->toks[i].kind == KLTO_TOK_IDENT) {
      if (label)
        label(ctx, &st->toks[i]);
    } else if (st->toks[i].kind != KLTO_TOK_NUMBER &&
               st->toks[i].kind != KLTO_TOK_STRING) {
      break;
    }
    i += 2;
  }
  return i;
}

static const struct {
  const char *name;
  enum klto_section_directive d;
} section_directives[] = {
    {".section", KLTO_SECT_SECTION}, {".pushsection", KLTO_SECT_PUSH},
    {".popsection", KLTO_SECT_POP},  {".previous", KLTO_SECT_PREVIOUS},
    {".text", KLTO_SECT_TEXT},       {".data", KLTO_SECT_DATA},
    {".bss", KLTO_SECT_BSS},
};

enum klto_section_directive klto_section_directive(struct klto_str word) {
  for (size_t i = 0;
       i < sizeof(section_directives) / sizeof(section_directives[0]); ++i)
    if (strlen(section_directives[i].name) == word.n &&
        !memcmp(section_directives[i].name, word.p, word.n))
      return section_directives[i].d;
  return KLTO_SECT_NONE;
}

bool klto_section_name(const char *text, const struct klto_asm_stmt *st,
                       size_t from, enum klto_section_directive d,
                       struct klto_str *name, size_t *first, size_t *last,
                       bool *quoted) {
  *quoted = false;
  *first = *last = from;
  switch (d) {
  case KLTO_SECT_TEXT:
    *name = (struct klto_str){".text", 5};
    return true;
  case KLTO_SECT_DATA:
    *name = (struct klto_str){".data", 5};
    return true;
  case KLTO_SECT_BSS:
    *name = (struct klto_str){".bss", 4};
    return true;
  case KLTO_SECT_SECTION:
  case KLTO_SECT_PUSH:
    break;
  default:
    return false;
  }
  if (from >= st->n || punct_is(text, &st->toks[from], ','))
    return false;
  size_t l = from;
  while (l + 1 < st->n && !punct_is(text, &st->toks[l + 1], ','))
    ++l;
  *last = l;
  const struct klto_token *ft = &st->toks[from], *lt = &st->toks[l];
  *name = (struct klto_str){text + ft->begin, lt->end - ft->begin};
  if (from == l && ft->kind == KLTO_TOK_STRING && name->n >= 2 &&
      name->p[name->n - 1] == '"') {
    *quoted = true;
    ++name->p;
    name->n -= 2;
  }
  return true;
}

void klto_sections_init(struct klto_sections *s, long initial, long unknown) {
  s->cur = s->prev = initial;
  s->unknown = unknown;
  s->depth = 0;
}

void klto_sections_apply(struct klto_sections *s,
                         enum klto_section_directive d, long named) {
  switch (d) {
  case KLTO_SECT_NONE:
    return;
  case KLTO_SECT_PUSH:
    if (s->depth < KLTO_SECTION_STACK_MAX) {
      s->stack[s->depth].cur = s->cur;
      s->stack[s->depth].prev = s->prev;
    }
    ++s->depth;
    s->prev = s->cur;
    s->cur = named;
    return;
  case KLTO_SECT_POP:
    /* GNU as brings back both the section and its previous one. */
    if (!s->depth)
      return;
    --s->depth;
    if (s->depth < KLTO_SECTION_STACK_MAX) {
      s->cur = s->stack[s->depth].cur;
      s->prev = s->stack[s->depth].prev;
    } else {
      s->cur = s->prev = s->unknown;
    }
    return;
  case KLTO_SECT_PREVIOUS: {
    long t = s->cur;
    s->cur = s->prev;
    s->prev = t;
    return;
  }
  case KLTO_SECT_SECTION:
  case KLTO_SECT_TEXT:
  case KLTO_SECT_DATA:
  case KLTO_SECT_BSS:
    s->prev = s->cur;
    s->cur = named;
    return;
  }
}

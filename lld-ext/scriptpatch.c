/*===- scriptpatch.c - let a user's linker script find klto's entries -----===*
 *
 * See scriptpatch.h. The lexer follows LLD's ScriptLexer closely enough for
 * this purpose: comments and quoted strings are copied untouched, and a
 * word is a run of characters that are not blanks or punctuation; a table
 * name counts only inside the parentheses of an input section description
 * ("*(...)", "file.o(...)", possibly under SORT/KEEP), never as an output
 * section name or the argument of ADDR(), SIZEOF() and the like.
 *===----------------------------------------------------------------------===*/
#include "scriptpatch.h"
#include "scripts.h"

#include <stdbool.h>
#include <string.h>

/* Words whose parentheses hold something other than section patterns. */
static const char *const non_patterns[] = {
    "ABSOLUTE", "ADDR", "ALIGN", "ALIGNOF", "AS_NEEDED", "ASSERT", "AT",
    "BYTE", "CONSTANT", "DATA_SEGMENT_ALIGN", "DATA_SEGMENT_END",
    "DATA_SEGMENT_RELRO_END", "DEFINED", "ENTRY", "EXCLUDE_FILE", "EXTERN",
    "FILL", "GROUP", "HIDDEN", "INPUT", "INPUT_SECTION_FLAGS", "LENGTH",
    "LOADADDR", "LOG2CEIL", "LONG", "MAX", "MIN", "NOCROSSREFS", "ORIGIN",
    "OUTPUT", "OUTPUT_ARCH", "OUTPUT_FORMAT", "PROVIDE", "PROVIDE_HIDDEN",
    "QUAD", "REGION_ALIAS", "SEARCH_DIR", "SEGMENT_START", "SHORT",
    "SIZEOF", "SQUAD", "STARTUP", "SUBALIGN", "TARGET", "VERSION"};

/* Wrappers inside an input section description: their words are still
 * section patterns when the description's parentheses enclose them. */
static bool is_wrapper(const char *w, size_t n) {
  return (n == 4 && memcmp(w, "KEEP", 4) == 0) ||
         (n >= 4 && memcmp(w, "SORT", 4) == 0) ||
         (n == 7 && memcmp(w, "REVERSE", 7) == 0);
}

static bool is_non_pattern(const char *w, size_t n) {
  for (size_t i = 0; i < sizeof(non_patterns) / sizeof(*non_patterns); ++i)
    if (strlen(non_patterns[i]) == n && memcmp(non_patterns[i], w, n) == 0)
      return true;
  return false;
}

static bool is_word_char(char c) {
  return !strchr(" \t\r\n\f\v(){};,:=<>!&|+-/%~?\"", c) && c != '\0';
}

enum paren_kind { P_OTHER, P_WRAPPER, P_PATTERNS };

static const char *split_base(const char *w, size_t n) {
  for (size_t i = 0; i < KLTO_N_SPLIT_BASES; ++i)
    if (strlen(klto_split_bases[i]) == n && memcmp(klto_split_bases[i], w, n) == 0)
      return klto_split_bases[i];
  return NULL;
}

/* Whether the input section description whose pattern list starts at
 * `from` already names `table`..* itself (scripts written for Linux 6.x's
 * own LTO macros do): a second copy of the pattern costs LLD a match
 * against every input section and adds nothing. */
static bool names_entries(const char *text, size_t from, size_t n,
                          const char *table, size_t table_n) {
  size_t depth = 0;
  for (size_t i = from; i < n;) {
    if (text[i] == '(') {
      ++depth;
      ++i;
    } else if (text[i] == ')') {
      if (depth-- == 0)
        return false;
      ++i;
    } else if (!is_word_char(text[i])) {
      ++i;
    } else {
      size_t start = i;
      while (i < n && is_word_char(text[i]))
        ++i;
      if (i - start == table_n + 3 &&
          memcmp(text + start, table, table_n) == 0 &&
          memcmp(text + start + table_n, "..*", 3) == 0)
        return true;
    }
  }
  return false;
}

/* Walks a script as LLD's lexer would, handing every piece of text to
 * `copy` (when set) and every word of an input section pattern list to
 * `pattern`, with where that list starts; `pattern` returns false to stop. */
struct script_walk {
  void (*copy)(void *ctx, const char *p, size_t n);
  bool (*pattern)(void *ctx, const char *text, size_t n, const char *word,
                  size_t word_n, size_t list_start);
  void *ctx;
};

static void copy_text(const struct script_walk *w, const char *p, size_t n) {
  if (w->copy)
    w->copy(w->ctx, p, n);
}

static void walk_script(const char *text, size_t n,
                        const struct script_walk *w) {
  /* Parentheses nest only a few deep in any real script; deeper ones are
   * tracked as "other", which only means nothing inside is a pattern. */
  enum paren_kind stack[32];
  size_t list_start[32]; /* where each level's contents begin */
  size_t depth = 0;
  const char *word = NULL; /* the last word, for the '(' that follows it */
  size_t word_n = 0;
  size_t i = 0;
  while (i < n) {
    char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      const char *end = memmem(text + i + 2, n - i - 2, "*/", 2);
      size_t stop = end ? (size_t)(end - text) + 2 : n;
      copy_text(w, text + i, stop - i);
      i = stop;
      continue;
    }
    if (c == '"') {
      const char *end = memchr(text + i + 1, '"', n - i - 1);
      size_t stop = end ? (size_t)(end - text) + 1 : n;
      copy_text(w, text + i, stop - i);
      i = stop;
      word = NULL;
      continue;
    }
    if (c == '(') {
      enum paren_kind k = P_OTHER;
      bool in_patterns = depth > 0 && depth <= 32 &&
                         stack[depth - 1] == P_PATTERNS;
      if (word && is_wrapper(word, word_n))
        k = in_patterns ? P_PATTERNS : P_WRAPPER;
      else if (word && !is_non_pattern(word, word_n))
        k = P_PATTERNS; /* "*(" or "file.o(" */
      if (depth < 32) {
        stack[depth] = k;
        list_start[depth] = i + 1;
      }
      ++depth;
      word = NULL;
      copy_text(w, text + i, 1);
      ++i;
      continue;
    }
    if (c == ')') {
      if (depth)
        --depth;
      word = NULL;
      copy_text(w, text + i, 1);
      ++i;
      continue;
    }
    if (!is_word_char(c)) {
      if (!strchr(" \t\r\n\f\v", c))
        word = NULL;
      copy_text(w, text + i, 1);
      ++i;
      continue;
    }
    size_t start = i;
    while (i < n && is_word_char(text[i]))
      ++i;
    word = text + start;
    word_n = i - start;
    copy_text(w, word, word_n);
    if (depth == 0 || depth > 32 || stack[depth - 1] != P_PATTERNS)
      continue;
    if (!w->pattern(w->ctx, text, n, word, word_n, list_start[depth - 1]))
      return;
  }
}

struct patch {
  FILE *out;
  const struct klto_tables *tables;
  bool merge_split;
  size_t patched;
};

static void patch_copy(void *ctx, const char *p, size_t n) {
  fwrite(p, 1, n, ((struct patch *)ctx)->out);
}

static bool patch_pattern(void *ctx, const char *text, size_t n,
                          const char *word, size_t word_n, size_t list_start) {
  struct patch *pt = ctx;
  const char *base;
  if (pt->tables &&
      klto_is_table(pt->tables, (struct klto_str){word, word_n})) {
    if (!names_entries(text, list_start, n, word, word_n)) {
      fprintf(pt->out, " %.*s..*", (int)word_n, word);
      ++pt->patched;
    }
  } else if (pt->merge_split && (base = split_base(word, word_n))) {
    klto_write_split_patterns(pt->out, base);
    ++pt->patched;
  }
  return true;
}

size_t klto_patch_script(FILE *out, const char *text, size_t n,
                       const struct klto_tables *tables, bool merge_split) {
  struct patch pt = {out, tables, merge_split, 0};
  struct script_walk w = {patch_copy, patch_pattern, &pt};
  walk_script(text, n, &w);
  return pt.patched;
}

/* Whether a section pattern can match a name that starts with `name`: its
 * text up to the first wildcard must agree with `name` as far as both go. */
static bool may_match_prefix(const char *pat, size_t pat_n, const char *name) {
  size_t name_n = strlen(name);
  for (size_t i = 0; i < pat_n; ++i) {
    if (strchr("*?[\\", pat[i]))
      return true;
    if (i == name_n)
      return true; /* "<name>..<id>" goes on past the table name */
    if (pat[i] != name[i])
      return false;
  }
  /* The pattern is a literal: it names the table or one of its entries, or
   * a shorter name, which no table section has. */
  return pat_n >= name_n;
}

struct placed {
  const struct klto_tables *tables;
  bool found;
};

static bool placed_pattern(void *ctx, const char *text, size_t n,
                           const char *word, size_t word_n, size_t list_start) {
  (void)text, (void)n, (void)list_start;
  struct placed *pl = ctx;
  /* Every Linux level's table starts with one of these two. */
  pl->found = may_match_prefix(word, word_n, KLTO_INITCALL_SECTION_PREFIX) ||
              may_match_prefix(word, word_n, ".con_initcall");
  for (size_t i = 0; !pl->found && pl->tables && i < pl->tables->n_extra; ++i)
    pl->found = may_match_prefix(word, word_n, pl->tables->extra[i]);
  return !pl->found;
}

bool klto_script_places_tables(const char *text, size_t n,
                             const struct klto_tables *tables) {
  struct placed pl = {tables, false};
  struct script_walk w = {NULL, placed_pattern, &pl};
  walk_script(text, n, &w);
  return pl.found;
}

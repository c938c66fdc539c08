/*===- naming.c - the entry naming scheme shared by plugin and linker ------===*
 *
 * See klto/naming.h. Everything here works on counted strings because the
 * linker hands us section names straight out of string tables.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE /* memmem */
#include "klto/naming.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static bool str_eq(struct klto_str a, const char *b) {
  size_t n = strlen(b);
  return a.n == n && memcmp(a.p, b, n) == 0;
}

static bool has_prefix(struct klto_str s, const char *prefix) {
  size_t n = strlen(prefix);
  return s.n >= n && memcmp(s.p, prefix, n) == 0;
}

static bool has_suffix(struct klto_str s, const char *suffix) {
  size_t n = strlen(suffix);
  return s.n >= n && memcmp(s.p + s.n - n, suffix, n) == 0;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The level grammar of init.h: early | rootfs | con | [0-9], each optionally
 * followed by 's' (sync). Linux only defines 0s..7s, early, rootfs and con in
 * practice; accepting the grammar keeps us compatible with its script. */
static const char *const named_levels[] = {"early", "rootfs", "con"};
#define N_NAMED_LEVELS (sizeof(named_levels) / sizeof(named_levels[0]))

static bool is_base_level(struct klto_str l) {
  if (l.n == 1)
    return is_digit(l.p[0]);
  for (size_t i = 0; i < N_NAMED_LEVELS; ++i)
    if (str_eq(l, named_levels[i]))
      return true;
  return false;
}

static bool is_level(struct klto_str l) {
  if (is_base_level(l))
    return true;
  struct klto_str base = {l.p, l.n - 1};
  return l.n > 1 && l.p[l.n - 1] == 's' && is_base_level(base);
}

int klto_format_initcall_section(char *buf, size_t size, const char *level,
                                 bool sync) {
  return snprintf(buf, size,
                  KLTO_INITCALL_SECTION_PREFIX "%s%s" KLTO_INITCALL_SECTION_SUFFIX,
                  level, sync ? "s" : "");
}

bool klto_initcall_level(struct klto_str section, struct klto_str *level) {
  if (str_eq(section, ".con_initcall.init")) {
    level->p = "con";
    level->n = 3;
    return true;
  }
  const size_t prefix = sizeof(KLTO_INITCALL_SECTION_PREFIX) - 1,
               suffix = sizeof(KLTO_INITCALL_SECTION_SUFFIX) - 1;
  if (section.n < prefix + suffix ||
      !has_prefix(section, KLTO_INITCALL_SECTION_PREFIX) ||
      !has_suffix(section, KLTO_INITCALL_SECTION_SUFFIX))
    return false;
  struct klto_str l = {section.p + prefix, section.n - prefix - suffix};
  if (!is_level(l) || str_eq(l, "con") || str_eq(l, "cons"))
    return false;
  *level = l;
  return true;
}

const char *const klto_initcall_levels[] = {
    "early", "0", "0s", "1", "1s", "2", "2s", "3",  "3s", "4", "4s",
    "5",     "5s", "rootfs", "rootfss", "6", "6s", "7", "7s", "con"};
const size_t klto_n_initcall_levels =
    sizeof(klto_initcall_levels) / sizeof(klto_initcall_levels[0]);

unsigned klto_initcall_level_rank(struct klto_str level) {
  /* Most entries: "<d>" and "<d>s" pair up around early and rootfs. */
  if (level.n >= 1 && level.n <= 2 && level.p[0] >= '0' && level.p[0] <= '7' &&
      (level.n == 1 || level.p[1] == 's')) {
    unsigned d = (unsigned)(level.p[0] - '0'), sync = level.n == 2;
    return d <= 5 ? 1 + 2 * d + sync : 15 + 2 * (d - 6) + sync;
  }
  for (size_t i = 0; i < klto_n_initcall_levels; ++i)
    if (str_eq(level, klto_initcall_levels[i]))
      return (unsigned)i;
  return (unsigned)klto_n_initcall_levels;
}

size_t klto_format_entry_symbol(char *buf, size_t size, struct klto_str id,
                                struct klto_str level) {
  int n = level.n ? snprintf(buf, size, KLTO_INITCALL_SYMBOL_PREFIX "%.*s%.*s",
                             (int)id.n, id.p, (int)level.n, level.p)
                  : snprintf(buf, size, KLTO_ENTRY_SYMBOL_PREFIX "%.*s",
                             (int)id.n, id.p);
  return n < 0 ? 0 : (size_t)n;
}

size_t klto_format_stub(char *buf, size_t size, struct klto_str id,
                        struct klto_str level, struct klto_str modname,
                        struct klto_str fn) {
  int n = level.n && id.n
              ? snprintf(buf, size, KLTO_INITCALL_STUB_PREFIX "%.*s%.*s",
                         (int)id.n, id.p, (int)level.n, level.p)
              : snprintf(buf, size, KLTO_STUB_PREFIX "%.*s__%.*s",
                         (int)modname.n, modname.p, (int)fn.n, fn.p);
  return n < 0 ? 0 : (size_t)n;
}

static bool has_dot_dot(struct klto_str s) {
  for (size_t i = 0; i + 1 < s.n; ++i)
    if (s.p[i] == '.' && s.p[i + 1] == '.')
      return true;
  return false;
}

/* '*' matches any run, every other byte itself. Backtracks to the last
 * '*' only, which is enough for a pattern of literal runs. */
static bool glob_match(const char *pat, struct klto_str s) {
  size_t i = 0, star = (size_t)-1, resume = 0;
  for (size_t k = 0; i < s.n || pat[k];) {
    if (pat[k] == '*') {
      star = ++k;
      resume = i;
    } else if (i < s.n && pat[k] == s.p[i]) {
      ++k, ++i;
    } else if (star != (size_t)-1 && resume < s.n) {
      k = star;
      i = ++resume;
    } else {
      return false;
    }
  }
  return true;
}

bool klto_is_table_pattern(const char *spec) { return strchr(spec, '*'); }

long klto_table_spec(const struct klto_tables *tables, struct klto_str section) {
  bool entry_like = has_dot_dot(section);
  for (size_t i = 0; tables && i < tables->n_extra; ++i) {
    const char *spec = tables->extra[i];
    if (klto_is_table_pattern(spec) ? !entry_like && glob_match(spec, section)
                                    : str_eq(section, spec))
      return (long)i;
  }
  return -1;
}

bool klto_is_table(const struct klto_tables *tables, struct klto_str section) {
  struct klto_str level;
  return klto_initcall_level(section, &level) ||
         klto_table_spec(tables, section) >= 0;
}

/* The `i`th fixed start of a table name: Linux's two, then each extra
 * spec's part before its '*'. False past the last. */
static bool table_start(const struct klto_tables *tables, size_t i,
                        struct klto_str *start) {
  static const struct klto_str linux_starts[] = {
      {KLTO_INITCALL_SECTION_PREFIX, sizeof(KLTO_INITCALL_SECTION_PREFIX) - 1},
      {".con_initcall", sizeof(".con_initcall") - 1}};
  const size_t n_linux = sizeof(linux_starts) / sizeof(linux_starts[0]);
  if (i < n_linux) {
    *start = linux_starts[i];
    return true;
  }
  i -= n_linux;
  if (!tables || i >= tables->n_extra)
    return false;
  const char *spec = tables->extra[i];
  *start = (struct klto_str){spec, strcspn(spec, "*")};
  return true;
}

bool klto_may_be_table(const struct klto_tables *tables,
                       struct klto_str section) {
  struct klto_str start;
  for (size_t i = 0; table_start(tables, i, &start); ++i)
    if (section.n >= start.n && memcmp(section.p, start.p, start.n) == 0)
      return true;
  return false;
}

bool klto_may_name_table(const struct klto_tables *tables,
                         struct klto_str text) {
  struct klto_str start;
  for (size_t i = 0; table_start(tables, i, &start); ++i)
    if (memmem(text.p, text.n, start.p, start.n))
      return true;
  return false;
}

const struct klto_table_preset klto_table_presets[] = {
#define KLTO_TABLE_PRESET(name, specs, description) {name, specs, description},
#include "klto/table_presets.def"
};
const size_t klto_n_table_presets =
    sizeof(klto_table_presets) / sizeof(klto_table_presets[0]);

/* What is wrong with one spec, or NULL. A pattern needs a fixed start:
 * "*" alone would make every section of a link a table. */
static const char *spec_problem(struct klto_str spec) {
  if (spec.n == 0)
    return "an empty table name";
  if (has_dot_dot(spec))
    return "a table name has no \"..\" (it separates an entry's table from "
           "its id)";
  for (size_t i = 0; i < spec.n; ++i)
    if (spec.p[i] == ' ' || spec.p[i] == '\t' || spec.p[i] == '"')
      return "a table name has no blanks or quotes";
  if (spec.p[0] == '*')
    return "a pattern starts with a fixed part, as .initcall.*";
  return NULL;
}

static bool read_specs(struct klto_str value, bool in_preset,
                       void (*add)(void *, struct klto_str), void *ctx,
                       char *err, size_t err_size) {
  size_t start = 0;
  for (size_t i = 0; i <= value.n; ++i) {
    if (i < value.n && value.p[i] != ',')
      continue;
    struct klto_str item = {value.p + start, i - start};
    start = i + 1;
    const struct klto_table_preset *preset = NULL;
    for (size_t k = 0; !in_preset && k < klto_n_table_presets; ++k)
      if (str_eq(item, klto_table_presets[k].name))
        preset = &klto_table_presets[k];
    if (preset) {
      read_specs(klto_str_c(preset->specs), true, add, ctx, err, err_size);
      continue;
    }
    const char *problem = spec_problem(item);
    if (problem && !(in_preset && item.n == 0)) {
      snprintf(err, err_size,
               "'%.*s' is neither a section name nor a preset: %s", (int)item.n,
               item.p, problem);
      return false;
    }
    if (!problem)
      add(ctx, item);
  }
  return true;
}

bool klto_read_table_specs(struct klto_str value,
                           void (*add)(void *ctx, struct klto_str spec),
                           void *ctx, char *err, size_t err_size) {
  return read_specs(value, false, add, ctx, err, err_size);
}

bool klto_split_entry_section(const struct klto_tables *tables,
                              struct klto_str section, struct klto_str *table,
                              struct klto_str *id) {
  /* Table names contain single dots only ('.initcall6.init'), so the first
   * ".." that leaves a known table on its left is the split. */
  for (size_t i = 1; i + 2 < section.n; ++i) {
    if (section.p[i] != '.' || section.p[i + 1] != '.')
      continue;
    struct klto_str t = {section.p, i};
    if (!klto_is_table(tables, t))
      continue;
    table->p = section.p;
    table->n = i;
    id->p = section.p + i + 2;
    id->n = section.n - i - 2;
    return true;
  }
  return false;
}

/* Parses digits at s[*pos..] up to the terminator `term`. */
static bool parse_number(struct klto_str s, size_t *pos, char term,
                         unsigned long long *out) {
  size_t i = *pos;
  unsigned long long v = 0;
  if (i >= s.n || !is_digit(s.p[i]))
    return false;
  for (; i < s.n && is_digit(s.p[i]); ++i) {
    unsigned d = (unsigned)(s.p[i] - '0');
    if (v > (UINT64_MAX - d) / 10)
      return false;
    v = v * 10 + d;
  }
  if (i >= s.n || s.p[i] != term)
    return false;
  *pos = i + 1;
  *out = v;
  return true;
}

bool klto_parse_id(struct klto_str id, struct klto_id *out) {
  /* Greedy modname, as the Perl regex `(\S*)__(\d+)_(\d+)_(.*)$`: try split
   * points from the right. */
  for (size_t i = id.n; i-- > 0;) {
    if (i + 1 >= id.n || id.p[i] != '_' || id.p[i + 1] != '_')
      continue;
    size_t pos = i + 2;
    struct klto_id r;
    if (!parse_number(id, &pos, '_', &r.counter) ||
        !parse_number(id, &pos, '_', &r.line))
      continue;
    r.modname.p = id.p;
    r.modname.n = i;
    r.fn.p = id.p + pos;
    r.fn.n = id.n - pos;
    if (r.fn.n == 0)
      continue;
    *out = r;
    return true;
  }
  return false;
}

bool klto_parse_initcall_symbol(struct klto_str sym, struct klto_id *id,
                                struct klto_str *level) {
  static const char prefix[] = KLTO_INITCALL_SYMBOL_PREFIX;
  if (!has_prefix(sym, prefix))
    return false;
  struct klto_str rest = {sym.p + sizeof(prefix) - 1,
                          sym.n - (sizeof(prefix) - 1)};
  struct klto_id r;
  if (!klto_parse_id(rest, &r))
    return false;
  /* The level is glued to the function name: take the shortest level suffix
   * that leaves a non-empty function, as `^(.*)(level)$` does greedily. */
  struct klto_str fn = r.fn, best = {NULL, 0};
  size_t sync = fn.n && fn.p[fn.n - 1] == 's';
  if (fn.n > 1 + sync && is_digit(fn.p[fn.n - 1 - sync]))
    best = (struct klto_str){fn.p + fn.n - 1 - sync, 1 + sync};
  /* "rootfs" ends in 's' itself: each name plain first, then synced. */
  for (size_t k = 0; !best.p && k < 2 * N_NAMED_LEVELS; ++k) {
    const char *name = named_levels[k % N_NAMED_LEVELS];
    bool synced = k >= N_NAMED_LEVELS;
    size_t n = strlen(name) + synced;
    struct klto_str base = {fn.p, fn.n - synced};
    if (fn.n > n && (!synced || fn.p[fn.n - 1] == 's') &&
        has_suffix(base, name))
      best = (struct klto_str){fn.p + fn.n - n, n};
  }
  if (!best.p)
    return false;
  r.fn.n -= best.n;
  *id = r;
  *level = best;
  return true;
}

size_t klto_format_id(char *buf, size_t size, struct klto_str modname,
                      unsigned long long counter, unsigned long long line,
                      struct klto_str fn) {
  int n = snprintf(buf, size, "%.*s__%llu_%llu_%.*s", (int)modname.n,
                   modname.p, counter, line, (int)fn.n, fn.p);
  return n < 0 ? 0 : (size_t)n;
}

static bool is_symbol_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
         c == '_' || c == '.' || c == '$';
}

bool klto_is_symbol_name(struct klto_str s) {
  if (s.n == 0 || is_digit(s.p[0]))
    return false;
  for (size_t i = 0; i < s.n; ++i)
    if (!is_symbol_char(s.p[i]))
      return false;
  return true;
}

/* Writes `prefix` then `name` with every byte outside [A-Za-z0-9_] as '_'. */
static size_t write_fixed(char *buf, size_t size, const char *prefix,
                          struct klto_str name) {
  size_t plen = strlen(prefix), total = plen + name.n;
  if (size == 0)
    return total;
  size_t w = 0;
  for (size_t i = 0; i < plen && w + 1 < size; ++i)
    buf[w++] = prefix[i];
  for (size_t i = 0; i < name.n && w + 1 < size; ++i) {
    char c = name.p[i];
    buf[w++] = is_symbol_char(c) && c != '.' && c != '$' ? c : '_';
  }
  buf[w] = '\0';
  return total;
}

size_t klto_kbuild_modname(char *buf, size_t size, struct klto_str name) {
  /* KBUILD_MODNAME arrives as the macro's spelling, quotes included, or
   * as old kbuild's (barebox's, U-Boot's) KBUILD_STR(name), which
   * stringifies its argument. */
  static const char str_macro[] = "KBUILD_STR(";
  const size_t str_n = sizeof(str_macro) - 1;
  if (name.n > str_n && has_prefix(name, str_macro) &&
      name.p[name.n - 1] == ')') {
    name.p += str_n;
    name.n -= str_n + 1;
  } else if (name.n >= 2 && name.p[0] == '"' && name.p[name.n - 1] == '"') {
    ++name.p;
    name.n -= 2;
  }
  return write_fixed(buf, size, "kmod_", name);
}

/* FNV-1a: stable across hosts and releases, which the ids must be. */
static uint32_t fnv1a(struct klto_str s) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < s.n; ++i) {
    h ^= (unsigned char)s.p[i];
    h *= 16777619u;
  }
  return h;
}

size_t klto_default_modname(char *buf, size_t size, struct klto_str path) {
  size_t start = 0, end = path.n;
  for (size_t i = 0; i < path.n; ++i)
    if (path.p[i] == '/')
      start = i + 1;
  for (size_t i = end; i-- > start;)
    if (path.p[i] == '.') {
      end = i;
      break;
    }
  if (end == start)
    end = path.n;
  struct klto_str base = {path.p + start, end - start};
  char hash[16];
  snprintf(hash, sizeof(hash), "_%08x", (unsigned)fnv1a(path));
  size_t n = write_fixed(buf, size, "kmod_", base);
  size_t h = strlen(hash);
  if (n + h < size)
    memcpy(buf + n, hash, h + 1);
  return n + h;
}

static const char *const kept_label_prefixes[] = {
    "__ksymtab_", "__kstrtab_", "__kstrtabns_", "__export_symbol_"};

bool klto_label_keeps_name(struct klto_str label) {
  for (size_t i = 0;
       i < sizeof(kept_label_prefixes) / sizeof(kept_label_prefixes[0]); ++i)
    if (has_prefix(label, kept_label_prefixes[i]) &&
        label.n > strlen(kept_label_prefixes[i]))
      return true;
  return false;
}

bool klto_is_entry_symbol(struct klto_str sym) {
  struct klto_id id;
  struct klto_str level;
  if (klto_parse_initcall_symbol(sym, &id, &level))
    return true;
  static const char prefix[] = KLTO_ENTRY_SYMBOL_PREFIX;
  const size_t plen = sizeof(prefix) - 1;
  if (!has_prefix(sym, prefix) || sym.n == plen)
    return false;
  struct klto_str rest = {sym.p + plen, sym.n - plen};
  return klto_parse_id(rest, &id);
}

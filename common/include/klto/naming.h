/*===- klto/naming.h - the entry naming scheme shared by plugin and linker -===*
 *
 * One definition of how klto (and Linux 5.12+) name linker-section table
 * entries, so that the compiler plugin that writes the names and the linker
 * that orders by them can never disagree:
 *
 *   id       <modname>__<counter>_<line>_<fn>
 *   section  <table>..<id>              e.g. .initcall6.init..kmod_foo__3_120_foo_init
 *   symbol   __initcall__<id><level>    (Linux initcall tables)
 *            __kltoentry__<id>           (tables added by option)
 *   stub     __initstub__<id><level>    (initcalls)
 *            __kltostub__<modname>__<fn> (any other static named in asm)
 *
 * Plain C, no allocation except where a function says so, no LLVM.
 *===----------------------------------------------------------------------===*/
#ifndef KLTO_NAMING_H
#define KLTO_NAMING_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A counted string: names in object files and asm are not NUL-terminated. */
struct klto_str {
  const char *p;
  size_t n;
};

static inline struct klto_str klto_str_c(const char *s) {
  size_t n = 0;
  while (s[n])
    ++n;
  struct klto_str r = {s, n};
  return r;
}

/* Every C part of klto reports through one callback. `where` is the
 * caller's own place for the message, so the C++ side can attach a source
 * location: the asm chunk for the rewriter (klto_asm_rewriter_add_chunk's
 * index), 0 for the linker's order, whose messages name their files. */
enum klto_diag_level { KLTO_DIAG_REMARK, KLTO_DIAG_WARNING, KLTO_DIAG_ERROR };
typedef void (*klto_diag_fn)(void *ctx, enum klto_diag_level level,
                             size_t where, const char *message);

/* A set of table (section) names that hold entries: Linux's initcall tables
 * always, plus the table specs a project adds. A spec is a section name or
 * a pattern in which each '*' matches any run of characters; no table name
 * has "..", which separates an entry's table from its id, so a pattern
 * never matches a name with "..". */
struct klto_tables {
  const char **extra; /* NUL-terminated specs owned by the caller */
  size_t n_extra;
};

/* Index in tables->extra of the first spec that matches `section`, or -1.
 * The one place a section name is matched against the specs. */
long klto_table_spec(const struct klto_tables *tables, struct klto_str section);

/* Whether `spec` has a '*' (a pattern, not a name). */
bool klto_is_table_pattern(const char *spec);

/* Reads a table option's value, as both tools take it: a comma list of
 * specs and presets (klto/table_presets.def), each preset standing for its
 * specs. Calls `add` for each spec, in order. On a bad item returns false
 * and writes why into `err` (snprintf semantics), naming the item. */
bool klto_read_table_specs(struct klto_str value,
                           void (*add)(void *ctx, struct klto_str spec),
                           void *ctx, char *err, size_t err_size);

/* The presets, in table_presets.def's order. */
struct klto_table_preset {
  const char *name, *specs, *description;
};
extern const struct klto_table_preset klto_table_presets[];
extern const size_t klto_n_table_presets;

/* An initcall table's section name: prefix, level, suffix (".initcall6.init",
 * ".initcall6s.init" for the level's sync variant). */
#define KLTO_INITCALL_SECTION_PREFIX ".initcall"
#define KLTO_INITCALL_SECTION_SUFFIX ".init"

/* Writes the section name of initcall level `level` (of its sync variant if
 * `sync`) to buf, as snprintf does; returns its length. */
int klto_format_initcall_section(char *buf, size_t size, const char *level,
                                 bool sync);

/* Linux initcall level of a table section name, or false.
 * ".initcall6.init" -> "6", ".initcall3s.init" -> "3s",
 * ".initcallearly.init" -> "early", ".initcallrootfs.init" -> "rootfs",
 * ".con_initcall.init" -> "con". */
bool klto_initcall_level(struct klto_str section, struct klto_str *level);

/* Linux's initcall levels in the order Linux runs them: each level's sync
 * variant ("<L>s") right after it, rootfs between 5s and 6, then the
 * console table's "con". */
extern const char *const klto_initcall_levels[];
extern const size_t klto_n_initcall_levels;

/* Place of `level` in klto_initcall_levels; a level the grammar allows but
 * Linux never defines ("8") comes after them all (klto_n_initcall_levels). */
unsigned klto_initcall_level_rank(struct klto_str level);

/* The scheme's symbol prefixes (table above). */
#define KLTO_INITCALL_SYMBOL_PREFIX "__initcall__"
#define KLTO_ENTRY_SYMBOL_PREFIX "__kltoentry__"
#define KLTO_INITCALL_STUB_PREFIX "__initstub__"
#define KLTO_STUB_PREFIX "__kltostub__"

/* The symbol of the entry `id` of a table whose initcall level is `level`
 * (n == 0: not an initcall table): "__initcall__<id><level>" or
 * "__kltoentry__<id>". snprintf semantics. */
size_t klto_format_entry_symbol(char *buf, size_t size, struct klto_str id,
                                struct klto_str level);

/* The stub that takes the place of a static function `fn` an entry names:
 * "__initstub__<id><level>" for initcalls, "__kltostub__<modname>__<fn>"
 * otherwise (also for any other static named in asm, with `id` empty).
 * snprintf semantics. */
size_t klto_format_stub(char *buf, size_t size, struct klto_str id,
                        struct klto_str level, struct klto_str modname,
                        struct klto_str fn);

/* Whether `sym` is an entry symbol of the scheme, with a valid id. */
bool klto_is_entry_symbol(struct klto_str sym);

/* Whether a label that module asm defines must keep its name when the
 * rewriter makes the file's other labels unique for full LTO: names that
 * tools read from the object's symbol table and that the code base keeps
 * unique across the whole link itself. Linux's export labels: modpost
 * finds what vmlinux.o and each module export by __ksymtab_<sym> and reads
 * __kstrtab_<sym> and __kstrtabns_<sym> through them (up to 6.4), or by
 * __export_symbol_<sym> in .export_symbol (6.5 on); renamed, every module
 * that uses an export of the kernel fails modpost. */
bool klto_label_keeps_name(struct klto_str label);

/* True if `section` names a table of `tables` (Linux initcalls included). */
bool klto_is_table(const struct klto_tables *tables, struct klto_str section);

/* Whether `section` starts like a table: a cheap test that turns away most
 * sections of a link (.text.*, .data.*, debug info) before the two
 * functions around it look at them. */
bool klto_may_be_table(const struct klto_tables *tables,
                       struct klto_str section);

/* Whether `text` holds the fixed start of a table name anywhere. A section
 * named in assembly text is a substring of it, so where this is false no
 * section the text enters can be a table, and the text need not be lexed. */
bool klto_may_name_table(const struct klto_tables *tables,
                         struct klto_str text);

/* Splits "<table>..<id>" for a known table. Returns false for anything else,
 * including a bare table name. */
bool klto_split_entry_section(const struct klto_tables *tables,
                              struct klto_str section, struct klto_str *table,
                              struct klto_str *id);

/* A parsed id. `modname` and `fn` point into the parsed string. */
struct klto_id {
  struct klto_str modname;
  unsigned long long counter;
  unsigned long long line;
  struct klto_str fn;
};

/* Parses "<modname>__<counter>_<line>_<fn>". Like Linux's
 * generate_initcall_order.pl, the modname is greedy: the last
 * "__<digits>_<digits>_" splits, so modnames may contain "__". */
bool klto_parse_id(struct klto_str id, struct klto_id *out);

/* Parses an initcall entry symbol "__initcall__<id><level>"; `id` excludes
 * the level. */
bool klto_parse_initcall_symbol(struct klto_str sym, struct klto_id *id,
                                struct klto_str *level);

/* Formats "<modname>__<counter>_<line>_<fn>". snprintf semantics: returns the
 * length the full id needs. */
size_t klto_format_id(char *buf, size_t size, struct klto_str modname,
                      unsigned long long counter, unsigned long long line,
                      struct klto_str fn);

/* Linux's name-fix: "kmod_" + name with '-' and ',' turned into '_'. Any other
 * byte that cannot appear in a symbol also becomes '_'. `kbuild_modname` is
 * the macro's spelling: "\"name\"", or KBUILD_STR(name) as barebox and
 * U-Boot define it. snprintf semantics. */
size_t klto_kbuild_modname(char *buf, size_t size, struct klto_str kbuild_modname);

/* The default modname for a translation unit with no KBUILD_MODNAME:
 * "kmod_<basename>_<8 hex digits of a hash of the whole path>", so that
 * a/foo.c and b/foo.c never share ids. snprintf semantics. */
size_t klto_default_modname(char *buf, size_t size, struct klto_str path);

/* True if every byte may appear in an unquoted GNU as / ELF symbol name. */
bool klto_is_symbol_name(struct klto_str s);

#ifdef __cplusplus
}
#endif

#endif /* KLTO_NAMING_H */

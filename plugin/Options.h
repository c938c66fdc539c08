//===- Options.h - klto plugin options --------------------------*- C++ -*-===//
//
// One set of options, filled either from -fplugin-arg-klto-<opt>[=<val>]
// (Clang plugin) or from -klto-* command-line flags (opt and -fpass-plugin).
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_PLUGIN_OPTIONS_H
#define KLTO_PLUGIN_OPTIONS_H

#include <string>
#include <vector>

namespace klto {

struct Options {
  /// Module name for entry ids; empty: KBUILD_MODNAME or the file's default.
  std::string ModName;
  /// Tables beyond Linux's initcall tables, by section name.
  std::vector<std::string> Tables;
  /// Point asm references to statics at stubs and aliases.
  bool Stubs = true;
  /// Keep symbols that only function-level inline asm names alive under LTO.
  bool KeepAsmRefs = true;
  /// Print every action to stderr.
  bool Verbose = false;
  /// Redirect allocation calls to the KFENCE runtime.
  bool Kfence = false;
  /// With Kfence, C++ operator new and delete too.
  bool KfenceCxx = false;
  /// Project allocators to redirect, as "name" (malloc-like) or
  /// "name:free" / "name:malloc" / ... to say which libc function it mirrors.
  std::vector<std::string> KfenceAllocators;

  /// Parses one "-fplugin-arg-klto-" argument; on failure returns false and
  /// sets Error.
  bool parse(const std::string &Arg, std::string &Error);

  /// The option list, for error messages and --help style output.
  static const char *usage();
};

/// The options given on the command line of opt or through -mllvm.
Options optionsFromCommandLine();

} // namespace klto

#endif // KLTO_PLUGIN_OPTIONS_H

//===- Options.h - klto plugin options --------------------------*- C++ -*-===//
//
// One set of options (Options.def), filled either from
// -fplugin-arg-klto-<opt>[=<val>] (Clang plugin) or from -klto-* command-line
// flags (opt and -fpass-plugin).
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_PLUGIN_OPTIONS_H
#define KLTO_PLUGIN_OPTIONS_H

#include <string>
#include <vector>

namespace klto {

struct Options {
#define KLTO_PLUGIN_FLAG(Field, Name, Default, Help) bool Field = Default;
#define KLTO_PLUGIN_VALUE(Field, Name, MetaVar, Help) std::string Field;
#define KLTO_PLUGIN_LIST(Field, Name, MetaVar, Help)                           \
  std::vector<std::string> Field;
#include "Options.def"

  /// -fplugin-arg-klto-help was given: the front end prints help().
  bool ShowHelp = false;

  /// Parses one "-fplugin-arg-klto-" argument; on failure returns false and
  /// sets Error.
  bool parse(const std::string &Arg, std::string &Error);

  /// What one option implies of another, after all are read, and the
  /// checks of values that need the list of the runtime's hooks; on
  /// failure returns false and sets Error.
  bool finish(std::string &Error);

  /// The option list, for error messages and --help style output.
  static std::string usage();

  /// Every option with its meaning, one per line.
  static std::string help();
};

/// The options given on the command line of opt or through -mllvm.
Options optionsFromCommandLine();

} // namespace klto

#endif // KLTO_PLUGIN_OPTIONS_H

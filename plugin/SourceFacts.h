//===- SourceFacts.h - what the front end knows, the IR lacks ---*- C++ -*-===//
//
// The IR has no KBUILD_MODNAME, no macro expansion lines and no boundaries
// between file-scope asm statements; the Clang side collects them and hands
// them to the pass in process (diagnostics go back through Reporter.h).
// Without Clang (opt, -fpass-plugin) the pass works from the IR alone.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_PLUGIN_SOURCEFACTS_H
#define KLTO_PLUGIN_SOURCEFACTS_H

#include <string>
#include <vector>

namespace klto {

/// A top-level declaration that may hold table entries, in source order.
struct SourceDecl {
  enum Kind { Variable, AsmStatement } K;
  std::string Name; ///< Var: the IR name.
  std::string Asm;  ///< Asm: the statement's string, as Clang appends it.
  unsigned Line;    ///< Expansion line, as __LINE__ in a macro would be.
};

struct SourceFacts {
  /// KBUILD_MODNAME turned into a modname, or __KBUILD_MODNAME; may be empty.
  std::string KbuildModName;
  /// The main file as given to the compiler, for the default modname.
  std::string MainFile;
  std::vector<SourceDecl> Decls;
};

} // namespace klto

#endif // KLTO_PLUGIN_SOURCEFACTS_H

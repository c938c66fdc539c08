//===- Stubs.cpp - stable global names for statics that asm names ---------===//
//
// LTO renames statics: full LTO when two files' statics collide, ThinLTO when
// it promotes one. Asm that names the static then binds to the wrong
// function or to nothing. A second name that is global and unique, defined
// at the static's address, gives the asm a name no LTO mode touches (Linux
// 5.12 writes stub functions by hand for this in init.h and pci.h; the
// names stay theirs: __initstub__<id><level>).
//
// The name is a hidden alias, not a stub function that tail-calls the
// static. An alias costs no code, where a stub is one more function per
// entry to optimise and compile (bench/plugin/RESULTS.md measures that on
// drivers/pci/quirks.c and its 682 fixups). And it is at least as safe:
//  - it follows the static through every rename, promotion and partition
//    (SplitModule keeps an alias with its aliasee), as the stub's call did;
//  - it is an address use, so no pass changes the static's signature
//    (dead-argument elimination could, behind a stub's direct call);
//  - the table holds the function's own address, as without LTO: under
//    -fsanitize=cfi the alias is pointed at the jump-table entry as C's &fn
//    would be, where a stub's address would be in no jump table, and the
//    kernel's kCFI finds the static's type hash, which a stub lacks.
// Statics are always definitions by the time the pass runs (internal
// declarations are not valid IR), so there is always something to alias.
//
//===----------------------------------------------------------------------===//
#include "Stubs.h"

#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace klto {

GlobalValue *getOrCreateStableName(GlobalValue &Target, StringRef Name) {
  Module &M = *Target.getParent();
  if (GlobalValue *Existing = M.getNamedValue(Name))
    return Existing;
  auto *Alias =
      GlobalAlias::create(Target.getValueType(), Target.getAddressSpace(),
                          GlobalValue::ExternalLinkage, Name, &Target, &M);
  Alias->setVisibility(GlobalValue::HiddenVisibility);
  Alias->setDSOLocal(true);
  return Alias;
}

} // namespace klto

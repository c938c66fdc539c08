//===- UsedSymbols.h - LTO's late library calls kept defined ----*- C++ -*-===//
//
// Linux's scripts/lto-used-symbollist.txt: LTO's code generator may call
// memcpy, memmove, memset and __stack_chk_fail, and read __stack_chk_guard,
// after the IR linker has internalized and dropped their definitions. Only
// a definition in bitcode is at risk, so only links that run LTO are
// touched, and only for names a bitcode file LLD always loads defines:
// those get -u, which marks the definition used and does nothing else,
// because the symbol is defined the moment that file is read (no archive
// member is fetched for it, nothing is exported, binding and PLT use are
// LLD's). Not --export-dynamic-symbol: it would put the names into .dynsym
// of -pie programs and send -shared -Bsymbolic calls through the PLT.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_LD_USEDSYMBOLS_H
#define KLTO_LD_USEDSYMBOLS_H

#include "CommandLine.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace klto::ld {

/// Linux's list, then the names of --kused-symbols files and --kused-symbol.
llvm::Expected<std::vector<std::string>> usedSymbolList(const KltoOptions &K);

/// The names of `Names` to pass as -u: defined by a bitcode input LLD
/// always loads (a file on the command line, a --whole-archive member),
/// and by no lazily loaded input (archive member, --start-lib file) read
/// before it, which -u would make LLD fetch.
std::vector<std::string> usedSymbolsToKeep(llvm::ArrayRef<LinkInput> Inputs,
                                           llvm::ArrayRef<std::string> Names);

} // namespace klto::ld

#endif // KLTO_LD_USEDSYMBOLS_H

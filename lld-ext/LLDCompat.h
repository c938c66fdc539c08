//===- LLDCompat.h - the LLD and LLVM API the linker uses, 17 to 22 -*- C++ -*-===//
//
// klto's ld.lld builds against one LLVM major at a time, any of 17 to 22
// (the top-level CMakeLists.txt says which). Where the API of LLD or LLVM
// that the linker uses differs between them, the difference is adapted
// here, once. The plugin's half has its own (plugin/LLVMCompat.h).
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_LLD_EXT_LLDCOMPAT_H
#define KLTO_LLD_EXT_LLDCOMPAT_H

#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Module.h"

#include <string>

namespace klto::ld::compat {

/// A bitcode module's target triple as written in it: a std::string up to
/// LLVM 20, an llvm::Triple (whose str() is that string) from 21 on.
inline const std::string &targetTriple(const llvm::Module &M) {
#if LLVM_VERSION_MAJOR >= 21
  return M.getTargetTriple().str();
#else
  return M.getTargetTriple();
#endif
}

} // namespace klto::ld::compat

#endif // KLTO_LLD_EXT_LLDCOMPAT_H

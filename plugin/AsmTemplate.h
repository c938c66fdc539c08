//===- AsmTemplate.h - inline asm as the assembler sees it ------*- C++ -*-===//
//
// The IR holds function-level asm as a template ("call foo; mov $0, %eax")
// whose operands the backend fills in after register allocation. To read
// the template with the target's own assembler before that, each operand is
// replaced by a stand-in of the same kind: a register of the operand's
// width, a memory reference through a register, the immediate's value, a
// temporary symbol for a symbolic operand or a label. Stand-ins never name
// a symbol that is not a temporary, so every symbol the assembler then sees
// is one the asm text itself names.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_PLUGIN_ASMTEMPLATE_H
#define KLTO_PLUGIN_ASMTEMPLATE_H

#include "llvm/TargetParser/Triple.h"

#include <string>

namespace llvm {
class CallBase;
class InlineAsm;
} // namespace llvm

namespace klto {

/// The prefix of every stand-in symbol; a temporary in every ELF target.
inline constexpr const char StandInPrefix[] = ".Lklto_";

/// True if expandAsmTemplate knows the target's operand syntax.
bool canExpandAsmTemplate(const llvm::Triple &T);

/// The text of Call's asm with its operands replaced by stand-ins;
/// CommentString replaces ${:comment}.
std::string expandAsmTemplate(const llvm::CallBase &Call, const llvm::Triple &T,
                              llvm::StringRef CommentString);

} // namespace klto

#endif // KLTO_PLUGIN_ASMTEMPLATE_H

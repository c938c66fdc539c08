//===- AsmTemplate.cpp - an inline-asm template as the assembler sees it --===//
//
// Follows the operand syntax of LLVM's AsmPrinter (EmitGCCInlineAsmStr and
// the targets' PrintAsmOperand): $N, ${N}, ${N:modifier}, $$, the dialect
// alternatives $( $| $), and ${:uid}, ${:comment}, ${:private}. A stand-in
// only has to parse as an operand of the same kind; when it does not match
// an instruction exactly (a register of the wrong width, say), the symbols
// the assembler read from the other operands are still recorded.
//
//===----------------------------------------------------------------------===//
#include "AsmTemplate.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstrTypes.h"

using namespace llvm;

namespace klto {

namespace {

enum class OpKind { Reg, VecReg, Predicate, X87, MMX, Mem, Imm, Sym, Label };

struct Operand {
  OpKind K = OpKind::Reg;
  unsigned Bits = 64;
  int64_t Value = 0;
};

OpKind kindOfCode(StringRef Code, const Triple &T) {
  if (Code.starts_with("{")) {
    StringRef R = Code.drop_front().drop_back();
    if (R.starts_with("xmm") || R.starts_with("ymm") || R.starts_with("zmm") ||
        (!T.isX86() && (R.starts_with("v") || R.starts_with("q") ||
                       R.starts_with("d") || R.starts_with("z"))))
      return OpKind::VecReg;
    return R.starts_with("st") ? OpKind::X87 : OpKind::Reg;
  }
  if (Code.size() == 1 && StringRef("inesEFIJKLMNOZGCY").contains(Code[0]))
    return Code == "s" ? OpKind::Sym : OpKind::Imm;
  if (Code == "m" || Code == "o" || Code == "V" || Code == "p")
    return OpKind::Mem;
  if (T.isX86()) {
    if (Code == "x" || Code == "v" || Code.starts_with("Y"))
      return OpKind::VecReg;
    if (Code == "y")
      return OpKind::MMX;
    if (Code == "t" || Code == "u" || Code == "f")
      return OpKind::X87;
    return OpKind::Reg;
  }
  // AArch64.
  if (Code == "Q" || Code.starts_with("Um") || Code.starts_with("Ut"))
    return OpKind::Mem;
  if (Code == "S" || Code.starts_with("Us"))
    return OpKind::Sym;
  if (Code.starts_with("Up"))
    return OpKind::Predicate;
  if (Code == "w" || Code == "x" || Code == "y")
    return OpKind::VecReg;
  return OpKind::Reg;
}

unsigned bitsOf(Type *Ty) {
  if (!Ty || Ty->isPointerTy())
    return 64;
  unsigned Bits = Ty->getPrimitiveSizeInBits().getKnownMinValue();
  return Bits ? Bits : 64;
}

/// The asm's operands in $N order: outputs, inputs, then labels.
std::vector<Operand> operandsOf(const CallBase &Call, const Triple &T) {
  const auto *IA = cast<InlineAsm>(Call.getCalledOperand());
  std::vector<Operand> Ops;
  Type *Ret = Call.getType();
  unsigned RetIdx = 0, ArgIdx = 0;
  for (const InlineAsm::ConstraintInfo &CI : IA->ParseConstraints()) {
    if (CI.Type == InlineAsm::isClobber)
      continue;
    Operand Op;
    if (CI.Type == InlineAsm::isLabel) {
      Op.K = OpKind::Label;
      Ops.push_back(Op);
      continue;
    }
    StringRef Code = CI.Codes.empty() ? "r" : StringRef(CI.Codes.front());
    const Value *Arg = nullptr;
    Type *Ty = nullptr;
    if (CI.Type == InlineAsm::isOutput && !CI.isIndirect) {
      auto *ST = dyn_cast<StructType>(Ret);
      Ty = ST ? (RetIdx < ST->getNumElements() ? ST->getElementType(RetIdx)
                                               : nullptr)
              : Ret;
      ++RetIdx;
    } else if (ArgIdx < Call.arg_size()) {
      Arg = Call.getArgOperand(ArgIdx++);
      Ty = Arg->getType();
    }
    unsigned Matched;
    if (!Code.getAsInteger(10, Matched) && Matched < Ops.size()) {
      Op = Ops[Matched];
    } else if (CI.isIndirect) {
      Op.K = OpKind::Mem;
    } else {
      Op.K = kindOfCode(Code, T);
      Op.Bits = bitsOf(Ty);
    }
    if (Op.K == OpKind::Imm) {
      if (const auto *C = dyn_cast_or_null<ConstantInt>(Arg))
        Op.Value = C->getSExtValue();
      else
        Op.K = OpKind::Sym;
    }
    Ops.push_back(Op);
  }
  return Ops;
}

std::string x86Reg(const Operand &Op, StringRef Mod) {
  if (Op.K == OpKind::X87)
    return "st";
  if (Op.K == OpKind::MMX)
    return "mm0";
  if (Mod == "x" || (Op.K == OpKind::VecReg && Mod.empty() && Op.Bits <= 128))
    return "xmm0";
  if (Mod == "t" || (Op.K == OpKind::VecReg && Mod.empty() && Op.Bits <= 256))
    return "ymm0";
  if (Mod == "g" || Op.K == OpKind::VecReg)
    return "zmm0";
  if (Mod == "b" || (Mod.empty() && Op.Bits <= 8))
    return "al";
  if (Mod == "h")
    return "ah";
  if (Mod == "w" || (Mod.empty() && Op.Bits <= 16))
    return "ax";
  if (Mod == "k" || (Mod.empty() && Op.Bits <= 32))
    return "eax";
  return "rax";
}

std::string x86Operand(const Operand &Op, StringRef Mod, bool Intel) {
  std::string Pct = Intel ? "" : "%";
  bool Bare = Mod == "c" || Mod == "P" || Mod == "p" || Mod == "a" || Intel;
  switch (Op.K) {
  case OpKind::Mem:
    return Intel ? "[rax]" : (Mod == "H" ? "8(%rax)" : "(%rax)");
  case OpKind::Imm:
    return (Bare ? "" : "$") + std::string(Mod == "n" ? "-" : "") +
           itostr(Op.Value);
  case OpKind::Sym:
    return (Bare ? "" : "$") + std::string(StandInPrefix) + "sym";
  case OpKind::Label:
    return std::string(StandInPrefix) + "label";
  default:
    if (Mod == "a") // an address in a register
      return Intel ? "[rax]" : "(%rax)";
    return (Mod == "V" ? "" : Pct) + x86Reg(Op, Mod);
  }
}

std::string aarch64Operand(const Operand &Op, StringRef Mod) {
  switch (Op.K) {
  case OpKind::Mem:
    return "[x0]";
  case OpKind::Imm:
    return itostr(Op.Value);
  case OpKind::Sym:
    return std::string(StandInPrefix) + "sym";
  case OpKind::Label:
    return std::string(StandInPrefix) + "label";
  case OpKind::Predicate:
    return "p0";
  case OpKind::VecReg:
    if (Mod.size() == 1 && StringRef("bhsdq").contains(Mod[0]))
      return (Mod + "0").str();
    return "v0";
  default:
    if (Mod == "w")
      return "w0";
    if (Mod == "x")
      return "x0";
    return Op.Bits <= 32 ? "w0" : "x0";
  }
}

} // namespace

bool canExpandAsmTemplate(const Triple &T) {
  return T.getArch() == Triple::x86_64 || T.getArch() == Triple::x86 ||
         T.isAArch64();
}

std::string expandAsmTemplate(const CallBase &Call, const Triple &T,
                              StringRef CommentString) {
  const auto *IA = cast<InlineAsm>(Call.getCalledOperand());
  bool Intel = IA->getDialect() == InlineAsm::AD_Intel;
  std::vector<Operand> Ops = operandsOf(Call, T);
  StringRef S = IA->getAsmString();
  std::string Out;
  Out.reserve(S.size() + 16);
  int Variant = -1; // inside $( ... ): the alternative being read
  unsigned Wanted = Intel ? 1 : 0;
  unsigned UID = 0;
  for (size_t I = 0; I < S.size(); ++I) {
    char C = S[I];
    if (C != '$' || I + 1 == S.size()) {
      if (Variant < 0 || static_cast<unsigned>(Variant) == Wanted)
        Out += C;
      continue;
    }
    char N = S[++I];
    if (N == '(' || N == '|' || N == ')') {
      Variant = N == '(' ? 0 : N == '|' ? Variant + 1 : -1;
      continue;
    }
    if (Variant >= 0 && static_cast<unsigned>(Variant) != Wanted)
      continue;
    if (N == '$') {
      Out += '$';
      continue;
    }
    StringRef Num, Mod;
    if (N == '{') {
      size_t Close = S.find('}', I);
      if (Close == StringRef::npos)
        break;
      std::tie(Num, Mod) = S.slice(I + 1, Close).split(':');
      I = Close;
    } else if (isDigit(N)) {
      size_t End = I;
      while (End < S.size() && isDigit(S[End]))
        ++End;
      Num = S.slice(I, End);
      I = End - 1;
    } else {
      Out += '$';
      Out += N;
      continue;
    }
    if (Num.empty()) {
      if (Mod == "uid")
        Out += utostr(UID++);
      else if (Mod == "comment")
        Out += CommentString;
      else if (Mod == "private")
        Out += ".L";
      continue;
    }
    unsigned Idx;
    if (Num.getAsInteger(10, Idx) || Idx >= Ops.size())
      continue;
    Out += T.isX86() ? x86Operand(Ops[Idx], Mod, Intel)
                     : aarch64Operand(Ops[Idx], Mod);
  }
  return Out;
}

} // namespace klto

//===- AsmSymbols.cpp - the symbols function-level asm defines and names --===//
//
// The same set-up as LLVM's ModuleSymbolTable::CollectAsmSymbols, which
// finds module-asm symbols for the bitcode symbol table, with a streamer
// that only records. Of the module asm, MC reads only the macros
// (readModuleAsm). References are read off the assembler's symbol table
// rather than from emitted instructions, so a symbol still counts when its
// instruction does not match (a stand-in register of the wrong width, an
// instruction of a feature the function enables with .arch_extension).
//
// The streamer never marks a symbol defined in MC's sense, so a label that
// two statements define is not an error here, and errors are counted, not
// printed: the backend reports them when it assembles the real text.
//
//===----------------------------------------------------------------------===//
#include "AsmSymbols.h"
#include "AsmTemplate.h"
#include "LLVMCompat.h"

#include "klto/LLVMAdapter.h"
#include "klto/asmrewrite.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCParser/MCAsmParser.h"
#include "llvm/MC/MCParser/MCTargetAsmParser.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCSymbolELF.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace llvm;

namespace klto {

namespace {

/// Records what the asm defines; emits nothing.
class RecordingStreamer : public MCStreamer {
public:
  explicit RecordingStreamer(MCContext &C) : MCStreamer(C) {}

  /// Definitions of the statement being read that must stay single, or
  /// null for module asm.
  std::vector<std::string> *StatementDefs = nullptr;
  StringSet<> Defined;
  StringSet<> Weak;

  void emitLabel(MCSymbol *S, SMLoc) override { define(S); }
  // A .set may be repeated (each inlined copy of a header's asm may set the
  // same symbol): it defines the symbol for this module, not once.
  void emitAssignment(MCSymbol *S, const MCExpr *) override {
    if (!S->isTemporary())
      Defined.insert(S->getName());
  }
  void emitCommonSymbol(MCSymbol *S, uint64_t, Align) override { define(S); }
  void emitZerofill(MCSection *, MCSymbol *S, uint64_t, Align, SMLoc) override {
    if (S)
      define(S);
  }
  void emitWeakReference(MCSymbol *Alias, const MCSymbol *) override {
    define(Alias);
  }
  bool emitSymbolAttribute(MCSymbol *S, MCSymbolAttr A) override {
    if (A == MCSA_Weak || A == MCSA_WeakReference)
      Weak.insert(S->getName());
    return true;
  }

private:
  void define(MCSymbol *S) {
    if (S->isTemporary())
      return;
    Defined.insert(S->getName());
    if (StatementDefs)
      StatementDefs->push_back(S->getName().str());
  }
};

} // namespace

class AsmSymbolReader::Impl {
public:
  Impl(Module &M, const Target &T, Triple TT) : M(M), T(T), TT(std::move(TT)) {}

  bool init() {
    MRI.reset(T.createMCRegInfo(compat::registryTriple(TT)));
    if (!MRI)
      return false;
    MAI.reset(T.createMCAsmInfo(*MRI, compat::registryTriple(TT), Options));
    MII.reset(T.createMCInstrInfo());
    const MCSubtargetInfo *STI = subtarget("", "");
    if (!MAI || !MII || !STI)
      return false;
    SrcMgr.setDiagHandler(
        [](const SMDiagnostic &, void *P) { ++*static_cast<unsigned *>(P); },
        &Errors);
    Ctx = std::make_unique<MCContext>(TT, MAI.get(), MRI.get(), STI, &SrcMgr,
                                      &Options);
    MOFI.reset(
        T.createMCObjectFileInfo(*Ctx, M.getPICLevel() != PICLevel::NotPIC));
    Ctx->setObjectFileInfo(MOFI.get());
    Streamer = std::make_unique<RecordingStreamer>(*Ctx);
    Streamer->initSections(false, *STI);
    readModuleAsm(*STI);
    for (const auto &E : Ctx->getSymbols())
      FromModuleAsm.insert(E.getKey());
    return true;
  }

  std::vector<std::string> read(const CallBase &Call) {
    const Function &F = *Call.getFunction();
    const MCSubtargetInfo *STI =
        subtarget(F.getFnAttribute("target-cpu").getValueAsString(),
                  F.getFnAttribute("target-features").getValueAsString());
    std::vector<std::string> Defs;
    if (!STI)
      return Defs;
    size_t Known = Ctx->getSymbols().size();
    parse(expandAsmTemplate(Call, TT, MAI->getCommentString()), *STI, &Defs);
    if (Ctx->getSymbols().size() != Known)
      for (const auto &E : Ctx->getSymbols())
        FirstUse.try_emplace(E.getKey(), &Call);
    return Defs;
  }

  std::vector<AsmSymbolReader::Reference> references() const {
    std::vector<AsmSymbolReader::Reference> Refs;
    for (const auto &E : Ctx->getSymbols()) {
      const MCSymbol *S = compat::symbolOf(E);
      StringRef Name = E.getKey();
      if (!S || Name.empty() || S->isTemporary() ||
          Name.starts_with(StandInPrefix) || FromModuleAsm.contains(Name) ||
          Streamer->Defined.contains(Name))
        continue;
      if (TT.isOSBinFormatELF() &&
          cast<MCSymbolELF>(S)->getType() == ELF::STT_SECTION)
        continue;
      Refs.push_back(
          {Name.str(), FirstUse.lookup(Name), Streamer->Weak.contains(Name)});
    }
    llvm::sort(Refs, [](const AsmSymbolReader::Reference &A,
                        const AsmSymbolReader::Reference &B) {
      return A.Name < B.Name;
    });
    return Refs;
  }

private:
  /// What the function-level asm sees of the module asm: the symbols it
  /// defines, and its macros, which MC reads. The rest is left to
  /// libkltocore's lexer, since MC would take as long to read an asm entry
  /// as the rest of the plugin takes to rewrite it (Linux's quirks.c has
  /// 682 of them).
  void readModuleAsm(const MCSubtargetInfo &STI) {
    const std::string &Asm = M.getModuleInlineAsm();
    if (Asm.empty())
      return;
    klto_buf Macros = {nullptr, 0, 0};
    bool Ok = klto_asm_outline(
        Asm.data(), Asm.size(), klto_asm_dialect_for_triple(TT.str().c_str()),
        [](void *P, klto_str Name) {
          static_cast<StringSet<> *>(P)->insert(fromKStr(Name));
        },
        &Streamer->Defined, &Macros);
    if (Ok && Macros.n)
      parse(StringRef(Macros.p, Macros.n), STI, nullptr);
    klto_buf_free(&Macros);
    if (!Ok)
      throw std::bad_alloc();
  }

  const MCSubtargetInfo *subtarget(StringRef CPU, StringRef Features) {
    std::unique_ptr<MCSubtargetInfo> &STI =
        Subtargets[(CPU + "\n" + Features).str()];
    if (!STI)
      STI.reset(
          T.createMCSubtargetInfo(compat::registryTriple(TT), CPU, Features));
    return STI.get();
  }

  void parse(StringRef Text, const MCSubtargetInfo &STI,
             std::vector<std::string> *Defs) {
    unsigned Buffer = SrcMgr.AddNewSourceBuffer(
        MemoryBuffer::getMemBufferCopy(Text), SMLoc());
    std::unique_ptr<MCAsmParser> Parser(
        createMCAsmParser(SrcMgr, *Ctx, *Streamer, *MAI, Buffer));
    std::unique_ptr<MCTargetAsmParser> TAP(
        T.createMCAsmParser(STI, *Parser, *MII, Options));
    if (!TAP)
      return;
    Parser->setTargetParser(*TAP);
    Streamer->StatementDefs = Defs;
    Parser->Run(/*NoInitialTextSection=*/true, /*NoFinalize=*/true);
    Streamer->StatementDefs = nullptr;
  }

  Module &M;
  const Target &T;
  Triple TT;
  MCTargetOptions Options;
  unsigned Errors = 0;
  SourceMgr SrcMgr;
  std::unique_ptr<MCRegisterInfo> MRI;
  std::unique_ptr<MCAsmInfo> MAI;
  std::unique_ptr<MCInstrInfo> MII;
  StringMap<std::unique_ptr<MCSubtargetInfo>> Subtargets;
  std::unique_ptr<MCContext> Ctx;
  std::unique_ptr<MCObjectFileInfo> MOFI;
  std::unique_ptr<RecordingStreamer> Streamer;
  StringSet<> FromModuleAsm;
  /// The statement that first named each symbol, for diagnostics.
  StringMap<const CallBase *> FirstUse;
};

AsmSymbolReader::AsmSymbolReader(std::unique_ptr<Impl> I) : P(std::move(I)) {}
AsmSymbolReader::~AsmSymbolReader() = default;

std::unique_ptr<AsmSymbolReader> AsmSymbolReader::create(Module &M) {
  Triple TT(M.getTargetTriple());
  if (!canExpandAsmTemplate(TT) || !TT.isOSBinFormatELF())
    return nullptr;
  std::string Error;
  const Target *T =
      TargetRegistry::lookupTarget(compat::registryTriple(TT), Error);
  if (!T || !T->hasMCAsmParser())
    return nullptr;
  auto I = std::make_unique<Impl>(M, *T, TT);
  if (!I->init())
    return nullptr;
  return std::unique_ptr<AsmSymbolReader>(new AsmSymbolReader(std::move(I)));
}

std::vector<std::string> AsmSymbolReader::read(const CallBase &Call) {
  return P->read(Call);
}

std::vector<AsmSymbolReader::Reference> AsmSymbolReader::references() const {
  return P->references();
}

} // namespace klto

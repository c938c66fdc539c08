//===- VarEntries.cpp - unique names for C-variable table entries ---------===//
//
// Pre-5.12 Linux registers an initcall as
//   static initcall_t __initcall_foo6 __used __section(".initcall6.init") =
//   foo;
// Under LTO every such variable lands in one merged section in whatever
// order the LTO code generator emits them. Giving each its own
// "<table>..<id>" section lets the linker restore the order; the symbol gets
// the id too, which is what Linux 5.12+ tools read.
//
//===----------------------------------------------------------------------===//
#include "NamingContext.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace klto {

NamingContext::NamingContext(Module &M, const Options &Opts,
                             std::string ModName, Reporter &Diags)
    : M(M), Opts(Opts), ModName(std::move(ModName)), Diags(Diags),
      Tables(Opts.Tables) {}

void NamingContext::remark(Site Where, const Twine &Msg) {
  Diags.report(Reporter::Level::Remark, Where, Msg);
}

std::string chooseModName(const Options &Opts, const SourceFacts *Facts,
                          const Module &M) {
  if (!Opts.ModName.empty())
    return Opts.ModName;
  if (Facts && !Facts->KbuildModName.empty())
    return Facts->KbuildModName;
  std::string Path = Facts && !Facts->MainFile.empty() ? Facts->MainFile
                                                       : M.getSourceFileName();
  char Buf[512];
  size_t N = klto_default_modname(Buf, sizeof(Buf), toKStr(Path));
  return std::string(Buf, std::min(N, sizeof(Buf) - 1));
}

static bool isEntrySection(NamingContext &Ctx, StringRef Sec) {
  klto_str Table, Id;
  return klto_is_table(Ctx.tables(), toKStr(Sec)) &&
         !klto_split_entry_section(Ctx.tables(), toKStr(Sec), &Table, &Id);
}

std::vector<GlobalVariable *> findVarEntries(NamingContext &Ctx) {
  std::vector<GlobalVariable *> Entries;
  for (GlobalVariable &GV : Ctx.M.globals())
    if (GV.hasSection() && !GV.isDeclaration() &&
        isEntrySection(Ctx, GV.getSection()))
      Entries.push_back(&GV);
  return Entries;
}

/// The function an entry registers: the first one its initializer names
/// (a plain function pointer, or the hook field of a fixup-like struct).
static const GlobalValue *registeredFunction(const Constant *C,
                                             unsigned Depth) {
  if (!C || Depth > 8)
    return nullptr;
  const Value *V = C->stripPointerCasts();
  if (const auto *F = dyn_cast<Function>(V))
    return F;
  if (const auto *A = dyn_cast<GlobalAlias>(V))
    return A;
  if (isa<GlobalVariable>(V))
    return nullptr;
  for (const Use &Op : C->operands())
    if (const auto *Sub = dyn_cast<Constant>(Op.get()))
      if (const GlobalValue *F = registeredFunction(Sub, Depth + 1))
        return F;
  return nullptr;
}

unsigned debugLine(const GlobalVariable &GV) {
  SmallVector<DIGlobalVariableExpression *, 1> GVEs;
  GV.getDebugInfo(GVEs);
  for (DIGlobalVariableExpression *E : GVEs)
    if (DIGlobalVariable *Var = E->getVariable())
      return Var->getLine();
  return 0;
}

void nameVarEntry(NamingContext &Ctx, GlobalVariable &GV,
                  unsigned long long Counter, unsigned Line, Site Where) {
  StringRef Table = GV.getSection();
  const GlobalValue *Fn = registeredFunction(GV.getInitializer(), 0);
  // The id names the function; an entry without one (0, &data) would be
  // ordered under a made-up name nobody registered.
  if (!Fn) {
    Ctx.Diags.report(Reporter::Level::Error, Where,
                     "entry '" + GV.getName() + "' in table '" + Table +
                         "' references no function, so it cannot be given a "
                         "unique name; it was left unchanged and will not be "
                         "ordered");
    return;
  }
  std::string FnName = Fn->getName().str();
  if (!klto_is_symbol_name(toKStr(FnName))) {
    Ctx.Diags.report(Reporter::Level::Error, Where,
                     "cannot give the entry '" + GV.getName() + "' in '" +
                         Table + "' a unique name: '" + FnName +
                         "' is not a plain symbol name");
    return;
  }
  char Id[1024];
  size_t N = klto_format_id(Id, sizeof(Id), toKStr(Ctx.ModName), Counter, Line,
                            toKStr(FnName));
  if (N >= sizeof(Id)) {
    Ctx.Diags.report(Reporter::Level::Error, Where,
                     "the id of entry '" + GV.getName() + "' is too long");
    return;
  }
  klto_str Level{nullptr, 0};
  if (!klto_initcall_level(toKStr(Table), &Level))
    Level = {nullptr, 0};
  std::string Symbol(
      klto_format_entry_symbol(nullptr, 0, klto_str_c(Id), Level), '\0');
  klto_format_entry_symbol(Symbol.data(), Symbol.size() + 1, klto_str_c(Id),
                           Level);
  std::string Section = (Table + ".." + Id).str();
  std::string Old = GV.getName().str();
  GV.setName(Symbol);
  GV.setSection(Section);
  Ctx.remark(Where, "entry '" + Old + "' registering '" + FnName +
                        "' now in section '" + Section + "' as '" +
                        GV.getName() + "'");
}

} // namespace klto

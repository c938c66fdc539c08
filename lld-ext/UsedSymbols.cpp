//===- UsedSymbols.cpp - LTO's late library calls kept defined ------------===//
#include "UsedSymbols.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/LTO/LTO.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ObjectFile.h"

#include <atomic>

#include <fcntl.h>
#include <unistd.h>
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/TargetSelect.h"

namespace klto::ld {

namespace {
const char *const LinuxUsedSymbols[] = {
    "memcpy", "memmove", "memset", "__stack_chk_fail", "__stack_chk_guard"};

/// Which of the listed names each input defines, in link order.
class Definitions {
public:
  explicit Definitions(llvm::ArrayRef<std::string> Names) {
    for (const std::string &N : Names)
      Wanted.insert(N);
  }

  void read(const LinkInput &In) {
    auto Buf = llvm::MemoryBuffer::getFile(In.Path, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    if (!Buf)
      return; // LLD reports it
    llvm::MemoryBufferRef Ref = (*Buf)->getMemBufferRef();
    if (llvm::identify_magic(Ref.getBuffer()) == llvm::file_magic::archive)
      return readArchive(Ref, In.WholeArchive);
    readObject(Ref, In.Lazy);
  }

  std::vector<std::string> kept() const {
    std::vector<std::string> R;
    for (const auto &E : Keep)
      R.push_back(E.getKey().str());
    std::sort(R.begin(), R.end());
    return R;
  }

private:
  void define(llvm::StringRef Name, bool Lazy, bool Bitcode) {
    if (!Wanted.contains(Name))
      return;
    if (Lazy)
      LazilyDefined.insert(Name);
    else if (Bitcode && !LazilyDefined.contains(Name))
      Keep.insert(Name);
  }

  void readObject(llvm::MemoryBufferRef Ref, bool Lazy) {
    if (llvm::identify_magic(Ref.getBuffer()) == llvm::file_magic::bitcode) {
      auto F = llvm::lto::InputFile::create(Ref);
      if (!F) {
        llvm::consumeError(F.takeError());
        return;
      }
      for (const llvm::lto::InputFile::Symbol &S : (*F)->symbols())
        if (!S.isUndefined())
          define(S.getName(), Lazy, true);
      return;
    }
    // Native definitions matter only where they are lazy: one that is
    // always loaded is visible to LTO already.
    if (!Lazy)
      return;
    auto Obj = llvm::object::ObjectFile::createObjectFile(Ref);
    if (!Obj) {
      llvm::consumeError(Obj.takeError());
      return;
    }
    for (const llvm::object::SymbolRef &S : (*Obj)->symbols()) {
      auto Flags = S.getFlags();
      auto Name = S.getName();
      if (Flags && Name && !(*Flags & llvm::object::SymbolRef::SF_Undefined))
        define(*Name, true, false);
      if (!Flags)
        llvm::consumeError(Flags.takeError());
      if (!Name)
        llvm::consumeError(Name.takeError());
    }
  }

  void readArchive(llvm::MemoryBufferRef Ref, bool WholeArchive) {
    auto Ar = llvm::object::Archive::create(Ref);
    if (!Ar) {
      llvm::consumeError(Ar.takeError());
      return;
    }
    if (!WholeArchive) {
      for (const llvm::object::Archive::Symbol &S : (*Ar)->symbols())
        define(S.getName(), true, false);
      return;
    }
    llvm::Error Err = llvm::Error::success();
    for (const llvm::object::Archive::Child &C : (*Ar)->children(Err))
      if (auto M = C.getMemoryBufferRef())
        readObject(*M, false);
      else
        llvm::consumeError(M.takeError());
    llvm::consumeError(std::move(Err));
  }

  llvm::StringSet<> Wanted, LazilyDefined, Keep;
};
} // namespace

llvm::Expected<std::vector<std::string>> usedSymbolList(const KltoOptions &K) {
  std::vector<std::string> Names(std::begin(LinuxUsedSymbols),
                                 std::end(LinuxUsedSymbols));
  for (const std::string &Path : K.UsedSymbolFiles) {
    auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!Buf)
      return llvm::createStringError(Buf.getError(),
                                     "cannot read " + Path + ": " +
                                         Buf.getError().message());
    llvm::StringRef Text = (*Buf)->getBuffer();
    while (!Text.empty()) {
      auto [Line, Rest] = Text.split('\n');
      Text = Rest;
      Line = Line.split('#').first.trim();
      if (!Line.empty())
        Names.push_back(Line.str());
    }
  }
  Names.insert(Names.end(), K.UsedSymbolNames.begin(), K.UsedSymbolNames.end());
  return Names;
}

/// Whether `In` is, or as a --whole-archive holds, a bitcode file.
static bool isEagerBitcode(const LinkInput &In) {
  if (In.Lazy)
    return false;
  // Four bytes per file, every link pays for this look: open, pread and
  // close, not identify_magic(), whose file API costs more system calls.
  char Head[4];
  int FD = ::open(In.Path.c_str(), O_RDONLY | O_CLOEXEC);
  if (FD < 0)
    return false;
  ssize_t N = ::pread(FD, Head, sizeof(Head), 0);
  ::close(FD);
  if (N != sizeof(Head))
    return false;
  llvm::file_magic M = llvm::identify_magic(llvm::StringRef(Head, N));
  if (M == llvm::file_magic::bitcode)
    return true;
  if (M != llvm::file_magic::archive || !In.WholeArchive)
    return false;
  auto Buf = llvm::MemoryBuffer::getFile(In.Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return false;
  auto Ar = llvm::object::Archive::create((*Buf)->getMemBufferRef());
  if (!Ar) {
    llvm::consumeError(Ar.takeError());
    return false;
  }
  llvm::Error Err = llvm::Error::success();
  bool Found = false;
  for (const llvm::object::Archive::Child &C : (*Ar)->children(Err)) {
    auto Data = C.getBuffer();
    if (Data && llvm::identify_magic(*Data) == llvm::file_magic::bitcode)
      Found = true;
    if (!Data)
      llvm::consumeError(Data.takeError());
    if (Found)
      break;
  }
  llvm::consumeError(std::move(Err));
  return Found;
}

/// Whether a bitcode file is sure to be loaded: otherwise nothing is kept,
/// and no input is read further. The files are looked at on LLVM's thread
/// pool.
static bool hasEagerBitcode(llvm::ArrayRef<LinkInput> Inputs) {
  std::atomic<bool> Found{false};
  llvm::parallelFor(0, Inputs.size(), [&](size_t I) {
    if (!Found.load(std::memory_order_relaxed) && isEagerBitcode(Inputs[I]))
      Found.store(true, std::memory_order_relaxed);
  });
  return Found;
}

std::vector<std::string> usedSymbolsToKeep(llvm::ArrayRef<LinkInput> Inputs,
                                           llvm::ArrayRef<std::string> Names) {
  if (!hasEagerBitcode(Inputs))
    return {};
  // Bitcode symbol tables include module asm symbols, which need the
  // targets' asm parsers (LLD registers them only when it runs).
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmParsers();
  Definitions D(Names);
  for (const LinkInput &In : Inputs)
    D.read(In);
  return D.kept();
}

} // namespace klto::ld

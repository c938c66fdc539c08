//===- BitcodeTables.cpp - what the scanner reads of a bitcode file -------===//
//
// A bitcode file is a sequence of top-level blocks: per module an
// IDENTIFICATION block and a MODULE block, then a STRTAB block holding the
// names of every module before it (and a SYMTAB block LTO reads). Inside
// MODULE, the records read here (VERSION, TRIPLE, ASM, SECTIONNAME,
// GLOBALVAR) sit among sub-blocks (types, constants, metadata, function
// bodies) that are skipped whole by their length; only BLOCKINFO is read,
// as LLVM's reader does, in case it defines abbreviations module records
// use. GLOBALVAR's layout, from LLVM 5.0 on (bitcode version 2):
//   [strtab offset, strtab size, type, isconst, initid, linkage,
//    alignment, section, ...]
// initid is 0 for a declaration, section 0 for none, else 1 + an index
// into the SECTIONNAME records. Older bitcode lacks the two leading fields
// and keeps names in a symbol table block this reader does not read.
//
//===----------------------------------------------------------------------===//
#include "BitcodeTables.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/LLVMBitCodes.h"
#include "llvm/Bitstream/BitstreamReader.h"

#include <optional>

using llvm::Error;
using llvm::StringRef;

namespace klto::ld {

namespace {

Error malformed(const llvm::Twine &What) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), What);
}

std::string recordString(llvm::ArrayRef<uint64_t> Record) {
  std::string S;
  S.reserve(Record.size());
  for (uint64_t C : Record)
    S.push_back(static_cast<char>(C));
  return S;
}

/// A module read, its globals' names not yet looked up: they are in the
/// STRTAB block after it.
struct PendingModule {
  BitcodeTables Tables;
  std::vector<std::pair<uint64_t, uint64_t>> NameRanges;
  std::optional<StringRef> Strtab;
};

class FileReader {
public:
  explicit FileReader(StringRef Bytes) : Bytes(Bytes), Cursor(Bytes) {}

  Error read(std::vector<PendingModule> &Modules);

private:
  Error readModule(PendingModule &M);
  /// The code of the record `AbbrevID` starts, the cursor left at its start.
  llvm::Expected<unsigned> peekCode(unsigned AbbrevID);
  /// Whether a module record is one this reader keeps.
  static bool isRead(unsigned Code);
  /// Where a text record of the module goes, or null for other records.
  static std::string *textOf(unsigned Code, PendingModule &M);
  /// An unabbreviated text record, the cursor at its start.
  Error readUnabbrevText(std::string &Text);
  Error readGlobal(llvm::ArrayRef<uint64_t> Record, unsigned Version,
                   PendingModule &M);
  llvm::Expected<StringRef> readStrtab();

  StringRef Bytes;
  llvm::BitstreamCursor Cursor;
  llvm::BitstreamBlockInfo BlockInfo;
  llvm::SmallVector<uint64_t, 64> Record;
};

Error FileReader::read(std::vector<PendingModule> &Modules) {
  if (!Bytes.starts_with("BC\xC0\xDE"))
    return malformed("not a bitcode file");
  if (Error E = Cursor.JumpToBit(32))
    return E;
  // Bytes past the last block that cannot hold another are padding, as
  // LLVM's reader takes them.
  while (Cursor.getCurrentByteNo() + 8 < Bytes.size()) {
    llvm::Expected<llvm::BitstreamEntry> Entry = Cursor.advance();
    if (!Entry)
      return Entry.takeError();
    if (Entry->Kind == llvm::BitstreamEntry::Record) {
      if (llvm::Expected<unsigned> Code = Cursor.skipRecord(Entry->ID); !Code)
        return Code.takeError();
      continue;
    }
    if (Entry->Kind != llvm::BitstreamEntry::SubBlock)
      return malformed("malformed top-level block");
    if (Entry->ID == llvm::bitc::MODULE_BLOCK_ID) {
      Modules.emplace_back();
      if (Error E = readModule(Modules.back()))
        return E;
    } else if (Entry->ID == llvm::bitc::STRTAB_BLOCK_ID) {
      llvm::Expected<StringRef> Strtab = readStrtab();
      if (!Strtab)
        return Strtab.takeError();
      // It names every module before it that has none yet.
      for (auto M = Modules.rbegin(); M != Modules.rend() && !M->Strtab; ++M)
        M->Strtab = *Strtab;
    } else if (Error E = Cursor.SkipBlock()) {
      return E;
    }
  }
  return Error::success();
}

Error FileReader::readModule(PendingModule &M) {
  if (Error E = Cursor.EnterSubBlock(llvm::bitc::MODULE_BLOCK_ID))
    return E;
  unsigned Version = 0;
  for (;;) {
    llvm::Expected<llvm::BitstreamEntry> Entry = Cursor.advance();
    if (!Entry)
      return Entry.takeError();
    switch (Entry->Kind) {
    case llvm::BitstreamEntry::Error:
      return malformed("malformed module block");
    case llvm::BitstreamEntry::EndBlock:
      return Error::success();
    case llvm::BitstreamEntry::SubBlock:
      if (Entry->ID == llvm::bitc::BLOCKINFO_BLOCK_ID) {
        auto Info = Cursor.ReadBlockInfoBlock();
        if (!Info)
          return Info.takeError();
        if (!*Info)
          return malformed("malformed block info");
        BlockInfo = std::move(**Info);
        Cursor.setBlockInfo(&BlockInfo);
      } else if (Error E = Cursor.SkipBlock()) {
        return E;
      }
      continue;
    case llvm::BitstreamEntry::Record:
      break;
    }
    llvm::Expected<unsigned> Code = peekCode(Entry->ID);
    if (!Code)
      return Code.takeError();
    if (!isRead(*Code)) {
      // Most records (one per function declared or defined) are passed
      // over without being stored.
      if (llvm::Expected<unsigned> Skipped = Cursor.skipRecord(Entry->ID);
          !Skipped)
        return Skipped.takeError();
      continue;
    }
    std::string *Text = textOf(*Code, M);
    if (Text && Entry->ID == llvm::bitc::UNABBREV_RECORD) {
      if (Error E = readUnabbrevText(*Text))
        return E;
      continue;
    }
    Record.clear();
    if (llvm::Expected<unsigned> Read = Cursor.readRecord(Entry->ID, Record);
        !Read)
      return Read.takeError();
    if (Text) {
      *Text = recordString(Record);
      continue;
    }
    switch (*Code) {
    case llvm::bitc::MODULE_CODE_VERSION:
      if (Record.empty())
        return malformed("malformed version record");
      Version = Record[0];
      break;
    case llvm::bitc::MODULE_CODE_GLOBALVAR:
      if (Error E = readGlobal(Record, Version, M))
        return E;
      break;
    }
  }
}

std::string *FileReader::textOf(unsigned Code, PendingModule &M) {
  switch (Code) {
  case llvm::bitc::MODULE_CODE_TRIPLE:
    return &M.Tables.Triple;
  case llvm::bitc::MODULE_CODE_ASM:
    return &M.Tables.Asm;
  case llvm::bitc::MODULE_CODE_SECTIONNAME:
    return &M.Tables.Sections.emplace_back();
  default:
    return nullptr;
  }
}

Error FileReader::readUnabbrevText(std::string &Text) {
  // [code, length, characters...], each a VBR6: the module asm, thousands
  // of characters in a kernel object, goes straight into its string.
  if (llvm::Expected<uint32_t> Code = Cursor.ReadVBR(6); !Code)
    return Code.takeError();
  llvm::Expected<uint32_t> Length = Cursor.ReadVBR(6);
  if (!Length)
    return Length.takeError();
  if (*Length > Bytes.size())
    return malformed("malformed string record");
  Text.clear();
  Text.reserve(*Length);
  for (uint32_t I = 0; I < *Length; ++I) {
    llvm::Expected<uint64_t> C = Cursor.ReadVBR64(6);
    if (!C)
      return C.takeError();
    Text.push_back(static_cast<char>(*C));
  }
  return Error::success();
}

bool FileReader::isRead(unsigned Code) {
  switch (Code) {
  case llvm::bitc::MODULE_CODE_VERSION:
  case llvm::bitc::MODULE_CODE_TRIPLE:
  case llvm::bitc::MODULE_CODE_ASM:
  case llvm::bitc::MODULE_CODE_SECTIONNAME:
  case llvm::bitc::MODULE_CODE_GLOBALVAR:
    return true;
  default:
    return false;
  }
}

llvm::Expected<unsigned> FileReader::peekCode(unsigned AbbrevID) {
  if (AbbrevID != llvm::bitc::UNABBREV_RECORD) {
    llvm::Expected<const llvm::BitCodeAbbrev *> Abbrev =
        Cursor.getAbbrev(AbbrevID);
    if (!Abbrev)
      return Abbrev.takeError();
    if (!(*Abbrev)->getNumOperandInfos())
      return malformed("abbreviation without operands");
    const llvm::BitCodeAbbrevOp &Op = (*Abbrev)->getOperandInfo(0);
    if (Op.isLiteral())
      return static_cast<unsigned>(Op.getLiteralValue());
  }
  // The code is the record's first field: read it, then step back.
  uint64_t Start = Cursor.GetCurrentBitNo();
  llvm::Expected<unsigned> Code = AbbrevID == llvm::bitc::UNABBREV_RECORD
                                      ? Cursor.ReadVBR(6)
                                      : Cursor.readRecord(AbbrevID, Record);
  if (!Code)
    return Code.takeError();
  if (Error E = Cursor.JumpToBit(Start))
    return std::move(E);
  return *Code;
}

Error FileReader::readGlobal(llvm::ArrayRef<uint64_t> Record, unsigned Version,
                             PendingModule &M) {
  // Before bitcode version 2 (LLVM 5.0), names are in a symbol table
  // block and records lack the two leading fields; such files link, and
  // are scanned, as long as no global variable they define has a section.
  unsigned Skip = Version < 2 ? 0 : 2;
  if (Record.size() < Skip + 6)
    return malformed("malformed global variable record");
  uint64_t InitId = Record[Skip + 2], Section = Record[Skip + 5];
  if (!InitId || !Section)
    return Error::success();
  if (Section - 1 >= M.Tables.Sections.size())
    return malformed("global variable with an unknown section");
  // LLVM takes an empty section name for none.
  if (M.Tables.Sections[Section - 1].empty())
    return Error::success();
  if (Version < 2)
    return malformed("a global variable in section '" +
                     M.Tables.Sections[Section - 1] +
                     "' in bitcode from before LLVM 5.0: rebuild the file "
                     "with a current clang");
  M.Tables.Globals.push_back({StringRef(), static_cast<unsigned>(Section - 1)});
  M.NameRanges.push_back({Record[0], Record[1]});
  return Error::success();
}

llvm::Expected<StringRef> FileReader::readStrtab() {
  if (Error E = Cursor.EnterSubBlock(llvm::bitc::STRTAB_BLOCK_ID))
    return std::move(E);
  std::optional<StringRef> Blob;
  for (;;) {
    llvm::Expected<llvm::BitstreamEntry> Entry =
        Cursor.advanceSkippingSubblocks();
    if (!Entry)
      return Entry.takeError();
    if (Entry->Kind == llvm::BitstreamEntry::EndBlock)
      break;
    if (Entry->Kind != llvm::BitstreamEntry::Record)
      return malformed("malformed string table block");
    StringRef Data;
    Record.clear();
    llvm::Expected<unsigned> Code = Cursor.readRecord(Entry->ID, Record, &Data);
    if (!Code)
      return Code.takeError();
    if (*Code == llvm::bitc::STRTAB_BLOB)
      Blob = Data;
  }
  if (!Blob)
    return malformed("string table block without a string table");
  return *Blob;
}

} // namespace

Error readBitcodeTables(llvm::MemoryBufferRef Buf,
                        llvm::function_ref<void(const BitcodeTables &)> F) {
  const unsigned char *Begin =
      reinterpret_cast<const unsigned char *>(Buf.getBufferStart());
  const unsigned char *End = Begin + Buf.getBufferSize();
  if (llvm::isBitcodeWrapper(Begin, End) &&
      llvm::SkipBitcodeWrapperHeader(Begin, End, /*VerifyBufferSize=*/true))
    return malformed("malformed bitcode wrapper header");
  std::vector<PendingModule> Modules;
  FileReader Reader(StringRef(reinterpret_cast<const char *>(Begin),
                              static_cast<size_t>(End - Begin)));
  if (Error E = Reader.read(Modules))
    return E;
  if (Modules.empty())
    return malformed("no module in the file");
  for (PendingModule &M : Modules) {
    if (!M.NameRanges.empty() && !M.Strtab)
      return malformed("module without a string table");
    for (size_t I = 0; I < M.NameRanges.size(); ++I) {
      auto [Offset, Size] = M.NameRanges[I];
      if (Offset > M.Strtab->size() || Size > M.Strtab->size() - Offset)
        return malformed("global variable name outside the string table");
      M.Tables.Globals[I].Name = M.Strtab->substr(Offset, Size);
    }
    F(M.Tables);
  }
  return Error::success();
}

} // namespace klto::ld

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
// LLVM writes the module asm (a field per character) and the record of
// every function it declares or defines unabbreviated, each field a VBR6.
// Those fields are most of what this reader reads, so unabbreviated
// records are decoded here straight from the bytes (Vbr6Fields) rather
// than a field at a time through BitstreamCursor.
//
//===----------------------------------------------------------------------===//
#include "BitcodeTables.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/bit.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/LLVMBitCodes.h"
#include "llvm/Bitstream/BitstreamReader.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/Endian.h"

#include <cstring>
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

/// The VBR6 fields of an unabbreviated record, from bit `BitNo` of
/// `Bytes`. One unaligned load of 8 bytes holds the next 9 chunks of 6
/// bits: a field of 1 or 2 chunks (a character of module asm, most
/// numbers) is decoded from one load, and fields passed over are counted 9
/// chunks at a time by their end bits.
class Vbr6Fields {
public:
  Vbr6Fields(StringRef Bytes, uint64_t BitNo) : Bytes(Bytes), BitNo(BitNo) {}

  /// The next field, or false if it runs past the bytes or past 64 bits.
  bool next(uint64_t &Value) {
    if (unsigned Chunks = shortField(window(), Value))
      return advance(6 * Chunks);
    return nextLong(Value);
  }

  /// Passes over `N` fields.
  bool skip(uint64_t N) {
    while (N) {
      uint64_t Ends = ~window() & EndBits;
      unsigned Count = llvm::popcount(Ends);
      if (Count < N) {
        N -= Count;
        if (!advance(54))
          return false;
        continue;
      }
      for (; N > 1; --N)
        Ends &= Ends - 1;
      return advance(llvm::countr_zero(Ends) + 1);
    }
    return true;
  }

  /// `N` fields, one character each, into `Text`: the characters of one
  /// window are taken without reloading it.
  bool text(uint64_t N, std::string &Text) {
    Text.resize(N);
    uint64_t Window = 0, C;
    unsigned Avail = 0;
    for (char &Out : Text) {
      if (Avail < 12) {
        Window = window();
        Avail = 54;
      }
      if (unsigned Chunks = shortField(Window, C)) {
        Window >>= 6 * Chunks;
        Avail -= 6 * Chunks;
        BitNo += 6 * Chunks;
      } else if (nextLong(C)) {
        Avail = 0;
      } else {
        return false;
      }
      Out = static_cast<char>(C);
    }
    // Past the end, window() reads zeros: one-chunk characters.
    return BitNo <= Bytes.size() * 8;
  }

  uint64_t bitNo() const { return BitNo; }
  uint64_t bitsLeft() const { return Bytes.size() * 8 - BitNo; }

private:
  /// Bit 5 of each of the 9 chunks a window holds: clear where a field ends.
  static constexpr uint64_t EndBits = 0x0020820820820820;

  /// The bits from BitNo on (at least 57 of them), zeros past the end.
  uint64_t window() const {
    size_t Byte = BitNo / 8;
    if (LLVM_UNLIKELY(Byte + 8 > Bytes.size()))
      return tailWindow();
    return llvm::support::endian::read64le(Bytes.data() + Byte) >> BitNo % 8;
  }

  LLVM_ATTRIBUTE_NOINLINE uint64_t tailWindow() const {
    size_t Byte = BitNo / 8;
    uint8_t Tail[8] = {};
    if (Byte < Bytes.size())
      memcpy(Tail, Bytes.data() + Byte, Bytes.size() - Byte);
    return llvm::support::endian::read64le(Tail) >> BitNo % 8;
  }

  bool advance(uint64_t Bits) {
    if (Bits > bitsLeft())
      return false;
    BitNo += Bits;
    return true;
  }

  /// A field of 1 or 2 chunks (a character, most numbers) at the start of
  /// `Window`: its number of chunks, or 0 for a longer field.
  static unsigned shortField(uint64_t Window, uint64_t &Value) {
    if (!(Window & 32)) {
      Value = Window & 31;
      return 1;
    }
    if (!(Window & 32 << 6)) {
      Value = (Window & 31) | (Window >> 6 & 31) << 5;
      return 2;
    }
    return 0;
  }

  /// A field of any length: at most 13 chunks fit 64 bits.
  LLVM_ATTRIBUTE_NOINLINE bool nextLong(uint64_t &Value) {
    Value = 0;
    uint64_t Window = 0;
    for (unsigned I = 0; I < 13; ++I, Window >>= 6) {
      if (I % 9 == 0)
        Window = window();
      if (!advance(6))
        return false;
      Value |= (Window & 31) << 5 * I;
      if (!(Window & 32))
        return true;
    }
    return false;
  }

  StringRef Bytes;
  uint64_t BitNo;
};

/// The fields of a GLOBALVAR record read, up to its section (layout above).
constexpr uint64_t GlobalFieldsRead = 8;

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
  /// Reads the record `AbbrevID` starts if isRead(its code), else passes
  /// over it, and returns its code: a text record into its string of `M`,
  /// any other into Record.
  llvm::Expected<unsigned> readOrSkip(unsigned AbbrevID, PendingModule &M);
  /// The code of the abbreviated record `AbbrevID` starts, the cursor left
  /// at its start.
  llvm::Expected<unsigned> peekCode(unsigned AbbrevID);
  /// Whether a module record is one this reader keeps.
  static bool isRead(unsigned Code);
  /// Where a text record of the module goes, or null for other records.
  static std::string *textOf(unsigned Code, PendingModule &M);
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
    // Text records are read into their string; the switch takes the rest.
    llvm::Expected<unsigned> Code = readOrSkip(Entry->ID, M);
    if (!Code)
      return Code.takeError();
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

llvm::Expected<unsigned> FileReader::readOrSkip(unsigned AbbrevID,
                                                PendingModule &M) {
  Record.clear();
  if (AbbrevID != llvm::bitc::UNABBREV_RECORD) {
    llvm::Expected<unsigned> Code = peekCode(AbbrevID);
    if (!Code)
      return Code.takeError();
    if (!isRead(*Code))
      return Cursor.skipRecord(AbbrevID);
    if (Error E = Cursor.readRecord(AbbrevID, Record).takeError())
      return std::move(E);
    if (std::string *Text = textOf(*Code, M))
      *Text = recordString(Record);
    return *Code;
  }
  // [code, number of fields, fields...]
  Vbr6Fields Fields(Bytes, Cursor.GetCurrentBitNo());
  uint64_t Code, NumFields;
  if (!Fields.next(Code) || !Fields.next(NumFields) ||
      NumFields > Fields.bitsLeft() / 6)
    return malformed("malformed module record");
  bool Ok;
  if (!isRead(Code)) {
    Ok = Fields.skip(NumFields);
  } else if (std::string *Text = textOf(Code, M)) {
    Ok = Fields.text(NumFields, *Text);
  } else {
    // Of a global variable, the fields up to its section; the rest are
    // passed over.
    uint64_t Wanted =
        Code == llvm::bitc::MODULE_CODE_GLOBALVAR ? GlobalFieldsRead : NumFields;
    Ok = true;
    uint64_t Field;
    for (uint64_t I = 0; Ok && I < std::min(Wanted, NumFields); ++I)
      if ((Ok = Fields.next(Field)))
        Record.push_back(Field);
    if (Ok && Wanted < NumFields)
      Ok = Fields.skip(NumFields - Wanted);
  }
  if (!Ok)
    return malformed("malformed module record");
  if (Error E = Cursor.JumpToBit(Fields.bitNo()))
    return std::move(E);
  return static_cast<unsigned>(Code);
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
  llvm::Expected<const llvm::BitCodeAbbrev *> Abbrev =
      Cursor.getAbbrev(AbbrevID);
  if (!Abbrev)
    return Abbrev.takeError();
  if (!(*Abbrev)->getNumOperandInfos())
    return malformed("abbreviation without operands");
  const llvm::BitCodeAbbrevOp &Op = (*Abbrev)->getOperandInfo(0);
  if (Op.isLiteral())
    return static_cast<unsigned>(Op.getLiteralValue());
  // The code is the record's first field: read it, then step back.
  uint64_t Start = Cursor.GetCurrentBitNo();
  llvm::Expected<unsigned> Code = Cursor.readRecord(AbbrevID, Record);
  if (!Code)
    return Code.takeError();
  Record.clear();
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
  static_assert(GlobalFieldsRead >= 2 + 6, "the section field is read");
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

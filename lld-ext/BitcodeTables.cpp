//===- BitcodeTables.cpp - what the scanner reads of a bitcode file -------===//
//
// A bitcode file is a sequence of top-level blocks: per module an
// IDENTIFICATION block and a MODULE block, then a STRTAB block holding the
// names of every module before it (and a SYMTAB block LTO reads). Inside
// MODULE, the records read here (VERSION, TRIPLE, ASM, SECTIONNAME,
// GLOBALVAR) sit among sub-blocks (types, constants, metadata, function
// bodies) that are skipped whole by their length. BLOCKINFO is skipped too:
// the abbreviations it defines join a block when that block is entered,
// and the only blocks this reader enters, MODULE and STRTAB, are entered
// where LLVM's reader has none (it reads each module with a BLOCKINFO of
// its own, from the module's start, and STRTAB with none at all).
// GLOBALVAR's layout, from LLVM 5.0 on (bitcode version 2):
//   [strtab offset, strtab size, type, isconst, initid, linkage,
//    alignment, section, ...]
// initid is 0 for a declaration, section 0 for none, else 1 + an index
// into the SECTIONNAME records. Older bitcode lacks the two leading fields
// and keeps names in a symbol table block this reader does not read.
//
// LLVM writes the module asm (a field per character) and the record of
// every function it declares or defines unabbreviated, each field a VBR6.
// Those records and the sub-blocks between them are most of what this
// reader reads, so the module block is walked here straight from the bytes
// (Bits); BitstreamCursor is left to what is rare there: abbreviation
// definitions, abbreviated records, and the block's end.
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

void appendRecordText(llvm::ArrayRef<uint64_t> Record,
                      llvm::SmallVectorImpl<char> &Text) {
  for (uint64_t C : Record)
    Text.push_back(static_cast<char>(C));
}

/// The bits of `Bytes` from bit `BitNo` on: abbreviation IDs, sub-block
/// headers, and the VBR6 fields of unabbreviated records. One unaligned
/// load of 8 bytes holds the next 9 chunks of 6 bits: a field of 1 or 2
/// chunks (a character of module asm, most numbers) is decoded from one
/// load, and fields passed over are counted 9 chunks at a time by their end
/// bits. Every read fails, rather than run, past the end.
class Bits {
public:
  Bits(StringRef Bytes, uint64_t BitNo) : Bytes(Bytes), BitNo(BitNo) {}

  /// A fixed-width field of at most 32 bits.
  bool fixed(unsigned Width, uint64_t &Value) {
    if (Width > 32)
      return false;
    Value = window() & ((uint64_t(1) << Width) - 1);
    return advance(Width);
  }

  /// Passes over a sub-block, its ENTER_SUBBLOCK abbreviation ID read:
  /// [block id (VBR8), abbreviation width (VBR4), <align 32>, length in
  /// 32-bit words, the block].
  bool skipBlock() {
    if (!skipVbr32(8) || !skipVbr32(4) || !advance((32 - BitNo % 32) % 32))
      return false;
    uint64_t Words;
    if (!fixed(32, Words) || !bitsLeft())
      return false;
    // A block may end at the end of the bytes.
    uint64_t End = BitNo + Words * 32;
    if (End / 8 > Bytes.size())
      return false;
    BitNo = End;
    return true;
  }

  /// The next VBR6 field, or false if it runs past the bytes or past 64
  /// bits.
  bool next(uint64_t &Value) {
    if (unsigned Chunks = shortField(window(), Value))
      return advance(6 * Chunks);
    return nextLong(Value);
  }

  /// Passes over `N` VBR6 fields.
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

  /// `N` VBR6 fields, one character each, appended to `Text`. Printable
  /// characters take two chunks each, so four of them in a row are decoded
  /// together from the 48 bits that hold them.
  bool text(uint64_t N, llvm::SmallVectorImpl<char> &Text) {
    size_t Old = Text.size();
    Text.resize_for_overwrite(Old + N);
    char *Out = Text.data() + Old, *End = Out + N;
    while (Out != End) {
      uint64_t Window = window(), C;
      if (End - Out >= 4 && (Window & FourCharEnds) == FourCharMore) {
        uint64_t Chars = (Window & LowChunks) | (Window >> 1 & HighChunks);
        for (unsigned I = 0; I < 4; ++I)
          Out[I] = static_cast<char>(Chars >> 12 * I);
        Out += 4;
        BitNo += 48;
        continue;
      }
      if (unsigned Chunks = shortField(Window, C))
        BitNo += 6 * Chunks;
      else if (!nextLong(C))
        return false;
      *Out++ = static_cast<char>(C);
    }
    // Past the end, window() reads zeros: one-chunk characters.
    return BitNo <= Bytes.size() * 8;
  }

  uint64_t bitNo() const { return BitNo; }
  uint64_t bitsLeft() const { return Bytes.size() * 8 - BitNo; }

private:
  /// A VBR of `Width`-bit chunks that fits 32 bits, as BitstreamCursor
  /// takes the numbers of a block header.
  bool skipVbr32(unsigned Width) {
    uint64_t Chunk;
    for (unsigned Read = 0; Read < 32; Read += Width - 1) {
      if (!fixed(Width, Chunk))
        return false;
      if (!(Chunk >> (Width - 1)))
        return true;
    }
    return false;
  }

  /// Bit 5 of each of the 9 chunks a window holds: clear where a field ends.
  static constexpr uint64_t EndBits = 0x0020820820820820;
  /// Four fields of two chunks, in 12-bit lanes: bit 5 of each lane set
  /// (more follows), bit 11 clear (the field ends); a lane's value is its
  /// bits 0-4 and, as bits 5-9, its bits 6-10.
  static constexpr uint64_t FourCharEnds = 0x820820820820;
  static constexpr uint64_t FourCharMore = 0x020020020020;
  static constexpr uint64_t LowChunks = 0x01F01F01F01F;
  static constexpr uint64_t HighChunks = 0x3E03E03E03E0;

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

  void clear() {
    Tables.clear();
    NameRanges.clear();
    Strtab.reset();
  }
};

/// The modules of one file, in storage the scanning thread keeps.
class ModuleList {
public:
  void reset() { Count = 0; }
  PendingModule &add() {
    if (Count == Modules.size())
      Modules.emplace_back();
    PendingModule &M = Modules[Count++];
    M.clear();
    return M;
  }
  llvm::MutableArrayRef<PendingModule> read() {
    return llvm::MutableArrayRef(Modules).take_front(Count);
  }

private:
  std::vector<PendingModule> Modules;
  size_t Count = 0;
};

class FileReader {
public:
  explicit FileReader(StringRef Bytes) : Bytes(Bytes), Cursor(Bytes) {}

  Error read(ModuleList &Modules);

private:
  Error readModule(PendingModule &M);
  /// Leaves the module block through the cursor, from its END_BLOCK.
  Error leaveModule(uint64_t EndBlockBit);
  /// The module records at `In`, after their abbreviation ID: read if
  /// isRead(their code), else passed over, and `In` moved past them. They
  /// return the code; a text record goes into its string of `M`, any other
  /// into Record. The cursor reads abbreviated records (readOnCursor, from
  /// where it stands).
  llvm::Expected<uint64_t> readUnabbreviated(Bits &In, PendingModule &M);
  llvm::Expected<uint64_t> readAbbreviated(unsigned AbbrevID, Bits &In,
                                           PendingModule &M);
  llvm::Expected<uint64_t> readOnCursor(unsigned AbbrevID, PendingModule &M);
  /// An abbreviation definition at `In`, read into the cursor.
  Error defineAbbrev(Bits &In);
  /// The code of the abbreviated record `AbbrevID` starts, the cursor left
  /// at its start.
  llvm::Expected<unsigned> peekCode(unsigned AbbrevID);
  /// Whether a module record is one this reader keeps.
  static bool isRead(uint64_t Code);
  /// Where a text record of the module goes, emptied (section names are
  /// added to the end), or null for other records.
  static llvm::SmallVectorImpl<char> *textOf(uint64_t Code, PendingModule &M);
  /// Ends the text record `Code` just read.
  static void endText(uint64_t Code, PendingModule &M);
  Error readGlobal(llvm::ArrayRef<uint64_t> Record, unsigned Version,
                   PendingModule &M);
  llvm::Expected<StringRef> readStrtab();

  StringRef Bytes;
  llvm::BitstreamCursor Cursor;
  llvm::SmallVector<uint64_t, 64> Record;
};

Error FileReader::read(ModuleList &Modules) {
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
      if (Error E = readModule(Modules.add()))
        return E;
    } else if (Entry->ID == llvm::bitc::STRTAB_BLOCK_ID) {
      llvm::Expected<StringRef> Strtab = readStrtab();
      if (!Strtab)
        return Strtab.takeError();
      // It names every module before it that has none yet.
      llvm::MutableArrayRef<PendingModule> Read = Modules.read();
      for (auto M = Read.rbegin(); M != Read.rend() && !M->Strtab; ++M)
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
  const unsigned Width = Cursor.getAbbrevIDWidth();
  Bits In(Bytes, Cursor.GetCurrentBitNo());
  unsigned Version = 0;
  for (;;) {
    uint64_t Start = In.bitNo(), AbbrevID;
    if (!In.fixed(Width, AbbrevID))
      return malformed("malformed module block");
    if (AbbrevID == llvm::bitc::END_BLOCK)
      return leaveModule(Start);
    if (AbbrevID == llvm::bitc::ENTER_SUBBLOCK) {
      if (!In.skipBlock())
        return malformed("malformed block in the module block");
      continue;
    }
    if (AbbrevID == llvm::bitc::DEFINE_ABBREV) {
      if (Error E = defineAbbrev(In))
        return E;
      continue;
    }
    llvm::Expected<uint64_t> Code =
        AbbrevID == llvm::bitc::UNABBREV_RECORD
            ? readUnabbreviated(In, M)
            : readAbbreviated(static_cast<unsigned>(AbbrevID), In, M);
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

Error FileReader::leaveModule(uint64_t EndBlockBit) {
  if (Error E = Cursor.JumpToBit(EndBlockBit))
    return E;
  llvm::Expected<llvm::BitstreamEntry> End = Cursor.advance();
  if (!End)
    return End.takeError();
  if (End->Kind != llvm::BitstreamEntry::EndBlock)
    return malformed("malformed end of the module block");
  return Error::success();
}

llvm::SmallVectorImpl<char> *FileReader::textOf(uint64_t Code,
                                                PendingModule &M) {
  switch (Code) {
  case llvm::bitc::MODULE_CODE_TRIPLE:
    M.Tables.Triple.clear();
    return &M.Tables.Triple;
  case llvm::bitc::MODULE_CODE_ASM:
    M.Tables.Asm.clear();
    return &M.Tables.Asm;
  case llvm::bitc::MODULE_CODE_SECTIONNAME:
    return &M.Tables.SectionText;
  default:
    return nullptr;
  }
}

void FileReader::endText(uint64_t Code, PendingModule &M) {
  if (Code == llvm::bitc::MODULE_CODE_SECTIONNAME)
    M.Tables.SectionEnds.push_back(M.Tables.SectionText.size());
}

Error FileReader::defineAbbrev(Bits &In) {
  if (Error E = Cursor.JumpToBit(In.bitNo()))
    return E;
  if (Error E = Cursor.ReadAbbrevRecord())
    return E;
  In = Bits(Bytes, Cursor.GetCurrentBitNo());
  return Error::success();
}

llvm::Expected<uint64_t>
FileReader::readAbbreviated(unsigned AbbrevID, Bits &In, PendingModule &M) {
  if (Error E = Cursor.JumpToBit(In.bitNo()))
    return std::move(E);
  llvm::Expected<uint64_t> Code = readOnCursor(AbbrevID, M);
  In = Bits(Bytes, Cursor.GetCurrentBitNo());
  return Code;
}

llvm::Expected<uint64_t> FileReader::readOnCursor(unsigned AbbrevID,
                                                  PendingModule &M) {
  Record.clear();
  llvm::Expected<unsigned> Code = peekCode(AbbrevID);
  if (!Code)
    return Code.takeError();
  if (!isRead(*Code))
    return Cursor.skipRecord(AbbrevID);
  if (Error E = Cursor.readRecord(AbbrevID, Record).takeError())
    return std::move(E);
  if (llvm::SmallVectorImpl<char> *Text = textOf(*Code, M)) {
    appendRecordText(Record, *Text);
    endText(*Code, M);
  }
  return *Code;
}

llvm::Expected<uint64_t> FileReader::readUnabbreviated(Bits &In,
                                                       PendingModule &M) {
  Record.clear();
  // [code, number of fields, fields...]
  uint64_t Code, NumFields;
  if (!In.next(Code) || !In.next(NumFields) || NumFields > In.bitsLeft() / 6)
    return malformed("malformed module record");
  bool Ok;
  if (!isRead(Code)) {
    Ok = In.skip(NumFields);
  } else if (llvm::SmallVectorImpl<char> *Text = textOf(Code, M)) {
    Ok = In.text(NumFields, *Text);
    endText(Code, M);
  } else {
    // Of a global variable, the fields up to its section; the rest are
    // passed over.
    uint64_t Wanted =
        Code == llvm::bitc::MODULE_CODE_GLOBALVAR ? GlobalFieldsRead : NumFields;
    Ok = true;
    uint64_t Field;
    for (uint64_t I = 0; Ok && I < std::min(Wanted, NumFields); ++I)
      if ((Ok = In.next(Field)))
        Record.push_back(Field);
    if (Ok && Wanted < NumFields)
      Ok = In.skip(NumFields - Wanted);
  }
  if (!Ok)
    return malformed("malformed module record");
  return Code;
}

bool FileReader::isRead(uint64_t Code) {
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
  if (Section - 1 >= M.Tables.numSections())
    return malformed("global variable with an unknown section");
  // LLVM takes an empty section name for none.
  if (M.Tables.section(Section - 1).empty())
    return Error::success();
  if (Version < 2)
    return malformed("a global variable in section '" +
                     M.Tables.section(Section - 1) +
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
  thread_local ModuleList Modules;
  Modules.reset();
  FileReader Reader(StringRef(reinterpret_cast<const char *>(Begin),
                              static_cast<size_t>(End - Begin)));
  if (Error E = Reader.read(Modules))
    return E;
  if (Modules.read().empty())
    return malformed("no module in the file");
  for (PendingModule &M : Modules.read()) {
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

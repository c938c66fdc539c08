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
// (Bits), its abbreviations and abbreviated records included;
// BitstreamCursor walks the top-level blocks, enters and leaves the module
// block, and reads STRTAB.
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

  /// A fixed-width field of at most 64 bits.
  bool wide(unsigned Width, uint64_t &Value) {
    if (Width <= 32)
      return fixed(Width, Value);
    uint64_t High;
    if (Width > 64 || !fixed(32, Value) || !fixed(Width - 32, High))
      return false;
    Value |= High << 32;
    return true;
  }

  /// A VBR of `Width`-bit chunks (2 to 32 bits), whose value fits 64 bits.
  bool vbr(unsigned Width, uint64_t &Value) {
    if (Width < 2 || Width > 32)
      return false;
    Value = 0;
    const uint64_t More = uint64_t(1) << (Width - 1);
    for (unsigned Shift = 0; Shift < 64; Shift += Width - 1) {
      uint64_t Chunk;
      if (!fixed(Width, Chunk))
        return false;
      Value |= (Chunk & (More - 1)) << Shift;
      if (!(Chunk & More))
        return true;
    }
    return false;
  }

  /// Passes over `N` bits.
  bool pass(uint64_t N) { return advance(N); }

  /// Moves on to the next multiple of 32 bits, where blobs and blocks
  /// start.
  bool alignTo32() { return advance((32 - BitNo % 32) % 32); }

  /// Passes over a sub-block, its ENTER_SUBBLOCK abbreviation ID read:
  /// [block id (VBR8), abbreviation width (VBR4), <align 32>, length in
  /// 32-bit words, the block].
  bool skipBlock() {
    if (!skipVbr32(8) || !skipVbr32(4) || !alignTo32())
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
  llvm::MutableArrayRef<PendingModule> added() {
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
  /// into Record.
  llvm::Expected<uint64_t> readUnabbreviated(Bits &In, PendingModule &M);
  llvm::Expected<uint64_t> readAbbreviated(unsigned AbbrevID, Bits &In,
                                           PendingModule &M);
  /// The operands of an abbreviated record after its code, into Record if
  /// `Keep`.
  Error readOperands(llvm::ArrayRef<llvm::BitCodeAbbrevOp> Ops, bool Keep,
                     Bits &In);
  /// An abbreviation definition at `In`, added to the module's.
  Error defineAbbrev(Bits &In);
  /// The operands of abbreviation `AbbrevID` of the module.
  llvm::Expected<llvm::ArrayRef<llvm::BitCodeAbbrevOp>>
  abbrev(uint64_t AbbrevID) const;
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
  /// The module block's abbreviations, end to end, and where each starts.
  llvm::SmallVector<llvm::BitCodeAbbrevOp, 32> AbbrevOps;
  llvm::SmallVector<unsigned, 8> AbbrevStarts;
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
      llvm::MutableArrayRef<PendingModule> Added = Modules.added();
      for (auto M = Added.rbegin(); M != Added.rend() && !M->Strtab; ++M)
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
  AbbrevOps.clear();
  AbbrevStarts.clear();
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
  // [number of operands (VBR5), operands: a literal (1, VBR8) or an
  //  encoding (0, fixed 3) with a width (VBR5) for Fixed and VBR]
  using Op = llvm::BitCodeAbbrevOp;
  uint64_t NumOps;
  if (!In.vbr(5, NumOps) || NumOps == 0 || NumOps > In.bitsLeft())
    return malformed("malformed abbreviation");
  AbbrevStarts.push_back(AbbrevOps.size());
  for (uint64_t I = 0; I < NumOps; ++I) {
    uint64_t IsLiteral, Value, Encoding;
    if (!In.fixed(1, IsLiteral))
      return malformed("malformed abbreviation");
    if (IsLiteral) {
      if (!In.vbr(8, Value))
        return malformed("malformed abbreviation");
      AbbrevOps.emplace_back(Value);
      continue;
    }
    if (!In.fixed(3, Encoding) || !Op::isValidEncoding(Encoding))
      return malformed("abbreviation with an unknown encoding");
    auto E = static_cast<Op::Encoding>(Encoding);
    if (!Op::hasEncodingData(E)) {
      AbbrevOps.emplace_back(E);
      continue;
    }
    if (!In.vbr(5, Value))
      return malformed("malformed abbreviation");
    // As LLVM's reader takes them: a field of no bits is a literal 0.
    if (Value == 0) {
      AbbrevOps.emplace_back(uint64_t(0));
      continue;
    }
    if (Value > (E == Op::Fixed ? 64 : 32) || (E == Op::VBR && Value < 2))
      return malformed("abbreviation with a field too wide or too narrow");
    AbbrevOps.emplace_back(E, Value);
  }
  return Error::success();
}

llvm::Expected<llvm::ArrayRef<llvm::BitCodeAbbrevOp>>
FileReader::abbrev(uint64_t AbbrevID) const {
  uint64_t I = AbbrevID - llvm::bitc::FIRST_APPLICATION_ABBREV;
  if (I >= AbbrevStarts.size())
    return malformed("record with an undefined abbreviation");
  size_t End =
      I + 1 < AbbrevStarts.size() ? AbbrevStarts[I + 1] : AbbrevOps.size();
  return llvm::ArrayRef(AbbrevOps).slice(AbbrevStarts[I],
                                         End - AbbrevStarts[I]);
}

/// One scalar operand (Fixed, VBR or Char6).
static bool readScalar(const llvm::BitCodeAbbrevOp &Op, Bits &In,
                       uint64_t &Value) {
  switch (Op.getEncoding()) {
  case llvm::BitCodeAbbrevOp::Fixed:
    return In.wide(static_cast<unsigned>(Op.getEncodingData()), Value);
  case llvm::BitCodeAbbrevOp::VBR:
    return In.vbr(static_cast<unsigned>(Op.getEncodingData()), Value);
  case llvm::BitCodeAbbrevOp::Char6:
    if (!In.fixed(6, Value))
      return false;
    Value = static_cast<unsigned char>(
        llvm::BitCodeAbbrevOp::DecodeChar6(static_cast<unsigned>(Value)));
    return true;
  default:
    return false;
  }
}

llvm::Expected<uint64_t>
FileReader::readAbbreviated(unsigned AbbrevID, Bits &In, PendingModule &M) {
  llvm::Expected<llvm::ArrayRef<llvm::BitCodeAbbrevOp>> Ops = abbrev(AbbrevID);
  if (!Ops)
    return Ops.takeError();
  const llvm::BitCodeAbbrevOp &First = Ops->front();
  uint64_t Code;
  if (First.isLiteral())
    Code = First.getLiteralValue();
  else if (!readScalar(First, In, Code))
    return malformed("malformed abbreviated record code");
  Record.clear();
  bool Keep = isRead(Code);
  if (Error E = readOperands(Ops->drop_front(), Keep, In))
    return std::move(E);
  if (llvm::SmallVectorImpl<char> *Text = Keep ? textOf(Code, M) : nullptr) {
    appendRecordText(Record, *Text);
    endText(Code, M);
  }
  return Code;
}

Error FileReader::readOperands(llvm::ArrayRef<llvm::BitCodeAbbrevOp> Ops,
                               bool Keep, Bits &In) {
  using Op = llvm::BitCodeAbbrevOp;
  for (size_t I = 0; I < Ops.size(); ++I) {
    uint64_t Value, N;
    if (Ops[I].isLiteral()) {
      Value = Ops[I].getLiteralValue();
    } else if (Ops[I].getEncoding() == Op::Array) {
      // [length (VBR6), elements], the element's operand last.
      if (I + 2 != Ops.size() || Ops[I + 1].isLiteral() ||
          Ops[I + 1].getEncoding() == Op::Array ||
          Ops[I + 1].getEncoding() == Op::Blob)
        return malformed("malformed array abbreviation");
      if (!In.vbr(6, N) || N > In.bitsLeft())
        return malformed("malformed array");
      const Op &Element = Ops[I + 1];
      // Elements of a fixed width are passed over at once.
      if (!Keep && Element.getEncoding() != Op::VBR) {
        uint64_t Width =
            Element.getEncoding() == Op::Char6 ? 6 : Element.getEncodingData();
        if (!In.pass(N * Width))
          return malformed("malformed array");
        return Error::success();
      }
      for (uint64_t J = 0; J < N; ++J) {
        if (!readScalar(Element, In, Value))
          return malformed("malformed array");
        if (Keep)
          Record.push_back(Value);
      }
      return Error::success();
    } else if (Ops[I].getEncoding() == Op::Blob) {
      // [length (VBR6), <align 32>, bytes, <align 32>], the last operand.
      if (I + 1 != Ops.size() || !In.vbr(6, N) || !In.alignTo32() ||
          N > In.bitsLeft() / 8)
        return malformed("malformed blob");
      uint64_t Start = In.bitNo() / 8;
      if (Keep)
        for (uint64_t J = 0; J < N; ++J)
          Record.push_back(static_cast<unsigned char>(Bytes[Start + J]));
      if (!In.pass(N * 8) || !In.alignTo32())
        return malformed("malformed blob");
      return Error::success();
    } else if (!readScalar(Ops[I], In, Value)) {
      return malformed("malformed abbreviated record");
    }
    if (Keep)
      Record.push_back(Value);
  }
  return Error::success();
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
  if (Modules.added().empty())
    return malformed("no module in the file");
  for (PendingModule &M : Modules.added()) {
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

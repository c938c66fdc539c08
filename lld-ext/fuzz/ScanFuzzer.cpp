//===- ScanFuzzer.cpp - libFuzzer target for klto's input scanner ---------===//
//
// Arbitrary bytes as the inputs of a link: the first byte picks what they
// pretend to be (anything, an ELF object, an archive, bitcode, module asm,
// or a list of section names), so each reader sees mostly well-formed
// prefixes and then garbage. Whatever is found goes through the order
// computation and every writer, as in a real link; the bytes also go
// through the -r post-pass and the user-script rewriter.
// Bitcode is read by klto's own reader (BitcodeTables.h: its own bit
// reader over the module block, LLVM's bounds-checked bitstream cursor for
// the rest), never by LLVM's module reader, so malformed bitcode is fuzzed
// like any other input. Module asm is lexed only where it holds a table
// name's start (".initcall", or the tables above), which libFuzzer learns
// from the memmem that looks for it.
//
//===----------------------------------------------------------------------===//
#include "Scanner.h"
#include "order.h"
#include "orderfiles.h"
#include "scriptpatch.h"
#include "scripts.h"
#include "sectsort.h"

#include "llvm/Support/MemoryBufferRef.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

static void ignoreDiag(void *, klto_diag_level, size_t, const char *) {}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size == 0)
    return 0;
  static const char *Extra[] = {".fixup_final", "my_table"};
  klto_tables Tables{Extra, 2};
  klto::ld::Scanner S(Tables);

  std::string Bytes(reinterpret_cast<const char *>(Data) + 1, Size - 1);
  switch (Data[0] % 6) {
  case 0:
    break;
  case 1:
    Bytes.insert(0, Data[0] & 0x80 ? "\x7f"
                                     "ELF\x02\x01"
                                   : "\x7f"
                                     "ELF\x01\x02");
    break;
  case 2:
    Bytes.insert(0, Data[0] & 0x80 ? "!<thin>\n" : "!<arch>\n");
    break;
  case 3:
    Bytes.insert(0, "BC\xc0\xde");
    break;
  case 4:
    S.scanAsmText(Bytes,
                  Data[0] & 0x80 ? "aarch64-linux-gnu" : "x86_64-linux-gnu", 0);
    break;
  case 5: {
    // One section name per line, as if each came from its own input.
    size_t Start = 0;
    unsigned Input = 0;
    while (Start <= Bytes.size()) {
      size_t End = Bytes.find('\n', Start);
      if (End == std::string::npos)
        End = Bytes.size();
      std::string Name = Bytes.substr(Start, End - Start);
      S.scanAsmText(".section \"" + Name + "\"\nlabel" + std::to_string(Input) +
                        ":\n",
                    "x86_64-linux-gnu", Input);
      ++Input;
      Start = End + 1;
    }
    break;
  }
  }
  bool Relocatable = Data[0] & 0x20;
  S.WantSymbols = !Relocatable;
  if (Data[0] % 6 < 4) {
    llvm::MemoryBufferRef Buf(Bytes, "fuzz-input");
    if (llvm::Error E = S.scanBuffer(Buf, 0, Data[0] & 0x40))
      llvm::consumeError(std::move(E));
  }

  klto_order O{S.Entries.data(), S.Entries.size(), S.Origins.data(), &Tables,
               Relocatable};
  klto_order_compute(&O, ignoreDiag, nullptr);
  FILE *Null = std::fopen("/dev/null", "w");
  klto_write_order_map(Null, &O);
  klto_write_symbol_order(Null, &O);
  // The same bytes as a user's linker script to extend.
  klto_patch_script(Null, Bytes.data(), Bytes.size(), &Tables, Data[0] & 1);
  klto_script_places_tables(Bytes.data(), Bytes.size(), &Tables);
  std::fclose(Null);
  // The -r post-pass on whatever the input is, ranked as for a -r link.
  klto_strmap Ranks{};
  klto_order_rank_sections(&O, &Ranks, ignoreDiag, nullptr);
  std::vector<unsigned char> Copy(Bytes.begin(), Bytes.end());
  klto_sort_relocatable(Copy.data(), Copy.size(), &Tables, &Ranks);
  klto_strmap_free(&Ranks);
  return 0;
}

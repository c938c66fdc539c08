//===- ModuleAsm.h - rewrite module asm for LTO -----------------*- C++ -*-===//
//
// The IR side of libkltocore's asm rewriter: answers its questions about
// names from the module, turns its requests into stubs and aliases, and
// reports what it did.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_PLUGIN_MODULEASM_H
#define KLTO_PLUGIN_MODULEASM_H

#include "NamingContext.h"

#include "klto/asmrewrite.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace klto {

class ModuleAsmRewriter {
public:
  explicit ModuleAsmRewriter(NamingContext &Ctx);
  ~ModuleAsmRewriter();
  ModuleAsmRewriter(const ModuleAsmRewriter &) = delete;
  ModuleAsmRewriter &operator=(const ModuleAsmRewriter &) = delete;

  /// Adds the next chunk of the module asm (a view into the text passed to
  /// finish()). Entries are numbered from Counter on.
  void addChunk(llvm::StringRef Text, unsigned Line, int Decl,
                unsigned long long &Counter);

  /// Rewrites the module asm, creates stubs and aliases. Returns whether it
  /// changed the module.
  bool finish();

private:
  static enum klto_sym_class classify(void *Ctx, klto_str Name);
  static void needStub(void *Ctx, klto_str Target, const char *Stub,
                       bool IsData);
  static void entry(void *Ctx, const klto_asm_entry *E);
  static void labelRenamed(void *Ctx, klto_str Old, const char *New,
                           unsigned long long Line);
  static void diag(void *Ctx, klto_diag_level Level, size_t Chunk,
                   const char *Msg);

  struct StubRequest {
    std::string Target, Stub;
    bool IsData;
  };

  NamingContext &Ctx;
  klto_asm_options Opts;
  klto_asm_hooks Hooks;
  klto_asm_rewriter *RW;
  std::vector<int> ChunkDecls;
  std::vector<StubRequest> Stubs;
};

} // namespace klto

#endif // KLTO_PLUGIN_MODULEASM_H

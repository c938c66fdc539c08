//===- FrontEndFacts.h - what only the front end knows ----------*- C++ -*-===//
//
// The AST consumer that fills SourceFacts (and the reporter's source
// locations) for the pass, as Clang parses the translation unit.
//
//===----------------------------------------------------------------------===//
#ifndef KLTO_PLUGIN_FRONTENDFACTS_H
#define KLTO_PLUGIN_FRONTENDFACTS_H

#include "ClangReporter.h"
#include "SourceFacts.h"

#include <memory>

namespace clang {
class ASTConsumer;
class CompilerInstance;
} // namespace clang

namespace klto {

std::unique_ptr<clang::ASTConsumer> makeFrontEndFactsConsumer(
    clang::CompilerInstance &CI, std::shared_ptr<SourceFacts> Facts,
    std::shared_ptr<ClangReporter> Diags);

} // namespace klto

#endif // KLTO_PLUGIN_FRONTENDFACTS_H

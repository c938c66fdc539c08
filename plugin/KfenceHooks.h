//===- KfenceHooks.h - send allocations to the KFENCE runtime ---*- C++ -*-===//
#ifndef KLTO_PLUGIN_KFENCEHOOKS_H
#define KLTO_PLUGIN_KFENCEHOOKS_H

#include "NamingContext.h"

namespace klto {

/// Points every use of the malloc family (and the allocators named by
/// option) at the runtime's __kfence_* hooks, and asks the linker for the
/// runtime through llvm.dependent-libraries. Returns whether it changed the
/// module.
bool redirectAllocations(NamingContext &Ctx);

/// Checks one kfence-alloc value, "<fn>[:<libc fn>]": an empty string if
/// it is one, else what is wrong with it.
std::string checkKfenceAllocator(llvm::StringRef Spec);

} // namespace klto

#endif // KLTO_PLUGIN_KFENCEHOOKS_H

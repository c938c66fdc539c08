// Full LTO merges every file into one module and renames clashing statics,
// but asm that names a static keeps its old name: without klto both files'
// entries silently run the FIRST file's init (the program's output proves
// it). With the plugin each file's asm goes through its own stub.
// RUN: rm -rf %t && split-file %s %t && cd %t
// RUN: %clang -O2 -flto --ld-path=%stock_ld a.c b.c main.c -o plain
// RUN: ./plain | FileCheck %s --check-prefix=BROKEN
// RUN: %clang -O2 -flto -fplugin=%plugin --ld-path=%stock_ld a.c b.c main.c -o klto
// RUN: ./klto | FileCheck %s --check-prefix=FIXED
// BROKEN: a.c init
// BROKEN-NEXT: a.c init
// FIXED: a.c init
// FIXED-NEXT: b.c init

//--- table.h
#include <stdio.h>
#define LOG() puts(__FILE__ " init")
// A fixup-style table: one PREL32 offset per entry, no label.
#define REGISTER(fn) __asm__(".pushsection mytable, \"a\"\n.long " #fn " - .\n.popsection\n");
//--- a.c
#include "table.h"
static __attribute__((used)) int init(void) { LOG(); return 0; }
REGISTER(init)
//--- b.c
#include "table.h"
static __attribute__((used)) int init(void) { LOG(); return 0; }
REGISTER(init)
//--- main.c
extern const int __start_mytable[], __stop_mytable[];
int main(void) {
  for (const int *p = __start_mytable; p < __stop_mytable; ++p)
    ((int (*)(void))((const char *)p + *p))();
  return 0;
}

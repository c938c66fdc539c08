#include "init.h"
#include <stdio.h>

static void storage_disks(void) { puts("storage: disks"); }
register_init(storage_disks);
static void storage_mount(void) { puts("storage: mount"); }
register_init(storage_mount);

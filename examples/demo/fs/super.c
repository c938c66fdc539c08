#include "demo.h"

DEMO_INIT(init)
fs_initcall(init);

DEMO_INIT(populate_rootfs)
rootfs_initcall(populate_rootfs);

DEMO_INIT(fs_sync)
late_initcall_sync(fs_sync);

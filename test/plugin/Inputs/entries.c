/* The same registrations for the pre-5.12 macros (+ klto) and the 5.12
 * LTO macros: compiled by shape-vs-linux512.c with either header. */
static int first(void) { return 1; }
static int second(void) { return 2; }
static int con(void) { return 3; }
core_initcall(first);
device_initcall(second);
late_initcall_sync(second);
console_initcall(con);

/* Defines what named.c's asm names; nothing here is referenced from C. */
int hits;
void bump(void) { hits++; }

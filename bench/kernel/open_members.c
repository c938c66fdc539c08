/* open_members.c - the least a scan of a thin archive's members can do:
 * open each member file named on standard input (one path a line), read
 * its first 4 KiB and close it. bench/kernel/ordering.sh times it as the
 * floor under any ordering step that reads the members. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void) {
  char path[4096], head[4096];
  long files = 0;
  while (fgets(path, sizeof path, stdin)) {
    path[strcspn(path, "\n")] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || pread(fd, head, sizeof head, 0) < 0) {
      perror(path);
      return 1;
    }
    close(fd);
    ++files;
  }
  printf("%ld files\n", files);
  return 0;
}

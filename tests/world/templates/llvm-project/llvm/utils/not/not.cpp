// not: runs a command and inverts its result (0 when it failed, 1 when it succeeded).
#include <cstdio>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int first = 1;
  bool expectCrash = false;
  if (argc > 1 && std::strcmp(argv[1], "--crash") == 0) {
    expectCrash = true;
    first = 2;
  }
  if (first >= argc) {
    std::fprintf(stderr, "usage: not [--crash] command [args...]\n");
    return 1;
  }
  pid_t pid = fork();
  if (pid == 0) {
    execvp(argv[first], argv + first);
    std::perror(argv[first]);
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0)
    return 1;
  if (expectCrash)
    return WIFSIGNALED(status) ? 0 : 1;
  if (WIFSIGNALED(status))
    return 1;
  return WEXITSTATUS(status) == 0 ? 1 : 0;
}

#ifndef LLD_COMMON_DRIVER_H
#define LLD_COMMON_DRIVER_H

#include <string>
#include <vector>

namespace lld {

struct Result {
  int retCode;
  std::string message;
};

/// Validates a link command line (the miniature does not write objects).
Result lldMain(const std::vector<std::string> &args);
void error(const std::string &msg);
unsigned errorCount();

namespace elf {
bool link(const std::vector<std::string> &args, std::string &diagnostics);
} // namespace elf

} // namespace lld

#endif

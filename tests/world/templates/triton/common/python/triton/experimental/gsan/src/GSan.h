#pragma once

namespace gsan {

struct Location {
  const char *file;
  unsigned line;
};

} // namespace gsan

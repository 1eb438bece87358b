#include "llvm/Support/Hashing.h"

#include <cstdio>

namespace llvm {

hash_code hash_value(std::string_view s) {
  hash_code h = 0xcbf29ce484222325ULL; // FNV-1a
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

hash_code hash_combine(hash_code a, hash_code b) {
  return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
}

std::string toHex(hash_code h) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

} // namespace llvm

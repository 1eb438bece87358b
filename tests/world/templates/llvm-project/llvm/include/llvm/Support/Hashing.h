#ifndef LLVM_SUPPORT_HASHING_H
#define LLVM_SUPPORT_HASHING_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {

using hash_code = std::uint64_t;

hash_code hash_value(std::string_view s);
hash_code hash_combine(hash_code a, hash_code b);

template <typename T> hash_code hash_combine_range(const std::vector<T> &values) {
  hash_code h = 0xcbf29ce484222325ULL;
  for (const T &v : values)
    h = hash_combine(h, hash_value(v));
  return h;
}

std::string toHex(hash_code h);

} // namespace llvm

#endif

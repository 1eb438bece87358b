#pragma once

#include <string>
#include <vector>

namespace triton_py {

struct CompileResult {
  bool ok = false;
  std::string error;
  std::string ttir, ttgir, llir;
};

CompileResult compileVectorAdd(long blockSize, int numWarps, const std::string &target);

std::string llvmRevision();
std::string llvmVersion();
std::vector<std::string> llvmTargets();
std::string llvmLinkedRevision();
std::string llvmLinkedBuildTree();

} // namespace triton_py

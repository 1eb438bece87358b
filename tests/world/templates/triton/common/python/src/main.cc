// triton._C.libtriton: the CPython extension module.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ir.h"
// %%IF PYBIND11_DOWNLOAD%%
// 3.0/3.1: the pybind11 headers setup.py downloaded (-DPYBIND11_INCLUDE_DIR).
#include <pybind11/pybind11.h>
// %%ENDIF%%

#include <string>

static PyObject *toList(const std::vector<std::string> &items) {
  PyObject *list = PyList_New(static_cast<Py_ssize_t>(items.size()));
  for (std::size_t i = 0; i < items.size(); ++i)
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), PyUnicode_FromString(items[i].c_str()));
  return list;
}

static PyObject *llvm_commit(PyObject *, PyObject *) { return PyUnicode_FromString(triton_py::llvmRevision().c_str()); }
static PyObject *llvm_version(PyObject *, PyObject *) { return PyUnicode_FromString(triton_py::llvmVersion().c_str()); }
static PyObject *llvm_targets(PyObject *, PyObject *) { return toList(triton_py::llvmTargets()); }
static PyObject *llvm_linked(PyObject *, PyObject *) {
  return Py_BuildValue("(ss)", triton_py::llvmLinkedRevision().c_str(), triton_py::llvmLinkedBuildTree().c_str());
}
static PyObject *build_type(PyObject *, PyObject *) { return PyUnicode_FromString(TRITON_BUILD_TYPE); }

static PyObject *backends(PyObject *, PyObject *) {
  std::string all = TRITON_BACKENDS;
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t end = all.find(',', start);
    if (end == std::string::npos)
      end = all.size();
    names.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return toList(names);
}

static PyObject *compile_vector_add(PyObject *, PyObject *args, PyObject *kwargs) {
  long blockSize = 1024;
  int numWarps = 4;
  const char *target = "nvidia";
  static const char *keywords[] = {"block_size", "num_warps", "target", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|lis", const_cast<char **>(keywords), &blockSize, &numWarps,
                                   &target))
    return nullptr;
  triton_py::CompileResult r = triton_py::compileVectorAdd(blockSize, numWarps, target);
  if (!r.ok) {
    PyErr_SetString(PyExc_RuntimeError, r.error.c_str());
    return nullptr;
  }
  return Py_BuildValue("{s:s,s:s,s:s}", "ttir", r.ttir.c_str(), "ttgir", r.ttgir.c_str(), "llir", r.llir.c_str());
}

static PyMethodDef methods[] = {
    {"llvm_commit", llvm_commit, METH_NOARGS, "The LLVM commit (40 hex digits) this module was built against."},
    {"llvm_version", llvm_version, METH_NOARGS, "The LLVM version string."},
    {"llvm_targets", llvm_targets, METH_NOARGS, "LLVM targets compiled into that LLVM."},
    {"llvm_linked", llvm_linked, METH_NOARGS,
     "(revision, build folder) of the LLVM libraries linked into this module (test world)."},
    {"build_type", build_type, METH_NOARGS, "CMAKE_BUILD_TYPE of this build."},
    {"backends", backends, METH_NOARGS, "Codegen backends compiled in."},
    {"compile_vector_add", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(compile_vector_add)),
     METH_VARARGS | METH_KEYWORDS, "Compile a vector-add kernel to TTIR, TTGIR and LLVM IR."},
    {nullptr, nullptr, 0, nullptr}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "libtriton", "Triton C++ core", -1, methods,
                                    nullptr, nullptr, nullptr, nullptr};

PyMODINIT_FUNC PyInit_libtriton(void) { return PyModule_Create(&module); }

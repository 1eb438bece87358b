# Helpers shared by the projects of the miniature llvm-project: libraries, tools, install
# components with install-<component> targets, and the <Project>Config.cmake packages.

set_property(GLOBAL PROPERTY LLVM_INSTALL_COMPONENTS "")

# An install component with an install-<name> target, as LLVM's add_llvm_install_targets makes.
function(llvm_install_component name)
  get_property(comps GLOBAL PROPERTY LLVM_INSTALL_COMPONENTS)
  if(name IN_LIST comps)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY LLVM_INSTALL_COMPONENTS ${name})
  add_custom_target(install-${name}
    COMMAND "${CMAKE_COMMAND}" -DCMAKE_INSTALL_COMPONENT=${name} -P "${CMAKE_BINARY_DIR}/cmake_install.cmake"
    USES_TERMINAL)
endfunction()

function(llvm_component_depends name)
  llvm_install_component(${name})
  if(ARGN)
    add_dependencies(install-${name} ${ARGN})
  endif()
endfunction()

# llvm_add_library(name EXPORT <set> COMPONENT <comp> SOURCES ... [LINK ...])
function(llvm_add_library name)
  cmake_parse_arguments(ARG "" "EXPORT;COMPONENT" "SOURCES;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  if(ARG_LINK)
    target_link_libraries(${name} PUBLIC ${ARG_LINK})
  endif()
  install(TARGETS ${name} EXPORT ${ARG_EXPORT}
    ARCHIVE DESTINATION lib COMPONENT ${ARG_COMPONENT}
    LIBRARY DESTINATION lib COMPONENT ${ARG_COMPONENT})
  set_property(GLOBAL APPEND PROPERTY ${ARG_EXPORT}_TARGETS ${name})
  llvm_component_depends(${ARG_COMPONENT} ${name})
endfunction()

# llvm_add_executable(name EXPORT <set> [UTILITY] SOURCES ... [LINK ...])
# Tools are built unless LLVM_BUILD_TOOLS is OFF; utilities (FileCheck, not, split-file) unless
# LLVM_BUILD_UTILS is OFF, and are installed (with an install-<name> target) only with
# LLVM_INSTALL_UTILS, exactly the rule the real build follows.
function(llvm_add_executable name)
  cmake_parse_arguments(ARG "UTILITY" "EXPORT" "SOURCES;LINK" ${ARGN})
  set(exclude "")
  if(ARG_UTILITY AND NOT LLVM_BUILD_UTILS)
    set(exclude EXCLUDE_FROM_ALL)
  elseif(NOT ARG_UTILITY AND NOT LLVM_BUILD_TOOLS)
    set(exclude EXCLUDE_FROM_ALL)
  endif()
  add_executable(${name} ${exclude} ${ARG_SOURCES})
  if(ARG_LINK)
    target_link_libraries(${name} PRIVATE ${ARG_LINK})
  endif()
  if(NOT ARG_UTILITY OR (LLVM_BUILD_UTILS AND LLVM_INSTALL_UTILS))
    install(TARGETS ${name} EXPORT ${ARG_EXPORT} RUNTIME DESTINATION bin COMPONENT ${name})
    set_property(GLOBAL APPEND PROPERTY ${ARG_EXPORT}_TARGETS ${name})
    llvm_component_depends(${name} ${name})
  endif()
endfunction()

function(llvm_install_headers component)
  cmake_parse_arguments(ARG "" "" "DIRECTORIES" ${ARGN})
  foreach(dir ${ARG_DIRECTORIES})
    install(DIRECTORY ${dir} DESTINATION include COMPONENT ${component}
      FILES_MATCHING PATTERN "*.h" PATTERN "*.def" PATTERN "*.inc" PATTERN "*.td")
  endforeach()
  llvm_component_depends(${component})
endfunction()

# Writes lib/cmake/<lower>/<Pkg>Config.cmake twice, like LLVM: for the build tree (pointing into
# the source and build directories) and for the install tree (relative to its own location).
# The template is <Pkg>Config.cmake.in next to the project's CMakeLists.txt in cmake/modules.
function(llvm_write_package_config lower Pkg exports)
  cmake_parse_arguments(ARG "" "TEMPLATE;COMPONENT" "" ${ARGN})
  if(NOT ARG_TEMPLATE)
    set(ARG_TEMPLATE "${CMAKE_CURRENT_SOURCE_DIR}/cmake/modules/${Pkg}Config.cmake.in")
  endif()
  if(NOT ARG_COMPONENT)
    set(ARG_COMPONENT cmake-exports)
  endif()
  set(build_dir "${LLVM_LIBRARY_DIR}/cmake/${lower}")
  export(EXPORT ${exports} FILE "${build_dir}/${exports}.cmake")

  # Build tree.
  set(PACKAGE_CONFIG_CODE "set(${Pkg}_PACKAGE_PREFIX \"${LLVM_BINARY_DIR}\")")
  set(PACKAGE_INCLUDE_DIRS "${${Pkg}_BUILD_INCLUDE_DIRS}")
  set(PACKAGE_LIBRARY_DIR "${LLVM_LIBRARY_DIR}")
  set(PACKAGE_TOOLS_DIR "${LLVM_TOOLS_BINARY_DIR}")
  set(PACKAGE_CMAKE_DIR "${build_dir}")
  set(PACKAGE_LLVM_CMAKE_DIR "${LLVM_LIBRARY_DIR}/cmake/llvm")
  configure_file(${ARG_TEMPLATE} "${build_dir}/${Pkg}Config.cmake" @ONLY)
  set(version_template "${CMAKE_CURRENT_SOURCE_DIR}/cmake/modules/${Pkg}ConfigVersion.cmake.in")
  if(EXISTS "${version_template}")
    configure_file("${version_template}" "${build_dir}/${Pkg}ConfigVersion.cmake" @ONLY)
    install(FILES "${build_dir}/${Pkg}ConfigVersion.cmake" DESTINATION lib/cmake/${lower} COMPONENT ${ARG_COMPONENT})
  endif()

  # Install tree: everything relative to <prefix>/lib/cmake/<lower>.
  set(PACKAGE_CONFIG_CODE "get_filename_component(${Pkg}_PACKAGE_PREFIX \"\${CMAKE_CURRENT_LIST_DIR}/../../..\" ABSOLUTE)")
  set(PACKAGE_INCLUDE_DIRS "\${${Pkg}_PACKAGE_PREFIX}/include")
  set(PACKAGE_LIBRARY_DIR "\${${Pkg}_PACKAGE_PREFIX}/lib")
  set(PACKAGE_TOOLS_DIR "\${${Pkg}_PACKAGE_PREFIX}/bin")
  set(PACKAGE_CMAKE_DIR "\${${Pkg}_PACKAGE_PREFIX}/lib/cmake/${lower}")
  set(PACKAGE_LLVM_CMAKE_DIR "\${${Pkg}_PACKAGE_PREFIX}/lib/cmake/llvm")
  configure_file(${ARG_TEMPLATE} "${CMAKE_BINARY_DIR}/install-config/${lower}/${Pkg}Config.cmake" @ONLY)
  install(FILES "${CMAKE_BINARY_DIR}/install-config/${lower}/${Pkg}Config.cmake"
    DESTINATION lib/cmake/${lower} COMPONENT ${ARG_COMPONENT})
  install(EXPORT ${exports} DESTINATION lib/cmake/${lower} COMPONENT ${ARG_COMPONENT})
  llvm_component_depends(${ARG_COMPONENT})
endfunction()

# install-distribution: installs exactly LLVM_DISTRIBUTION_COMPONENTS; a component without an
# install target is a configure error, as in LLVMDistributionSupport.cmake.
function(llvm_distribution_targets)
  get_property(comps GLOBAL PROPERTY LLVM_INSTALL_COMPONENTS)
  add_custom_target(distribution)
  add_custom_target(install-distribution)
  foreach(target ${LLVM_DISTRIBUTION_COMPONENTS})
    if(NOT target IN_LIST comps)
      message(SEND_ERROR "Specified distribution component '${target}' doesn't have an install target")
      continue()
    endif()
    add_dependencies(install-distribution install-${target})
  endforeach()
endfunction()

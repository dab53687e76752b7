# find_package(targetDP [COMPONENTS c cuda]): one imported target per
# installed backend, targetDP::c and targetDP::cuda, carrying the include
# directory, the configuration's compile definitions (layout, VVL, SAL,
# TPB), the OpenMP switches of the C build and the libraries to link.
# Sources that use the CUDA backend must be compiled as CUDA:
#   set_source_files_properties(x.c PROPERTIES LANGUAGE CUDA)
get_filename_component(_targetDP_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
file(GLOB _targetDP_backends "${CMAKE_CURRENT_LIST_DIR}/targetDP-*.cmake")
foreach(_f IN LISTS _targetDP_backends)
  include("${_f}")
endforeach()
if(NOT targetDP_FIND_COMPONENTS)
  if(NOT TARGET targetDP::c AND NOT TARGET targetDP::cuda)
    set(targetDP_FOUND FALSE)
    set(targetDP_NOT_FOUND_MESSAGE "no backend installed in ${_targetDP_prefix}")
  endif()
endif()
foreach(_c IN LISTS targetDP_FIND_COMPONENTS)
  if(NOT targetDP_${_c}_FOUND AND targetDP_FIND_REQUIRED_${_c})
    set(targetDP_FOUND FALSE)
    set(targetDP_NOT_FOUND_MESSAGE
        "backend '${_c}' is not installed in ${_targetDP_prefix} (make install TARGET=${_c} PREFIX=...)")
  endif()
endforeach()

# SPDX-License-Identifier: MIT
# Compiles GLSL to SPIR-V at build time and embeds it as a C array in a generated header, so
# the binary carries its shaders and nothing generated is committed. Dependencies on included
# headers (include/rsim/shared/*.h) are tracked through glslang's depfile.
#
#   rsim_add_shader(OUT_HEADERS_VAR <source> [STAGE comp|rgen|...] [DEFINES A=1] [NAME id])
# STAGE compiles one source as several stages (the ray-query and ray-generation builds).
function(rsim_add_shader out_var source)
  cmake_parse_arguments(ARG "" "NAME;STAGE" "DEFINES" ${ARGN})
  get_filename_component(src_abs ${source} ABSOLUTE)
  get_filename_component(base ${source} NAME)
  if(ARG_NAME)
    set(name ${ARG_NAME})
  else()
    string(MAKE_C_IDENTIFIER ${base} name)
  endif()
  set(out_dir ${CMAKE_BINARY_DIR}/generated/shaders)
  set(out ${out_dir}/${name}.spv.h)
  set(defs)
  if(ARG_STAGE)
    list(APPEND defs -S ${ARG_STAGE})
  endif()
  foreach(d IN LISTS ARG_DEFINES)
    list(APPEND defs -D${d})
  endforeach()
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
    COMMAND ${GLSLANG_VALIDATOR} --quiet --target-env vulkan1.2 -I${PROJECT_SOURCE_DIR}/include
            -I${CMAKE_CURRENT_SOURCE_DIR} ${defs} --vn rsim_spv_${name} --depfile ${out}.d -o ${out} ${src_abs}
    DEPENDS ${src_abs}
    DEPFILE ${out}.d
    COMMENT "GLSL ${base} -> ${name}.spv.h"
    VERBATIM)
  set(${out_var} ${${out_var}} ${out} PARENT_SCOPE)
endfunction()

# dike_layer(NAME [DEPS lower layers...] [LIBS other libraries...])
#
# The static library dike_NAME from src/NAME/*.c (src/cli/main.c is the executable, not the layer),
# linking DEPS (the layers below it that it calls) and LIBS, both PUBLIC.
#
# Internal headers stay beside their sources and are included as "NAME/x.h". So that only NAME and
# the layers above it can do so, NAME's include root is a folder of its own in the build tree,
# holding one link NAME -> src/NAME: it is a PUBLIC include directory of dike_NAME, and reaches a
# target only through a link to dike_NAME. A layer below NAME has no such path, so an upward
# #include fails to compile ("No such file or directory") before an upward call could fail to link.
function(dike_layer name)
  cmake_parse_arguments(L "" "" "DEPS;LIBS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.c)
  list(FILTER srcs EXCLUDE REGEX ".*/src/cli/main\\.c$")
  add_library(dike_${name} STATIC ${srcs})
  set(root ${PROJECT_BINARY_DIR}/layer-include/${name})
  file(MAKE_DIRECTORY ${root})
  if(NOT EXISTS ${root}/${name})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${name} ${root}/${name} SYMBOLIC)
  endif()
  target_include_directories(dike_${name} PUBLIC ${root})
  target_compile_options(dike_${name} PRIVATE ${DIKE_WARNINGS})
  foreach(dep ${L_DEPS})
    target_link_libraries(dike_${name} PUBLIC dike_${dep})
  endforeach()
  target_link_libraries(dike_${name} PUBLIC ${L_LIBS})
  set_property(GLOBAL APPEND PROPERTY DIKE_LAYERS ${name})
endfunction()

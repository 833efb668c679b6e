# The built-in catalog, compiled at build time (docs/design.md, "Start-up").
#
# catalog_gen (src/tools/catalog_gen.c) is a host tool built from the
# catalog's own parser and validator (the catalog and document sources of
# core, and util): it reads catalogs/${RS_CATALOG_FILE}, fails the build if
# the catalog is invalid, and writes generated/catalog_compiled.c, the
# catalog as const tables with its SHA-256 as a constant, and the projection
# model fitted to its calibration rows (src/core/model/projection.c, the
# fit a run would do). rs_core compiles that file;
# src/core/catalog/catalog_builtin.c and src/core/model/projection_builtin.c
# hand it out. Editing the catalog, the parser or the fit regenerates it.

set(RS_CATALOG_FILE rightsize-2026.12.0.yaml CACHE STRING "catalog file under catalogs/ compiled in")
set(RS_CATALOG_YAML ${CMAKE_SOURCE_DIR}/catalogs/${RS_CATALOG_FILE})
set(RS_CATALOG_COMPILED_C ${CMAKE_BINARY_DIR}/generated/catalog_compiled.c)

set(RS_CATALOG_GEN_SOURCES
    ${CMAKE_SOURCE_DIR}/src/tools/catalog_gen.c
    ${CMAKE_SOURCE_DIR}/src/core/catalog/catalog.c
    ${CMAKE_SOURCE_DIR}/src/core/catalog/catalog_parse.c
    ${CMAKE_SOURCE_DIR}/src/core/catalog/catalog_calibration.c
    ${CMAKE_SOURCE_DIR}/src/core/catalog/workload.c
    ${CMAKE_SOURCE_DIR}/src/core/profile/doc.c
    ${CMAKE_SOURCE_DIR}/src/core/profile/doc_yaml.c
    ${CMAKE_SOURCE_DIR}/src/core/profile/doc_json.c
    ${CMAKE_SOURCE_DIR}/src/core/model/projection.c)
add_executable(catalog_gen ${RS_CATALOG_GEN_SOURCES})
target_include_directories(catalog_gen PRIVATE ${CMAKE_SOURCE_DIR}/src/core/catalog
                           ${CMAKE_SOURCE_DIR}/src/core/profile ${CMAKE_SOURCE_DIR}/src/core/model)
target_link_libraries(catalog_gen PRIVATE rs_util rs_util_private PkgConfig::YAML PkgConfig::CJSON)

add_custom_command(
  OUTPUT ${RS_CATALOG_COMPILED_C}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated
  COMMAND catalog_gen ${RS_CATALOG_YAML} ${RS_CATALOG_FILE} ${RS_CATALOG_COMPILED_C}
  DEPENDS ${RS_CATALOG_YAML} catalog_gen
  COMMENT "Compiling catalogs/${RS_CATALOG_FILE} into tables"
  VERBATIM)
list(APPEND RS_CORE_SOURCES ${RS_CATALOG_COMPILED_C})

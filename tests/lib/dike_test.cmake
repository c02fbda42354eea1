# How every test is registered (included once from tests/CMakeLists.txt; docs/testing.md): two
# functions, one for C programs and one for scripts, so that the Open MPI environment, the
# temporary folder and the optional ../shared traces are set in one place.
#
#   dike_c_test(NAME name SOURCE file.c [RANKS n...] [CMOCKA] [LABELS l...] [TIMEOUT s])
#       file.c (relative to tests/) linked with the library; without RANKS one ctest `name` run as
#       `mpiexec -n 1`; with RANKS one ctest `name_np<N>` per rank count. CMOCKA links cmocka.
#   dike_script_test(NAME name SCRIPT file [ARGS a...] [MPI] [NEEDS_SHARED] [LABELS l...]
#                    [TIMEOUT s] [PROCESSORS n] [COST s] [SKIP77] [RUN_SERIAL] [DISABLED] [ENV k=v...])
#       `bash file ARGS` (`/usr/bin/python3 file ARGS` for a .py file), file relative to tests/ or
#       absolute. MPI appends the mpiexec command (MPIEXEC_NUMPROC_FLAG, then DIKE_MPIEXEC: the
#       scripts take them as their last arguments), adds the label `mpi` and PROCESSORS 2 (up to 4
#       ranks share the 2 cores, oversubscribed). NEEDS_SHARED passes DIKE_SHARED_DIR and lets exit
#       status 77 mean "skipped" (the script prints SKIP and why); SKIP77 does the latter alone.
#       COST: about how many seconds the test takes. ctest -j starts the costliest tests first,
#       and a clean build has no timing data of its own, so a long test would otherwise wait for
#       its turn in file order and could end up running alone at the end.
#   Every test gets DIKE_MPI_ENV and DIKE_TEST_TMP (its scripts' temporary folders, under the
#   build tree); ENV adds more. TIMEOUT defaults to 300 s (C) and 120 s (scripts).

pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)

# Open MPI refuses to run as root and to start more ranks than cores unless told; tests run as
# root in CI on a 2-core machine, so both go into every test here. The third setting: when a rank
# exits with a non-zero status (every refusal of bad input, every stop with a checkpoint), mpirun
# waits odls_base_sigkill_timeout (1 s) between the SIGTERM and the SIGKILL it sends the job's
# processes, and a failing `mpirun -np 1` took 2.2 s against 0.2 s without the wait. Our ranks
# have ended by then (they leave together, after MPI_Finalize), so the wait only costs time:
# hundreds of such runs in the suite (docs/testing.md, "The wait after a non-zero exit").
set(DIKE_MPI_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_odls_base_sigkill_timeout=0")
set(DIKE_MPIEXEC ${MPIEXEC_EXECUTABLE} --oversubscribe ${MPIEXEC_PREFLAGS})
set(DIKE_SHARED_DIR "${PROJECT_SOURCE_DIR}/../shared" CACHE PATH "The shared/ folder with real traces (optional)")
set(DIKE_TEST_TMP "${CMAKE_CURRENT_BINARY_DIR}/tmp")

function(dike_c_test)
  cmake_parse_arguments(T "CMOCKA" "NAME;SOURCE;TIMEOUT" "RANKS;LABELS" ${ARGN})
  if(NOT T_NAME OR NOT T_SOURCE)
    message(FATAL_ERROR "dike_c_test: NAME and SOURCE are required")
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_executable(${T_NAME} ${T_SOURCE})
  target_compile_options(${T_NAME} PRIVATE ${DIKE_WARNINGS})
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR}/unit)
  target_compile_definitions(${T_NAME} PRIVATE DIKE_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data"
                                               DIKE_SHARED_DIR="${DIKE_SHARED_DIR}")
  target_link_libraries(${T_NAME} PRIVATE dike)
  if(T_CMOCKA)
    target_link_libraries(${T_NAME} PRIVATE PkgConfig::CMOCKA)
  endif()
  set(env "${DIKE_MPI_ENV};DIKE_TEST_TMP=${DIKE_TEST_TMP}")
  if(NOT T_RANKS)
    add_test(NAME ${T_NAME} COMMAND ${DIKE_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:${T_NAME}>)
    set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT "${env}" TIMEOUT ${T_TIMEOUT})
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}")
    return()
  endif()
  foreach(np ${T_RANKS})
    add_test(NAME ${T_NAME}_np${np}
             COMMAND ${DIKE_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${np} $<TARGET_FILE:${T_NAME}>)
    set_tests_properties(${T_NAME}_np${np} PROPERTIES ENVIRONMENT "${env}" PROCESSORS ${np}
                                                      TIMEOUT ${T_TIMEOUT})
    set_tests_properties(${T_NAME}_np${np} PROPERTIES LABELS "${T_LABELS}")
  endforeach()
endfunction()

function(dike_script_test)
  cmake_parse_arguments(T "MPI;NEEDS_SHARED;SKIP77;RUN_SERIAL;DISABLED" "NAME;SCRIPT;TIMEOUT;PROCESSORS;COST"
                        "ARGS;LABELS;ENV" ${ARGN})
  if(NOT T_NAME OR NOT T_SCRIPT)
    message(FATAL_ERROR "dike_script_test: NAME and SCRIPT are required")
  endif()
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "dike_script_test(${T_NAME}): unknown arguments ${T_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT IS_ABSOLUTE "${T_SCRIPT}")
    set(T_SCRIPT "${CMAKE_CURRENT_SOURCE_DIR}/${T_SCRIPT}")
  endif()
  if(NOT EXISTS "${T_SCRIPT}")
    message(FATAL_ERROR "dike_script_test(${T_NAME}): no script ${T_SCRIPT}")
  endif()
  if(T_SCRIPT MATCHES "\\.py$")
    set(interp /usr/bin/python3) # Debian's, with python3-h5py (docs/testing.md)
  else()
    set(interp bash)
  endif()
  set(args ${T_ARGS})
  set(labels ${T_LABELS})
  set(env ${DIKE_MPI_ENV} DIKE_TEST_TMP=${DIKE_TEST_TMP} ${T_ENV})
  if(T_NEEDS_SHARED)
    list(APPEND env DIKE_SHARED_DIR=${DIKE_SHARED_DIR})
  endif()
  if(T_MPI)
    list(APPEND args ${MPIEXEC_NUMPROC_FLAG} ${DIKE_MPIEXEC})
    if(NOT "mpi" IN_LIST labels)
      list(APPEND labels mpi)
    endif()
    if(NOT T_PROCESSORS)
      set(T_PROCESSORS 2)
    endif()
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_test(NAME ${T_NAME} COMMAND ${interp} ${T_SCRIPT} ${args})
  # one property a call: values holding ';' (lists) stay one value each
  set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT "${env}")
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${labels}")
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT})
  if(T_PROCESSORS)
    set_tests_properties(${T_NAME} PROPERTIES PROCESSORS ${T_PROCESSORS})
  endif()
  if(T_COST)
    set_tests_properties(${T_NAME} PROPERTIES COST ${T_COST})
  endif()
  if(T_NEEDS_SHARED OR T_SKIP77)
    set_tests_properties(${T_NAME} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
  if(T_RUN_SERIAL)
    set_tests_properties(${T_NAME} PROPERTIES RUN_SERIAL TRUE)
  endif()
  if(T_DISABLED)
    set_tests_properties(${T_NAME} PROPERTIES DISABLED TRUE)
  endif()
endfunction()

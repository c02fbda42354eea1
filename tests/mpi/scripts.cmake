# Shell-script MPI tests (included from tests/CMakeLists.txt): scripts that run the dike-emu binary
# under the project's mpiexec command (DIKE_MPIEXEC, DIKE_MPI_ENV) with several rank counts.

# dike_mpi_script(NAME SCRIPT LABELS TIMEOUT [MPI] [SKIP77]): tests/mpi/SCRIPT run with the
# dike-emu binary (and, with MPI, the mpiexec command), in a per-build temporary folder; PROCESSORS 2
# when it starts ranks; SKIP77: exit status 77 means skipped.
function(dike_mpi_script name script labels timeout)
  set(args $<TARGET_FILE:dike-emu>)
  if("MPI" IN_LIST ARGN)
    list(APPEND args ${MPIEXEC_NUMPROC_FLAG} ${DIKE_MPIEXEC})
  endif()
  add_test(NAME ${name} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/${script} ${args})
  # (values with ';' are passed quoted, one property a call, so they stay one value)
  set_tests_properties(${name} PROPERTIES
    ENVIRONMENT "${DIKE_MPI_ENV};DIKE_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp")
  set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT ${timeout})
  if("MPI" IN_LIST ARGN)
    set_tests_properties(${name} PROPERTIES PROCESSORS 2)
  endif()
  if("SKIP77" IN_LIST ARGN)
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endfunction()

#   mpi_equivalence  SPEC determinism: identical /jobs /tenants /timeseries /summary /nodes for
#                    1, 2, 3, 4 ranks, repeated runs, and a coordinator that owns no nodes
#                    (the runs go one after the other; up to 4 ranks share the 2 cores, oversubscribed)
dike_mpi_script(mpi_equivalence equivalence.sh "mpi;equivalence" 180 MPI)
#   mpi_node_timeseries  /node_timeseries chunked, deflated, one writer per chunk; a job worked by hand
dike_mpi_script(mpi_node_timeseries node_timeseries.sh "mpi" 120 MPI)
#   mpi_span_abort   a gang across two ranks' nodes; a fatal error on rank 2 of 3 ends the job
dike_mpi_script(mpi_span_abort span_abort.sh "mpi" 120 MPI)
#   mpi_checkpoint   checkpoint/resume equals an uninterrupted run (any policy, any rank count)
dike_mpi_script(mpi_checkpoint checkpoint.sh "mpi;checkpoint" 300 MPI)
#   mpi_diskfull     a full disk (small tmpfs, needs root; else skipped): status 2, one line with
#                    errno's text, no crash in MPI_Finalize, nothing left on the disk; 1 and 2 ranks
dike_mpi_script(mpi_diskfull diskfull.sh "mpi" 180 MPI SKIP77)
#   mpi_ckpt_corrupt single-byte flips over a whole checkpoint: exit 0 with identical output or exit
#                    2 with one message, never a signal; a forged out-of-range node slot is refused
dike_mpi_script(mpi_ckpt_corrupt ckpt_corrupt.sh "mpi;checkpoint" 300 MPI)
#   mpi_ckpt_periodic for every policy, periodic checkpoints leave every output dataset unchanged
dike_mpi_script(mpi_ckpt_periodic ckpt_periodic.sh "mpi;checkpoint" 300)
#   mpi_kill9        kill -9 of rank 0 while it writes a checkpoint leaves only its temporary file;
#                    the next run to the same path removes it (77 = the write was not caught)
dike_mpi_script(mpi_kill9 kill9.sh "mpi;checkpoint" 180 MPI SKIP77)

# Shell-script MPI tests (included from tests/CMakeLists.txt): scripts that run the dike-emu binary
# under the project's mpiexec command (DIKE_MPIEXEC, DIKE_MPI_ENV) with several rank counts.
#   mpi_equivalence  SPEC determinism: identical /jobs /tenants /timeseries /summary /nodes for
#                    1, 2, 3, 4 ranks, repeated runs, and a coordinator that owns no nodes

add_test(NAME mpi_equivalence
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/equivalence.sh $<TARGET_FILE:dike-emu>
                 ${MPIEXEC_NUMPROC_FLAG} ${DIKE_MPIEXEC})
# The runs go one after the other; up to 4 ranks share the 2 cores (oversubscribed).
set_tests_properties(mpi_equivalence PROPERTIES
  ENVIRONMENT "${DIKE_MPI_ENV};DIKE_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp"
  LABELS "mpi;equivalence" PROCESSORS 2 TIMEOUT 180)

#   mpi_span_abort   a gang across two ranks' nodes; a fatal error on rank 2 of 3 ends the job
add_test(NAME mpi_span_abort
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/span_abort.sh $<TARGET_FILE:dike-emu>
                 ${MPIEXEC_NUMPROC_FLAG} ${DIKE_MPIEXEC})
set_tests_properties(mpi_span_abort PROPERTIES
  ENVIRONMENT "${DIKE_MPI_ENV};DIKE_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp"
  LABELS "mpi" PROCESSORS 2 TIMEOUT 120)

#   mpi_checkpoint   checkpoint/resume equals an uninterrupted run (any policy, any rank count)
add_test(NAME mpi_checkpoint
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/checkpoint.sh $<TARGET_FILE:dike-emu>
                 ${MPIEXEC_NUMPROC_FLAG} ${DIKE_MPIEXEC})
set_tests_properties(mpi_checkpoint PROPERTIES
  ENVIRONMENT "${DIKE_MPI_ENV};DIKE_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp"
  LABELS "mpi;checkpoint" PROCESSORS 2 TIMEOUT 300)

#   mpi_diskfull     a full disk (small tmpfs, needs root; else skipped): status 2, one line with
#                    errno's text, no crash in MPI_Finalize, nothing left on the disk; 1 and 2 ranks
add_test(NAME mpi_diskfull
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/diskfull.sh $<TARGET_FILE:dike-emu>
                 ${MPIEXEC_NUMPROC_FLAG} ${DIKE_MPIEXEC})
set_tests_properties(mpi_diskfull PROPERTIES
  ENVIRONMENT "${DIKE_MPI_ENV};DIKE_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp"
  LABELS "mpi" PROCESSORS 2 TIMEOUT 180 SKIP_RETURN_CODE 77)

#   mpi_ckpt_corrupt single-byte flips over a whole checkpoint: exit 0 with identical output or exit
#                    2 with one message, never a signal; a forged out-of-range node slot is refused
add_test(NAME mpi_ckpt_corrupt
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/ckpt_corrupt.sh $<TARGET_FILE:dike-emu>
                 ${MPIEXEC_NUMPROC_FLAG} ${DIKE_MPIEXEC})
set_tests_properties(mpi_ckpt_corrupt PROPERTIES
  ENVIRONMENT "${DIKE_MPI_ENV};DIKE_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp"
  LABELS "mpi;checkpoint" PROCESSORS 2 TIMEOUT 300)

#   mpi_ckpt_periodic for every policy, periodic checkpoints leave every output dataset unchanged
add_test(NAME mpi_ckpt_periodic
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/ckpt_periodic.sh $<TARGET_FILE:dike-emu>)
set_tests_properties(mpi_ckpt_periodic PROPERTIES
  ENVIRONMENT "${DIKE_MPI_ENV};DIKE_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp"
  LABELS "mpi;checkpoint" TIMEOUT 300)

# Examples in the repository's build (out of tree: examples/Makefile,
# examples/CMakeLists.txt). `make example` builds and runs the paper's
# scale kernel; `make examples-build` also the heat equation, serial and
# ported (tests/suites/examples.sh compares them), and where MPI is found
# (mpicc) the ported one distributed over ranks, heat_mpi.
.PHONY: example examples-build
$(eval $(call tdp_program,scale,examples/scale.c))
$(eval $(call tdp_program,heat_targetDP,examples/heat_targetDP.c))
$(eval $(call tdp_program,heat_serial,examples/heat_serial.c))
example: $(BUILD)/scale
	$(BUILD)/scale
examples-build: $(BUILD)/scale $(BUILD)/heat_targetDP $(BUILD)/heat_serial
ifneq ($(MPI_LDLIBS),)
$(eval $(call tdp_program,heat_mpi,examples/heat_mpi.c,mpi))
examples-build: $(BUILD)/heat_mpi
endif

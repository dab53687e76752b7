# Examples in the repository's build (out of tree: examples/Makefile,
# examples/CMakeLists.txt). `make example` builds and runs the paper's
# scale kernel; `make examples-build` also the heat equation, serial and
# ported (tests/suites/examples.sh compares them).
.PHONY: example examples-build
$(BUILD)/scale: $(BUILD)/obj/examples/scale.o $(LIB)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS)
$(BUILD)/heat_targetDP: $(BUILD)/obj/examples/heat_targetDP.o $(LIB)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS)
$(BUILD)/heat_serial: $(BUILD)/obj/examples/heat_serial.o
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS)
example: $(BUILD)/scale
	$(BUILD)/scale
examples-build: $(BUILD)/scale $(BUILD)/heat_targetDP $(BUILD)/heat_serial

# The paper's example kernel: `make example` builds and runs it.
.PHONY: example
$(BUILD)/scale: $(BUILD)/obj/examples/scale.o $(LIB)
	$(LINK) $^ -o $@ $(LDFLAGS) $(LDLIBS)
example: $(BUILD)/scale
	$(BUILD)/scale

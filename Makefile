# olive: build, test and demo. `make` builds build/bin/olive-*; `make check`
# installs missing Debian packages, builds and runs the tests; `make demo` runs
# the whole pipeline on a small network.

PREFIX    ?= /usr/local
BUILD     ?= build
CC        ?= gcc
PKG_CONFIG ?= pkg-config
PKGS      := hdf5-openmpi ompi-c
ifdef HDF5_DIR
# A cluster build: `make CC=mpicc HDF5_DIR=$HDF5_ROOT [R123_DIR=...]` (MPI
# from the compiler wrapper, HDF5 from its install prefix, no pkg-config).
PKG_CFLAGS := -I$(HDF5_DIR)/include
PKG_LIBS   := -L$(HDF5_DIR)/lib -Wl,-rpath,$(HDF5_DIR)/lib -lhdf5
else
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
endif
# Random123 is header-only: R123_DIR/include when it is not in a system place.
ifdef R123_DIR
PKG_CFLAGS += -I$(R123_DIR)/include
endif
# json-c, the JSON parser of olive-genconn's SONATA import: pkg-config's
# json-c, else JSONC_DIR (an install prefix: include/json-c/, lib/), else the
# system places.
ifdef JSONC_DIR
JSONC_CFLAGS := -I$(JSONC_DIR)/include/json-c
JSONC_LIBS   := -L$(JSONC_DIR)/lib -Wl,-rpath,$(JSONC_DIR)/lib -ljson-c
else
JSONC_CFLAGS := $(or $(shell $(PKG_CONFIG) --cflags json-c 2>/dev/null),-I/usr/include/json-c)
JSONC_LIBS   := $(or $(shell $(PKG_CONFIG) --libs json-c 2>/dev/null),-ljson-c)
endif
# cairo's headers for olive-analyze plot (the library is loaded at run time);
# CAIRO=0, or no headers found, builds olive-analyze without plot.
CAIRO_CFLAGS := $(shell $(PKG_CONFIG) --cflags cairo 2>/dev/null)
CAIRO_CFLAGS := $(or $(CAIRO_CFLAGS),$(if $(wildcard /usr/include/cairo/cairo.h),-I/usr/include/cairo))
CAIRO     ?= $(if $(CAIRO_CFLAGS),1,0)
ifeq ($(CAIRO),0)
CAIRO_CFLAGS := -DANA_NO_CAIRO
endif

# The source folders (docs/ARCHITECTURE.md): common/{io,models,math,util}
# for every tool, tools/<tool>/ with one folder per part. Every folder is on
# the include path, so a file includes "x.h" by name wherever x.h lives.
COMMON_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard common/*/*.c common/*/*.h))))
COMMON_INC  := $(COMMON_DIRS:%=-I%)
tool_dirs    = tools/$(1) $(patsubst %/,%,$(sort $(dir $(wildcard tools/$(1)/*/*.c tools/$(1)/*/*.h tools/$(1)/*/*.cu))))
tool_inc     = $(foreach d,$(call tool_dirs,$(1)),-I$(d))
COMMON_H    := $(wildcard common/*/*.h common/*/*.cuh)
TOOLS_H     := $(wildcard tools/*/*.h tools/*/*/*.h tools/*/*/*.cuh)

OPT       ?= -O3
# -ffp-contract=off: no fused multiply-add unless asked for, so results do not
# depend on the compiler's whim or the -march in use. -fno-trapping-math only
# lets the compiler evaluate both sides of a select (no FP traps are used),
# which the SIMD cell loop needs; values are unchanged.
# -fPIC: every object also goes into libolive.so (olive_session.h);
# -fno-semantic-interposition keeps the calls within it as direct as in a program.
CFLAGS    += -std=c11 -D_GNU_SOURCE $(OPT) -g -Wall -Wextra -Werror -ffp-contract=off -fno-trapping-math -fopenmp \
             -fPIC -fno-semantic-interposition \
             $(COMMON_INC) $(PKG_CFLAGS) $(CAIRO_CFLAGS)
# FMA=1: the explicit fma() calls of common/math/fastexp.h (olive's exp and log,
# written so the CPU and the GPU give the same bits) become one instruction
# instead of a call into libm; fma() is exact either way, so the results do
# not change, only the speed (olive_exp_d 33 -> ~7 ns). Default: on when the
# building machine's CPU has FMA (x86-64 since 2013); FMA=0 for binaries that
# must also run on older CPUs.
FMA       ?= $(shell grep -qw fma /proc/cpuinfo 2>/dev/null && echo 1)
ifeq ($(FMA),1)
CFLAGS    += -mfma
NVCC_HOST_FMA := -Xcompiler -mfma
endif
# cairo: headers only; olive-analyze loads libcairo when it plots
# (tools/analyze/plot/cairo_load.h), so it runs where the library is missing.
LDLIBS    += $(PKG_LIBS) -lz -lm -ldl -fopenmp

# CUDA backends of olive-simulate and olive-genconn (tools/*/*/*.cu): built when nvcc is
# found, on the PATH or in $(CUDA_HOME)/bin; CUDA=0 builds without it.
# -fmad=false: no fused multiply-add on the device, -ffp-contract=off none in
# the host code nvcc compiles: the same rounding as the CPU build.
CUDA      ?= 1
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard $(CUDA_HOME)/bin/nvcc))
CUDA_ARCH ?= sm_90
NVCCFLAGS ?= -O3 -arch=$(CUDA_ARCH) -std=c++17 -Xcompiler -Wall,-Wextra,-Werror,-ffp-contract=off -fmad=false $(NVCC_HOST_FMA)
HAVE_CUDA := $(if $(filter 0,$(CUDA)),,$(if $(NVCC),1,))

ifeq ($(SANITIZE),1)
CFLAGS    += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDLIBS    += -fsanitize=address,undefined
BUILD     := build-san
endif

TOOLS      := genconn disperse simulate analyze
COMMON_SRC := $(wildcard common/*/*.c)
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/obj/%.o)
BINS       := $(TOOLS:%=$(BUILD)/bin/olive-%)
TEST_SRC   := $(wildcard tests/unit/*.c)
TEST_BINS  := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps check demo install man clean bench wheel
# Keep the tool objects (make would delete them as intermediates of the pattern
# rule). Not .SECONDARY: with no names it makes every target intermediate, and
# a missing stamp (.cuda0/.cuda1 after a switch) would then rebuild nothing.
.PRECIOUS: $(BUILD)/obj/%.o $(BUILD)/obj/%.cu.o
all: $(BINS) $(BUILD)/lib/libolive.so $(TEST_BINS) $(if $(HAVE_CUDA),$(BUILD)/testtools/plugin_link_check $(BUILD)/bench/olive-bwprobe $(BUILD)/bench/olive-scatterprobe $(BUILD)/bench/olive-stepprobe $(BUILD)/bench/olive-loopprobe $(BUILD)/bench/olive-launchprobe $(BUILD)/bench/olive-l2fetchprobe $(BUILD)/bench/olive-hinesbench $(BUILD)/bench/olive-cablebench $(BUILD)/bench/olive-junctiontiles)

# Objects are rebuilt when the build switches between with and without CUDA.
CUDA_STAMP := $(BUILD)/obj/.cuda$(if $(HAVE_CUDA),1,0)
$(CUDA_STAMP):
	@mkdir -p $(dir $@)
	@rm -f $(BUILD)/obj/.cuda0 $(BUILD)/obj/.cuda1
	@touch $@

# Random123's headers must be there (checked once, with a clear message).
R123_STAMP := $(BUILD)/obj/.random123
$(R123_STAMP):
	@mkdir -p $(dir $@)
	@printf '#include <Random123/philox.h>\n' | $(CC) $(PKG_CFLAGS) -E -x c - >/dev/null 2>&1 || { \
	  echo "olive: Random123 headers (Random123/philox.h) not found$(if $(R123_DIR), in R123_DIR=$(R123_DIR)/include or the system places): apt-get install librandom123-dev, or" \
	       "unpack Random123 and build with R123_DIR=/path/to/Random123 (its include/ holds Random123/)" >&2; exit 1; }
	@touch $@

# json-c's headers must be there (checked once, with a clear message).
JSONC_STAMP := $(BUILD)/obj/.json-c
$(JSONC_STAMP):
	@mkdir -p $(dir $@)
	@printf '#include <json_tokener.h>\n' | $(CC) $(JSONC_CFLAGS) -E -x c - >/dev/null 2>&1 || { \
	  echo "olive: json-c headers (json_tokener.h) not found in $(if $(JSONC_DIR),JSONC_DIR=$(JSONC_DIR)/include/json-c,$(JSONC_CFLAGS)):" \
	       "apt-get install libjson-c-dev, or build with JSONC_DIR=/json-c/prefix (its include/json-c/ holds json_tokener.h)" >&2; exit 1; }
	@touch $@

# MPI's and parallel HDF5's headers must be there (checked once, each with a
# clear message naming the package; `pip install ./python` shows it).
MPI_H5_STAMP := $(BUILD)/obj/.mpi-hdf5
$(MPI_H5_STAMP):
	@mkdir -p $(dir $@)
	@printf '#include <mpi.h>\n' | $(CC) $(PKG_CFLAGS) -E -x c - >/dev/null 2>&1 || { \
	  echo "olive: MPI headers (mpi.h) not found by $(if $(HDF5_DIR),$(CC),pkg-config ompi-c or $(CC)):" \
	       "apt-get install libopenmpi-dev openmpi-bin, or build with CC=mpicc of your MPI" >&2; exit 1; }
	@printf '#include <hdf5.h>\n#ifndef H5_HAVE_PARALLEL\n#error serial HDF5\n#endif\n' | $(CC) $(PKG_CFLAGS) -E -x c - >/dev/null 2>&1 || { \
	  echo "olive: parallel HDF5 headers (hdf5.h with H5_HAVE_PARALLEL) not found $(if $(HDF5_DIR),in HDF5_DIR=$(HDF5_DIR)/include,by pkg-config hdf5-openmpi):" \
	       "apt-get install libhdf5-openmpi-dev, or build with HDF5_DIR=/hdf5/prefix of an MPI-enabled HDF5" >&2; exit 1; }
	@touch $@

$(BUILD)/obj/%.o: %.c $(COMMON_H) $(TOOLS_H) $(CUDA_STAMP) $(R123_STAMP) $(MPI_H5_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

ifneq ($(HAVE_CUDA),)
# The backend dispatch of olive-simulate and olive-genconn; the CUDA runtime
# linked statically (as nvcc links it), so the binaries need only the driver
# on a GPU host.
$(BUILD)/obj/tools/simulate/%.o: CFLAGS += -DOLIVE_HAVE_CUDA
$(BUILD)/obj/tools/genconn/%.o: CFLAGS += -DOLIVE_HAVE_CUDA
$(BUILD)/bin/olive-simulate: LDLIBS += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
$(BUILD)/bin/olive-genconn: LDLIBS += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
$(foreach t,simulate genconn,$(eval $(BUILD)/obj/tools/$(t)/%.cu.o: NVCC_CPPFLAGS += $(call tool_inc,$(t))))
NVCC_CPPFLAGS := -D_GNU_SOURCE -DOLIVE_HAVE_CUDA $(COMMON_INC) $(filter -I% -D%,$(PKG_CFLAGS))
# The kernels that run a plugin model's cells: not an object of olive-simulate
# but LTO-IR (-dlto) embedded in it as a byte array (bin2c), which it links
# with a model's cell functions when it loads the model (spk_cuda_plugin.cu).
PLUGIN_KERNELS_CU := tools/simulate/spiking/spk_plugin_kernels.cu
PLUGIN_KERNELS_H  := $(BUILD)/gen/spk_plugin_kernels.fatbin.h
$(PLUGIN_KERNELS_H): $(PLUGIN_KERNELS_CU) $(COMMON_H) $(TOOLS_H) $(wildcard tools/simulate/spiking/*.cuh) $(CUDA_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) -x cu -fatbin -rdc=true -gencode=arch=compute_$(CUDA_ARCH:sm_%=%),code=lto_$(CUDA_ARCH:sm_%=%) \
	  $(filter-out -arch=%,$(NVCCFLAGS)) $(NVCC_CPPFLAGS) $(call tool_inc,simulate) -o $(@:.h=) $<
	$(dir $(NVCC))bin2c --const --static --type longlong --name spk_plugin_kernels_ltoir $(@:.h=) >$@.tmp && mv $@.tmp $@
# The built-in point models' GPU images: each source common/models/NAME_models.c
# compiled by nvcc into its cell functions' LTO-IR (as olive-model build
# compiles a plugin's), embedded in its descriptors (NAME_models_ltoir[]):
# the CUDA engine links it into the same kernels as a plugin's. A new
# built-in point model is a new NAME_models.c; nothing to add here.
BUILTIN_MODELS := $(wildcard common/models/*_models.c)
BUILTIN_FATBIN_H := $(patsubst common/models/%.c,$(BUILD)/gen/%.fatbin.h,$(BUILTIN_MODELS))
$(BUILD)/gen/%_models.fatbin.h: common/models/%_models.c $(COMMON_H) $(CUDA_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) -x cu -fatbin -rdc=true -gencode=arch=compute_$(CUDA_ARCH:sm_%=%),code=lto_$(CUDA_ARCH:sm_%=%) \
	  $(filter-out -arch=%,$(NVCCFLAGS)) $(NVCC_CPPFLAGS) -DOLIVE_PLUGIN_DEVICE -o $(@:.h=) $<
	$(dir $(NVCC))bin2c --const --static --type longlong --name $*_models_ltoir $(@:.h=) >$@.tmp && mv $@.tmp $@
$(patsubst common/%.c,$(BUILD)/obj/common/%.o,$(BUILTIN_MODELS)): $(BUILD)/obj/common/models/%.o: $(BUILD)/gen/%.fatbin.h
$(patsubst common/%.c,$(BUILD)/obj/common/%.o,$(BUILTIN_MODELS)): CFLAGS += -DOLIVE_BUILTIN_FATBIN -I$(BUILD)/gen
# The cable kernel of cells with NMODL mechanisms, the same way: LTO-IR that
# olive-simulate links with a mechanism library's GPU image (spk_cable_cuda.cu).
CABLE_MECH_KERNELS_CU := tools/simulate/cable/spk_cable_mech_kernels.cu
CABLE_MECH_KERNELS_H  := $(BUILD)/gen/spk_cable_mech_kernels.fatbin.h
$(CABLE_MECH_KERNELS_H): $(CABLE_MECH_KERNELS_CU) $(COMMON_H) $(TOOLS_H) $(wildcard tools/simulate/cable/*.cuh) $(CUDA_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) -x cu -fatbin -rdc=true -gencode=arch=compute_$(CUDA_ARCH:sm_%=%),code=lto_$(CUDA_ARCH:sm_%=%) \
	  $(filter-out -arch=%,$(NVCCFLAGS)) $(NVCC_CPPFLAGS) $(call tool_inc,simulate) -o $(@:.h=) $<
	$(dir $(NVCC))bin2c --const --static --type longlong --name spk_cable_mech_kernels_ltoir $(@:.h=) >$@.tmp && mv $@.tmp $@
$(BUILD)/obj/tools/simulate/cable/spk_cable_cuda.cu.o: $(CABLE_MECH_KERNELS_H)
$(BUILD)/obj/tools/simulate/cable/spk_cable_cuda.cu.o: NVCC_CPPFLAGS += -I$(BUILD)/gen
$(BUILD)/obj/tools/simulate/spiking/spk_cuda_plugin.cu.o: $(PLUGIN_KERNELS_H)
$(BUILD)/obj/tools/simulate/spiking/spk_cuda_plugin.cu.o: NVCC_CPPFLAGS += -I$(BUILD)/gen
$(BUILD)/obj/tools/simulate/devlink/spk_cuda_link.cu.o: NVCC_CPPFLAGS += -DOLIVE_CUDA_LIBDIR='"$(CUDA_HOME)/lib64"'
# (tests/test_nestml_build.sh: that link, checked where nvcc is and no GPU)
$(BUILD)/testtools/plugin_link_check: tests/cuda/plugin_link_check.cu $(BUILD)/obj/tools/simulate/devlink/spk_cuda_link.cu.o $(PLUGIN_KERNELS_H)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Itools/simulate/spiking -Itools/simulate/devlink -I$(BUILD)/gen -o $@ $< $(BUILD)/obj/tools/simulate/devlink/spk_cuda_link.cu.o -ldl
$(BUILD)/obj/%.cu.o: %.cu $(COMMON_H) $(TOOLS_H) $(CUDA_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Xcompiler -fPIC $(NVCC_CPPFLAGS) -c $< -o $@
# The device bandwidth probe of scripts/bench-gpu.sh.
$(BUILD)/bench/olive-bwprobe: tools/bench/bwprobe.cu tools/bench/bench_cuda.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -o $@ $<
# What sending a step's spike events costs, access by access, and whole
# steps with two bucket layouts (issue 17).
# (and whole steps in one persistent cooperative kernel: olive-loopprobe, issue 36, its `resident` loop issue 58;
# the boundary between two phases of a step, launch by launch, PDL, CUDA graph, grid barrier: olive-launchprobe, issue 58;
# random atomics and loads under each L2 fetch granularity hint: olive-l2fetchprobe, issue 58).
$(BUILD)/bench/olive-scatterprobe $(BUILD)/bench/olive-stepprobe $(BUILD)/bench/olive-loopprobe $(BUILD)/bench/olive-launchprobe $(BUILD)/bench/olive-l2fetchprobe: $(BUILD)/bench/olive-%: tools/bench/%.cu tools/bench/bench_cuda.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -o $@ $<
# InfOli's junction sums, a thread a row against shared-memory tiles, timed and compared bit for bit (issue 58).
$(BUILD)/bench/olive-junctiontiles: tools/bench/junctiontiles.cu tools/bench/bench_cuda.h tools/simulate/infoli/junction_tiles.cuh common/models/model.h common/models/model_body.h common/math/fastexp.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(COMMON_INC) -Itools/bench -Itools/simulate/infoli -Xcompiler -fopenmp -o $@ $< -lgomp
# The batched Hines solve benchmark (issue 19): common/models/cable.h on CPU and GPU.
$(BUILD)/bench/olive-hinesbench: tools/bench/hinesbench.cu tools/bench/bench_args.h tools/bench/bench_cuda.h common/models/cable.h common/math/fastexp.h common/math/hostdev.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(COMMON_INC) -Itools/bench -Xcompiler -fopenmp -o $@ $< -lgomp
# Whole cable-cell steps on CPU and GPU (issue 19): cable.h with cable_cell.c.
$(BUILD)/bench/olive-cablebench: tools/bench/cablebench.cu tools/bench/bench_args.h tools/bench/bench_cuda.h $(BUILD)/libolive.a common/models/cable.h common/models/cable_cell.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(NVCC_CPPFLAGS) -Itools/bench -Xcompiler -fopenmp -o $@ $< $(BUILD)/libolive.a $(filter-out -fsanitize% -fopenmp,$(LDLIBS)) -lgomp
endif

$(BUILD)/libolive.a: $(COMMON_OBJ)
	ar rcs $@ $^

# Objects of one tool (a function, so the pattern rule's % does not touch patsubst's).
tool_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tools/$(1)/*.c tools/$(1)/*/*.c)) \
            $(if $(HAVE_CUDA),$(patsubst %.cu,$(BUILD)/obj/%.cu.o,$(filter-out $(PLUGIN_KERNELS_CU) $(CABLE_MECH_KERNELS_CU),$(wildcard tools/$(1)/*.cu tools/$(1)/*/*.cu))))
# Each tool's files see its own folders' headers.
$(foreach t,$(TOOLS),$(eval $(BUILD)/obj/tools/$(t)/%.o: CFLAGS += $(call tool_inc,$(t))))
$(call tool_objs,genconn): CFLAGS += $(JSONC_CFLAGS)
$(call tool_objs,genconn): $(JSONC_STAMP)
# olive-simulate with libgomp linked in statically where the compiler has
# libgomp.a: its early constructor then sets OpenMP's short spin before
# libgomp starts (tools/simulate/main.c), instead of the program starting
# itself again with it; the shared libgomp that -fopenmp adds is then not
# needed (--as-needed drops it). libolive.so keeps the shared one.
ifneq ($(shell p=$$($(CC) -print-file-name=libgomp.a 2>/dev/null); [ -f "$$p" ] && echo yes),)
$(BUILD)/bin/olive-simulate: LDLIBS += -Wl,--push-state,-Bstatic -lgomp -Wl,--pop-state -Wl,--as-needed
endif
$(BUILD)/bin/olive-genconn: LDLIBS += $(JSONC_LIBS)
.SECONDEXPANSION:
$(BUILD)/bin/olive-%: $$(call tool_objs,$$*) $(BUILD)/libolive.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# libolive.so: olive-simulate's sessions for other programs (olive_session.h;
# Python's olive.Simulation): the program's objects but main's, exporting
# olive_session_* only (libolive.map).
SIM_LIB_OBJS := $(filter-out $(BUILD)/obj/tools/simulate/main.o,$(call tool_objs,simulate))
$(BUILD)/lib/libolive.so: $(SIM_LIB_OBJS) $(COMMON_OBJ) tools/simulate/session/libolive.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -Wl,--version-script=tools/simulate/session/libolive.map -Wl,-soname,libolive.so \
	  -o $@ $(SIM_LIB_OBJS) $(COMMON_OBJ) $(LDLIBS) $(if $(HAVE_CUDA),-L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libolive.a $(COMMON_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itools/simulate -o $@ $< $(BUILD)/libolive.a $(LDLIBS)

# (a unit test of a piece of olive-simulate includes its source)
$(BUILD)/tests/test_spike_columns: tools/simulate/output/spike_split.c tools/simulate/output/spike_split.h tools/simulate/sim.h

# Install missing Debian packages (no-op when everything is there).
deps:
	@bash scripts/install-deps.sh

# The build of check, demo and bench uses every core (BUILD_JOBS; make's own
# -j is passed on when given): a serial build of the CUDA and sanitizer
# objects cost CI minutes.
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SUBMAKE_J   = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(BUILD_JOBS))

check: deps
	@bash scripts/install-deps.sh --peers
	@$(MAKE) --no-print-directory $(SUBMAKE_J) all
	@BUILD=$(BUILD) SANITIZED=$(if $(filter 1,$(SANITIZE)),1,0) bash tests/run.sh

# make demo: the three programs the demo runs, and the demo. Where `make` has
# built them already (with CUDA where nvcc is) those; else they are built
# without CUDA in $(BUILD)/demo, which takes a minute or two where the CUDA
# objects take many (the demo runs on the CPU; `make` builds the rest).
DEMO_BINS = $(foreach p,genconn simulate analyze,$(1)/bin/olive-$(p))
demo: deps
	@if $(MAKE) --no-print-directory -q $(call DEMO_BINS,$(BUILD)) 2>/dev/null; then \
	  BUILD=$(BUILD) bash examples/demo.sh; \
	else \
	  echo "olive: building the demo's programs without CUDA in $(BUILD)/demo (\`make\` builds everything)" && \
	  $(MAKE) --no-print-directory $(SUBMAKE_J) BUILD=$(BUILD)/demo CUDA=0 $(call DEMO_BINS,$(BUILD)/demo) && \
	  BUILD=$(BUILD)/demo bash examples/demo.sh; \
	fi

# make wheel: $(BUILD)/wheel/olive-*.whl, the package with the programs as built here and every library
# they load but the base system's (scripts/make-wheel.sh; pip installs it with no compiler).
wheel: deps
	@$(MAKE) --no-print-directory $(SUBMAKE_J) $(BINS) $(BUILD)/lib/libolive.so
	@BUILD=$(BUILD) bash scripts/make-wheel.sh

bench: deps
	@$(MAKE) --no-print-directory $(SUBMAKE_J) all
	@BUILD=$(BUILD) bash scripts/bench.sh
	@if [ -x $(BUILD)/bench/olive-bwprobe ] && nvidia-smi -L >/dev/null 2>&1; then \
	  BUILD=$(BUILD) bash scripts/bench-gpu.sh; else echo "bench: no CUDA build or no GPU: GPU benchmark skipped"; fi

# The examples/slurm job chain on a private single-node SLURM cluster
# (started by scripts/slurm-setup.sh, as root; scripts/slurm-stop.sh stops it).
.PHONY: slurm-test
slurm-test: all
	bash scripts/slurm-setup.sh && BUILD=$(BUILD) bash tests/slurm/test_chain.sh

# Fuzzing (optional, not part of `make check`): the libFuzzer harnesses of
# tests/fuzz/ (the edges, matrix and SONATA importers (gap junctions; spiking synapses: spksonata), the readers of the
# network file and its populations and synapses, dispersal map, restart state, stimulus and spike files, SWC morphologies), built with clang -fsanitize=fuzzer,address,undefined into
# $(BUILD)/fuzz/ and run FUZZ_SECONDS each from the seed corpora in
# tests/fuzz/corpus/ (new inputs go to $(BUILD)/fuzz/corpus-*, crashes to
# $(BUILD)/fuzz/crash-*). Installs clang if missing (install-deps.sh --fuzz).
.PHONY: fuzz fuzz-build fuzz-deps
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 30
FUZZ_NAMES   := edges matrix sonata netfile map state stimulus spikes synfile swc spksonata plugin
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer -Wall -Wno-unknown-pragmas \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
                $(COMMON_INC) $(foreach t,genconn simulate analyze,$(call tool_inc,$(t))) $(PKG_CFLAGS) $(JSONC_CFLAGS)
FUZZ_SRC     := $(addprefix tools/genconn/import/,import_text.c import_edges.c import_matrix.c import_sonata.c import_build.c) \
                $(wildcard common/util/*.c) common/io/h5util.c common/io/netfile.c
# The readers each harness adds to those.
FUZZ_EXTRA_map      := common/io/mapfile.c common/io/partition.c
FUZZ_EXTRA_state    := tools/simulate/infoli/restart.c tools/simulate/spiking/spk_restart.c tools/simulate/spiking/spk_plastic.c common/models/plasticity.c common/models/state.c common/io/netcontent.c \
                       common/models/cellmodel.c common/models/lif_models.c tools/simulate/method.c tools/simulate/state_seal.c tools/simulate/spiking/spk_synapse_hash.c common/models/model_plugin.c common/models/model_places.c
FUZZ_EXTRA_stimulus := tools/simulate/stimulus.c common/models/model_plugin.c common/models/model_places.c common/models/cellmodel.c common/models/lif_models.c common/models/state.c
FUZZ_EXTRA_spikes   := $(addprefix tools/analyze/,spikefile.c spikestats.c spikeload.c h5read.c errors.c)
FUZZ_EXTRA_synfile  := common/io/synfile.c common/io/plasticity_attrs.c common/models/plasticity.c common/connect/conn_draw.c common/io/conn_attrs.c common/models/cellmodel.c common/models/lif_models.c common/models/model_plugin.c common/models/model_places.c common/models/state.c
FUZZ_EXTRA_plugin   := $(FUZZ_EXTRA_synfile)
FUZZ_EXTRA_swc      := common/models/swc.c common/models/cable_cell.c
FUZZ_EXTRA_spksonata := tools/genconn/sonata/json.c tools/genconn/spiking/spiking_import.c tools/genconn/spiking/spiking_memory.c common/io/synfile.c common/io/plasticity_attrs.c common/models/plasticity.c common/connect/conn_draw.c common/io/conn_attrs.c common/models/cellmodel.c common/models/lif_models.c common/models/model_plugin.c common/models/model_places.c common/models/state.c
fuzz-deps:
	@bash scripts/install-deps.sh --fuzz
# Each source compiled once for every harness (make -j builds them side by side).
fuzz_obj = $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(1))
$(BUILD)/fuzz/obj/%.o: %.c $(COMMON_H) tools/genconn/import/import.h | fuzz-deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h tests/fuzz/fuzz_h5common.h $(call fuzz_obj,$(FUZZ_SRC)) \
                     $$(call fuzz_obj,$$(FUZZ_EXTRA_$$*)) $(COMMON_H) | fuzz-deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(call fuzz_obj,$(FUZZ_SRC) $(FUZZ_EXTRA_$*)) $(PKG_LIBS) $(JSONC_LIBS) -lz -lm -ldl
fuzz-build: $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)
fuzz: fuzz-build
	@BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/run.sh $(FUZZ_NAMES)

# Man pages made by help2man from each program's --help and --version.
MANDIR ?= $(PREFIX)/share/man/man1
DOCDIR ?= $(PREFIX)/share/doc/olive
MAN_NAME_genconn  := generate or import a network: InfOli gap junctions, spiking populations and projections
MAN_NAME_disperse := split an olive network into per-rank dispersal maps
MAN_NAME_simulate := simulate an olive network: InfOli, integrate-and-fire, NESTML and cable cells (CPU, CUDA, MPI)
MAN_NAME_analyze  := spikes, rates, synchrony, plots and run comparison of olive runs
# scripts/man-include.sh adds what --help does not say (analyze's subcommands
# and environment, SEE ALSO); -L C.UTF-8 keeps the help's non-ASCII symbols.
MANS := $(TOOLS:%=$(BUILD)/man/olive-%.1)
$(BUILD)/man/olive-%.1: $(BUILD)/bin/olive-% scripts/man-include.sh
	@mkdir -p $(dir $@)
	@command -v help2man >/dev/null || { echo "olive: help2man not found, needed for the man pages:" \
	  "apt-get install help2man, or make install MAN=0 (no man pages)" >&2; exit 1; }
	bash scripts/man-include.sh $(abspath $<) >$@.h2m
	help2man -L C.UTF-8 --no-info --no-discard-stderr --name="$(MAN_NAME_$*)" --include=$@.h2m \
	  --output=$@.tmp $(abspath $<) && mv $@.tmp $@
man: $(MANS)

# make install [PREFIX=/usr/local] [DESTDIR=] [MAN=0]: programs, plugin headers, man pages
# (MAN=0: none, where help2man is missing), docs and examples (examples/ as a
# whole, run from anywhere with olive on the PATH).
# The headers a cell-model plugin is built against (common/models/model_plugin.h;
# olive-model build, or by hand) go to PREFIX/include/olive.
MAN ?= 1
INSTALL_MANS := $(if $(filter 0,$(MAN)),,$(MANS))
# (lif.h: for a model written by hand on lif.h's arithmetic, as tests/plugins does.)
PLUGIN_HEADERS := common/models/model_plugin.h common/models/cellmodel.h common/models/plugin_cell.h \
                  common/models/plugin_rkf45.h common/math/hostdev.h common/math/fastexp.h common/math/fastlog.h \
                  common/models/lif.h common/models/cable_mech.h
install: $(BINS) $(BUILD)/lib/libolive.so $(INSTALL_MANS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(DOCDIR) $(DESTDIR)$(PREFIX)/include/olive
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(BUILD)/lib/libolive.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(PLUGIN_HEADERS) tools/simulate/session/olive_session.h $(DESTDIR)$(PREFIX)/include/olive/
	$(if $(INSTALL_MANS),install -d $(DESTDIR)$(MANDIR) && install -m 644 $(INSTALL_MANS) $(DESTDIR)$(MANDIR)/)
	install -m 644 README.md LICENSE CITATION.cff docs/*.md docs/tutorial.ipynb $(DESTDIR)$(DOCDIR)/
	cd examples && find . -type f | while read -r f; do \
	  install -D -m $$(if [ -x "$$f" ]; then echo 755; else echo 644; fi) "$$f" "$(DESTDIR)$(DOCDIR)/examples/$$f" || exit 1; done

clean:
	rm -rf build build-san

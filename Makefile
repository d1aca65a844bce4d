# olive: build, test and demo. `make` builds build/bin/olive-*; `make check`
# installs missing Debian packages, builds and runs the tests; `make demo` runs
# the whole pipeline on a small network.

PREFIX    ?= /usr/local
BUILD     ?= build
CC        ?= gcc
PKGS      := hdf5-openmpi ompi-c
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CAIRO_CFLAGS := $(shell pkg-config --cflags cairo 2>/dev/null)
CAIRO_LIBS   := $(shell pkg-config --libs cairo 2>/dev/null)

OPT       ?= -O3
# -ffp-contract=off: no fused multiply-add unless asked for, so results do not
# depend on the compiler's whim or the -march in use. -fno-trapping-math only
# lets the compiler evaluate both sides of a select (no FP traps are used),
# which the SIMD cell loop needs; values are unchanged.
CFLAGS    += -std=c11 -D_GNU_SOURCE $(OPT) -g -Wall -Wextra -Werror -ffp-contract=off -fno-trapping-math -fopenmp \
             -Icommon $(PKG_CFLAGS) $(CAIRO_CFLAGS)
LDLIBS    += $(PKG_LIBS) $(CAIRO_LIBS) -lz -lm -fopenmp

ifeq ($(SANITIZE),1)
CFLAGS    += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDLIBS    += -fsanitize=address,undefined
BUILD     := build-san
endif

TOOLS      := genconn disperse simulate analyze
COMMON_SRC := $(wildcard common/*.c)
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/obj/%.o)
BINS       := $(TOOLS:%=$(BUILD)/bin/olive-%)
TEST_SRC   := $(wildcard tests/unit/*.c)
TEST_BINS  := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps check demo install clean bench
# Keep the tool objects (make would delete them as intermediates of the pattern rule).
.SECONDARY:
all: $(BINS) $(TEST_BINS)

$(BUILD)/obj/%.o: %.c $(wildcard common/*.h) $(wildcard tools/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libolive.a: $(COMMON_OBJ)
	ar rcs $@ $^

# Objects of one tool (a function, so the pattern rule's % does not touch patsubst's).
tool_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tools/$(1)/*.c))
.SECONDEXPANSION:
$(BUILD)/bin/olive-%: $$(call tool_objs,$$*) $(BUILD)/libolive.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libolive.a $(wildcard common/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libolive.a $(LDLIBS)

# Install missing Debian packages (no-op when everything is there).
deps:
	@bash scripts/install-deps.sh

check: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) bash tests/run.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) bash examples/demo.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) bash scripts/bench.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf build build-san

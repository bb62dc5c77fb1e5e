# Makefile — PGXS build of pg_mergepath.so: the PostgreSQL glue in extension/ (C++17)
# linked with the mergepath library (gpu/), which this makefile builds first with CMake
# in build/ (CPU backend always; CUDA backend when nvcc is found). The CUDA runtime is
# linked statically, so the module loads on machines without a GPU driver.
#
#   make                      library + pg_mergepath.so (CUDA_ARCH=90 to pick GPU archs)
#   make install              .so, control file and SQL scripts into pg_config's dirs
#   make regress              pg_regress suite on a temporary instance (scripts/regress.sh)
#
# Another PostgreSQL: PG_CONFIG=/path/to/pg_config (15, 17 and 18 are supported; on
# Debian 12, scripts/install-pg.sh 17|18 provides them). To keep one build per version,
# build out of the tree: `make -C build/pg17 -f $PWD/Makefile PG_CONFIG=...` (the
# PostgreSQL-free library in build/ is shared by every version; scripts/build-pg.sh).
#
# `make installcheck` is disabled (as for pg_stat_statements): the tests need
# shared_preload_libraries, so they start their own instance.

# the source tree (this makefile's folder), also when building in another folder
mp_src := $(patsubst %/,%,$(dir $(abspath $(firstword $(MAKEFILE_LIST)))))

EXTENSION = pg_mergepath
MODULE_big = pg_mergepath
# install script of each version and the upgrade scripts between them
DATA = $(patsubst $(mp_src)/%,%,$(wildcard $(mp_src)/sql/pg_mergepath--*.sql))
# extension/, top down (calls only go down): pg_mergepath.cpp, the module's entry;
# setop/ and join/, the two nodes, and arrays/, the SQL functions over sorted arrays; plan/, what their planner sides share (partial paths,
# the scan tuples' rewrite after planning); spill/, inputs over the memory limit (sorted
# runs, hash partitions); stage/, the sorted-sides stage (the library facade, the key-width
# dispatch, row directories); store/, memory for keys and rows (chunks, segments, arenas);
# keys/, key encodings; runtime/, GUCs, the device, the shared GPU budget, the C++ /
# ERROR boundary, threads, the read loop over a child.
EXT_DIRS = setop join arrays plan spill parallel stage store keys runtime
OBJS = extension/pg_mergepath.o \
       $(patsubst $(mp_src)/%.cpp,%.o,$(sort $(foreach d,$(EXT_DIRS),$(wildcard $(mp_src)/extension/$(d)/*.cpp))))
# out of the tree, the objects' folders
ifneq ($(mp_src),$(CURDIR))
$(shell mkdir -p $(addprefix extension/,$(EXT_DIRS)))
endif
PGFILEDESC = "pg_mergepath - INTERSECT / EXCEPT [ALL] and equi-joins on GPUs"

# Regression tests (sql/*.sql, expected/*.out), in order; setop_setup comes first.
# setop_nogpu only holds on a machine without a usable GPU (scripts/regress.sh skips
# it when PGMP_DEVICE=gpu).
REGRESS = setop_setup setop_basic setop_types setop_nested setop_union setop_ordered setop_ordered_random setop_explain setop_guc \
          setop_hash setop_oom shared_budget setop_spill setop_image_spill setop_cancel setop_parallel setop_ranged setop_images setop_nogpu \
          join_basic join_plan join_stream join_spill join_parallel join_spill_parallel join_random join_images join_numeric statements array_ops
# Isolation tests (specs/*.spec, expected/*.out): concurrent sessions (scripts/regress.sh
# with PGMP_SUITE=isolation).
ISOLATION = join_epq
NO_INSTALLCHECK = 1

PG_CONFIG ?= pg_config
CMAKE ?= cmake
CUDA_HOME ?= /usr/local/cuda
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
MP_BUILD_DIR = $(mp_src)/build
MP_LIB = $(MP_BUILD_DIR)/gpu/libmergepath.a
MP_CMAKE_FLAGS = -DMERGEPATH_TESTS=OFF -DMERGEPATH_BENCH=OFF \
                 $(if $(CUDA_ARCH),-DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCH))

# Evaluated when the .so is linked, after the library is built: the CUDA runtime is
# needed only when the archive holds CUDA objects.
MP_CUDA_LIBS = $(if $(shell ar t $(MP_LIB) 2>/dev/null | grep -m1 '\.cu\.o$$'),\
                 $(CUDA_HOME)/lib64/libcudart_static.a -lrt -ldl)

PG_CPPFLAGS = -I$(mp_src)/gpu/include $(foreach d,$(EXT_DIRS),-I$(mp_src)/extension/$(d))
# Nothing interposes the module's own functions: calls between its files (and the
# library's) bind directly, not through the PLT (PostgreSQL 16+ builds modules with
# hidden symbols, which does the same; 15 does not), and a function's out-of-line copy
# is called directly within its file.
PG_CXXFLAGS = -std=c++17 -fPIC -fno-semantic-interposition -Wno-missing-field-initializers -Wno-register
SHLIB_LINK = $(MP_LIB) $(MP_CUDA_LIBS) -lpthread -lstdc++ -Wl,-Bsymbolic-functions

# No LLVM bitcode for JIT inlining: it is C++ calling into a static library.
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Out of the tree, only sources are looked for in the tree (PGXS would look for
# everything there, the objects of an in-tree build included).
ifneq ($(mp_src),$(CURDIR))
VPATH =
vpath %.cpp $(mp_src)
vpath %.control $(mp_src)
vpath %.sql $(mp_src)
endif

.PHONY: mergepath-lib regress print-regress

mergepath-lib:
	$(CMAKE) -S $(mp_src) -B $(MP_BUILD_DIR) $(MP_CMAKE_FLAGS)
	$(CMAKE) --build $(MP_BUILD_DIR) --target mergepath -j$(JOBS)

$(MP_LIB): mergepath-lib
$(shlib): $(MP_LIB)
$(OBJS): $(wildcard $(mp_src)/extension/*/*.h) $(wildcard $(mp_src)/gpu/include/mergepath/*.h)

regress:
	PG_CONFIG=$(PG_CONFIG) $(mp_src)/scripts/regress.sh

print-regress:
	@echo $(REGRESS)

clean: clean-mergepath
clean-mergepath:
	rm -rf results regression.diffs regression.out

/*===- runtime.h - Launching a blockc kernel over a grid ----------*- C -*-===//
//
// The C API of blockc's launcher: it runs every program of a grid exactly once
// in one OpenMP parallel loop. It needs only the C++17 standard library and
// OpenMP, never LLVM: a board runs an app linked with libblockc_runtime and
// ahead-of-time compiled kernel objects, not a compiler.
//
// Every option has an environment variable; docs/launcher.md is the one table
// of both, with defaults and semantics.
//
//===----------------------------------------------------------------------===*/
#ifndef BLOCKC_RUNTIME_H
#define BLOCKC_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A C API follows C's naming: snake_case with a blockc_ prefix.
 * NOLINTBEGIN(readability-identifier-naming) */

/* A kernel compiled by blockc. `args[i]` points to the storage of argument i
 * (for a pointer argument, to the pointer). Program ids and grid sizes are
 * int32, as Triton's tl.program_id and tl.num_programs are. */
typedef void (*blockc_kernel_fn)(void **args, int32_t pid_x, int32_t pid_y, int32_t pid_z,
                                 int32_t grid_x, int32_t grid_y, int32_t grid_z);

/* A program's scratch (blocks that cannot stay in registers) is on the stack of
 * the thread running it when the kernel needs at most this much per program;
 * a kernel that needs more takes all of it from that thread's scratch arena,
 * through blockc_scratch_arena. Part of the kernel ABI: compiler and runtime
 * must agree on it. */
#define BLOCKC_MAX_STACK_SCRATCH_BYTES (256 * 1024)

/* Kernel ABI: a kernel whose blockc_scratch_bytes_NAME exceeds
 * BLOCKC_MAX_STACK_SCRATCH_BYTES calls this once per program, with that size,
 * for its scratch: memory of at least `bytes`, 64-byte aligned, owned by the
 * calling thread, whose contents do not outlive the program. The launcher has
 * grown the thread's arena before its first program when it was given the
 * size (blockc_launch_kernel, blockc_launch_with_stack), so this returns at
 * once; otherwise the first call on a thread grows it, once. NULL when it
 * cannot be allocated: the program then does nothing, the launch that ran it
 * fails with BLOCKC_ERROR_OUT_OF_MEMORY, and blockc_last_error() on the
 * calling thread says why. A thread's arena is freed when the thread exits. */
void *blockc_scratch_arena(uint64_t bytes);

/* Kernel ABI: a dot operand packed into its micro-kernel's layout (B in AMX's
 * VNNI pairs, say) that the programs of one launch running on one thread
 * share, so that the programs reading the same panel of a matrix pack it once.
 * The key names the packed contents: `source` and `row_stride` (bytes) address
 * the panel in the matrix, `rows` is how many of its rows were packed, and
 * `layout` says how (a number the compiler derives from the packing and the
 * block shape). Returns `bytes` of memory, 64-byte aligned, and sets *filled
 * to 1 when a program of this launch on this thread already packed that key
 * there, to 0 when the caller must pack it now. NULL when there is nothing to
 * share: outside a launch (a program called directly), with the cache off
 * (BLOCKC_OPERAND_CACHE=0), or when it cannot hold `bytes` besides what the
 * running program holds; the caller then packs into its own scratch. The
 * memory stays the caller's until its program returns. */
void *blockc_packed_operand(const void *source, int64_t row_stride, int64_t rows, uint64_t layout,
                            uint64_t bytes, int32_t *filled);

/* How blockc_print shows one value: the low 4 bits pick the format, the high
 * 4 bits give the value's width in bytes (digits of a float, of hex). */
enum blockc_print_format {
  BLOCKC_PRINT_SIGNED = 0,   /* the value is an int64_t */
  BLOCKC_PRINT_UNSIGNED = 1, /* a uint64_t */
  BLOCKC_PRINT_FLOAT = 2,    /* the bits of a double */
  BLOCKC_PRINT_HEX = 3       /* bits, zero-extended */
};

/* Kernel ABI: Block IR's `print` (Triton's tl.device_print) calls this once
 * per element: one line on stdout, written whole whatever other programs
 * print, "pid (X, Y, Z) idx (I, J) TEXT" then the `count` values, each 8
 * bytes and shown as `formats` says, separated by ", ". `rank` is 0 for a
 * print of scalars, which has no index. */
void blockc_print(const char *text, int32_t pid_x, int32_t pid_y, int32_t pid_z,
                  const int64_t *index, uint32_t rank, const uint64_t *values,
                  const uint8_t *formats, uint32_t count);

/* Every function that can fail returns one of these; blockc_last_error() then
 * says which option or argument was wrong, and its value. */
typedef enum blockc_status {
  BLOCKC_SUCCESS = 0,
  BLOCKC_ERROR_INVALID_ARGUMENT = 1,    /* null kernel or options, bad grid */
  BLOCKC_ERROR_INVALID_OPTION = 2,      /* a field of blockc_launch_options */
  BLOCKC_ERROR_INVALID_ENVIRONMENT = 3, /* a BLOCKC_* environment variable */
  BLOCKC_ERROR_AFFINITY = 4,            /* pinning failed at launch; no program ran */
  BLOCKC_ERROR_STACK = 5,               /* a thread's stack is too small; it ran no program */
  BLOCKC_ERROR_CORE_REQUIREMENT = 6,    /* no allowed core has a unit the kernel needs; no
                                           program ran */
  BLOCKC_ERROR_TRACE_FILE = 7,          /* the trace file cannot be opened or written */
  BLOCKC_ERROR_OUT_OF_MEMORY = 8        /* a thread's scratch arena cannot be allocated; it ran
                                           no program */
} blockc_status;

/* The number of programs along each axis. Each is in [0, INT32_MAX] because a
 * kernel receives its ids as int32. The fields are int64 so that a negative
 * count (a size computed wrongly by the caller) is reported instead of
 * wrapping around to a launch of billions of programs; the grid's product may
 * exceed 2^32 and is always computed in 64 bits. */
typedef struct blockc_grid {
  int64_t x;
  int64_t y;
  int64_t z;
} blockc_grid;

/* In which order the flat loop index walks the grid. Order matters for cache
 * reuse between programs that run close in time on one thread. */
typedef enum blockc_grid_order {
  BLOCKC_ORDER_X_FASTEST = 0, /* x varies fastest, then y, then z */
  BLOCKC_ORDER_Z_FASTEST = 1, /* z varies fastest, then y, then x */
  /* Triton's GROUP_M swizzle on each (x, y) plane, y being the tile row
   * (pid_m) and x the tile column (pid_n): consecutive programs walk down a
   * column of `group_size` rows before moving to the next column; z slowest. */
  BLOCKC_ORDER_GROUPED = 2
} blockc_grid_order;

/* The OpenMP schedule of the flat loop. AUTO, the default, is dynamic in
 * chunks of about one eighth of a thread's share of the grid (chunk_size, when
 * set, overrides that): cores that run slower than others (a busy
 * neighbour, a farther cache slice) take fewer chunks instead of holding up
 * the launch, at one shared-counter update per chunk. */
typedef enum blockc_schedule {
  BLOCKC_SCHEDULE_STATIC = 0,
  BLOCKC_SCHEDULE_DYNAMIC = 1,
  BLOCKC_SCHEDULE_GUIDED = 2,
  BLOCKC_SCHEDULE_AUTO = 3
} blockc_schedule;

/* Affinity lives in the options struct, not behind a pointer, so that a launch
 * never allocates. Core ids must fit a glibc cpu_set_t (CPU_SETSIZE = 1024). */
#define BLOCKC_MAX_AFFINITY_CORES 256
#define BLOCKC_MAX_CORE_ID 1023
/* Above this, thread creation itself would fail inside the OpenMP runtime and
 * abort the process: a number that large is a mistake, reported as one. */
#define BLOCKC_MAX_THREADS 1024

/* Enumerations are stored as int32_t so that the layout is the same for every
 * C and C++ compiler (C leaves the size of an enum to the compiler). */
typedef struct blockc_launch_options {
  int32_t num_threads;        /* 0: the affinity core count, else OpenMP's default */
  int32_t order;              /* a blockc_grid_order */
  int32_t group_size;         /* rows per group of BLOCKC_ORDER_GROUPED, >= 1 */
  int32_t schedule;           /* a blockc_schedule */
  int32_t chunk_size;         /* 0: the schedule's default */
  int32_t num_affinity_cores; /* 0: threads are not pinned */
  /* OpenMP thread t is pinned to affinity_cores[t % num_affinity_cores]. */
  int32_t affinity_cores[BLOCKC_MAX_AFFINITY_CORES];
} blockc_launch_options;

/* The names BLOCKC_GRID_ORDER and BLOCKC_SCHEDULE take for an order ("x", "z",
 * "grouped") and a schedule ("static", "dynamic", "guided", "auto"); "?" for a
 * value that is none of them. Traces and reports print these. */
const char *blockc_grid_order_name(int32_t order);
const char *blockc_schedule_name(int32_t schedule);

/* Sets the defaults: OpenMP's thread count, x fastest, group size 8, the auto
 * schedule, no pinning. Reads no environment. */
void blockc_launch_options_init(blockc_launch_options *options);

/* Overrides the fields whose environment variable is set and not empty
 * (BLOCKC_NUM_THREADS, BLOCKC_GRID_ORDER, BLOCKC_GROUP_SIZE, BLOCKC_SCHEDULE,
 * BLOCKC_CHUNK, BLOCKC_AFFINITY) and leaves the others alone. On an error,
 * `*options` is unchanged. If `error_message` is not null it receives the
 * message (as blockc_last_error() gives it), or null on success. Only syntax
 * and ranges are checked here; whether the process may use the listed cores
 * is checked by blockc_launch_options_check and blockc_launch. */
int blockc_launch_options_from_env(blockc_launch_options *options, const char **error_message);

/* Checks every field, including that each affinity core is in the calling
 * thread's CPU affinity mask. blockc_launch performs the same check. */
int blockc_launch_options_check(const blockc_launch_options *options);

/* Runs kernel(args, x, y, z, grid.x, grid.y, grid.z) once for every program of
 * the grid and returns when all have finished. A null `options` means the
 * defaults overridden by the environment, read at every such call. A grid
 * with a zero dimension runs nothing and succeeds (after its options are
 * checked). A one-thread launch, which includes every one-program grid, runs
 * on the calling thread without entering OpenMP. Safe to call from several
 * threads at once. It is blockc_launch_kernel with no kernel info: no stack
 * check, no core requirement. */
int blockc_launch(blockc_kernel_fn kernel, void **args, blockc_grid grid,
                  const blockc_launch_options *options);

/* Stack a program needs beyond its kernel's scratch: its own frame, SLEEF's
 * and the launcher's. */
#define BLOCKC_STACK_RESERVE_BYTES (64 * 1024)

/* blockc_launch for a kernel whose programs each use `scratch_bytes` of
 * scratch (a kernel object exports it as the constant blockc_scratch_bytes_NAME).
 * It is blockc_launch_kernel for a kernel without core requirements; generated
 * headers call that. Every thread of the launch, before it runs any program,
 * checks that its stack has the kernel's stack scratch (scratch_bytes up to
 * BLOCKC_MAX_STACK_SCRATCH_BYTES, else none) + BLOCKC_STACK_RESERVE_BYTES
 * left, and grows its scratch arena to scratch_bytes when the scratch is
 * beyond the stack. A thread that fails either runs no program, and the launch
 * fails with BLOCKC_ERROR_STACK, naming what sizes that thread's stack
 * (`ulimit -s` for the process's main thread, OMP_STACKSIZE for OpenMP's
 * workers), or BLOCKC_ERROR_OUT_OF_MEMORY, naming the bytes; programs on other
 * threads may have run, so the outputs are incomplete. blockc_launch is this
 * with scratch_bytes 0: no check, and an arena kernel's programs grow their
 * thread's arena themselves. */
int blockc_launch_with_stack(blockc_kernel_fn kernel, void **args, blockc_grid grid,
                             const blockc_launch_options *options, uint64_t scratch_bytes);

/* Units only some cores of a chip have, which a kernel may need: the bits of
 * blockc_kernel_info.core_requirements (a kernel object exports them as the
 * constant blockc_core_requirements_NAME). */
/* The SpacemiT IME (smt.vmadot): on the K1, cores 0-3 (cluster 0) only. */
#define BLOCKC_REQUIRES_SPACEMIT_IME UINT64_C(1)

/* What the launcher needs to know of a compiled kernel beyond its function.
 * `struct_size` makes the struct extensible without breaking the ABI: a
 * caller sets it to sizeof(blockc_kernel_info) as it knows the struct (the
 * BLOCKC_KERNEL_INFO macro does), and the launcher reads no field past it, so
 * fields added later default to 0 for callers compiled before them. */
typedef struct blockc_kernel_info {
  uint64_t struct_size;       /* sizeof(blockc_kernel_info) */
  const char *name;           /* for messages; may be NULL */
  uint64_t scratch_bytes;     /* blockc_scratch_bytes_NAME; 0: no stack check, no arena */
  uint64_t core_requirements; /* blockc_core_requirements_NAME: BLOCKC_REQUIRES_* bits */
} blockc_kernel_info;

#define BLOCKC_KERNEL_INFO(name, scratch_bytes, core_requirements)                                 \
  {sizeof(blockc_kernel_info), (name), (scratch_bytes), (core_requirements)}

/* The launch of a compiled kernel: blockc_launch_with_stack's stack check and
 * scratch arena, and the placement its core requirements ask for. For a kernel that needs
 * the SpacemiT IME (BLOCKC_REQUIRES_SPACEMIT_IME):
 * - without affinity cores in the options, threads are pinned to the cores
 *   that have the IME (and that the calling thread may use), and num_threads
 *   0 means one thread per such core;
 * - with affinity cores, every listed core must have the IME;
 * - otherwise, or when no core of the machine has the IME, the launch fails
 *   with BLOCKC_ERROR_CORE_REQUIREMENT before any program runs.
 * Which cores have the IME is detected once per process (docs/k1.md);
 * BLOCKC_IME_CORES overrides the detection. A kernel without requirements
 * launches exactly as with blockc_launch_with_stack. A null `info` is
 * blockc_launch: no check, no requirement. */
int blockc_launch_kernel(blockc_kernel_fn kernel, void **args, blockc_grid grid,
                         const blockc_launch_options *options, const blockc_kernel_info *info);

/* Where a kernel compiled with bounds checks (`blockc run --check-bounds`,
 * CompileOptions::checkBounds) records its first out-of-bounds access. Such a
 * kernel's `args` holds, after its parameters, one pointer to an int64 extent
 * in bytes per pointer parameter (in parameter order), then a pointer to a
 * zeroed blockc_bounds_report. The program that finds a violation records it
 * and returns before the access; later programs return at once. */
typedef struct blockc_bounds_report {
  int32_t failed;       /* 0, or 1 once a violation is recorded */
  int32_t line, column; /* the load or store in the .bir source */
  int32_t is_store;     /* 0 a load, 1 a store or an atomic (it writes), 2 an assert */
  int32_t argument;     /* the parameter it was derived from; -1 if unknown */
  int32_t pid_x, pid_y, pid_z;
  int64_t offset; /* of the first bad lane, in elements from the argument */
  int64_t extent; /* of the argument, in elements */
} blockc_bounds_report;

/* Tracing (docs/launcher.md, "Tracing a launch"). While a trace records, every
 * launch in the process records its kernel, grid, options, start and end, and
 * for each thread of its team the spans of consecutive programs (flat indices)
 * that thread ran. The trace is written as Chrome trace event JSON (open it in
 * ui.perfetto.dev or chrome://tracing) by blockc_trace_flush, blockc_trace_stop,
 * a later blockc_trace_start, and at process exit. Timestamps are microseconds
 * of the monotonic clock from the trace's start.
 *
 * BLOCKC_TRACE=FILE starts a trace at the first launch of the process, unless
 * blockc_trace_start or blockc_trace_stop was called before: the API takes
 * over from the variable. A FILE that cannot be opened for writing makes every
 * launch fail with BLOCKC_ERROR_INVALID_ENVIRONMENT, naming the file.
 *
 * Off, a trace costs a launch one load of a flag; on, each thread reads the
 * clock once per span, into a buffer allocated before the parallel region, and
 * the launch appends its records to the trace under a mutex after its programs
 * have run. A trace keeps at most BLOCKC_TRACE_MAX_SPANS spans; later launches
 * are counted, not recorded. */
#define BLOCKC_TRACE_MAX_SPANS (1 << 22)

/* Starts a new trace written to `path` (created or truncated now, so that an
 * unwritable path fails here, with BLOCKC_ERROR_TRACE_FILE), or kept in memory
 * only when `path` is NULL. A trace already recording is first written and
 * closed; on an error it goes on recording. */
int blockc_trace_start(const char *path);

/* Writes the trace recorded so far to its file, which then holds a complete
 * JSON document; recording goes on. Succeeds and does nothing when no trace
 * records or it has no file. */
int blockc_trace_flush(void);

/* Writes the trace to its file and stops recording. Its records stay readable
 * through blockc_trace_read until the next blockc_trace_start. */
int blockc_trace_stop(void);

/* One record of a trace: a launch as a whole (thread -1), or a span of
 * consecutive programs that one thread of its team ran. A launch comes before
 * the spans of its threads. */
typedef struct blockc_trace_span {
  int64_t launch;          /* 0 for the trace's first launch, then 1, 2, ... */
  int32_t thread;          /* OpenMP thread number in the launch's team, or -1 */
  int32_t threads;         /* the launch's team size */
  int64_t first_program;   /* flat index of the span's first program; 0 for a launch */
  int64_t programs;        /* programs in the span; a launch: the grid's */
  int64_t untraced;        /* a launch: programs that ran after a span buffer was full */
  double start_us, end_us; /* from the trace's start */
} blockc_trace_span;

/* Copies records `first`, `first + 1`, ... of the current (or last stopped)
 * trace into `spans`, at most `capacity` of them, and returns how many the
 * trace holds in all (0 without a trace), so that a NULL `spans` asks the
 * size. Each launch's records are appended together: a read never sees part
 * of a launch. */
int64_t blockc_trace_read(blockc_trace_span *spans, int64_t first, int64_t capacity);

/* The message of the last call on this thread that failed, or "" if the last
 * call succeeded. It stays valid until the next blockc call on this thread. */
const char *blockc_last_error(void);

/* NOLINTEND(readability-identifier-naming) */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BLOCKC_RUNTIME_H */

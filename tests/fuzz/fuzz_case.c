/* fuzz_case.c — libFuzzer target for the case-file parser (tvds_case_read) over a fixed tiny
 * directory: the fuzzed text is written as case.ini next to copies of the one-node shoe and the
 * 8-DoF bar substructures and a force table (tests/data/case). Checks: no crash, no leak, the
 * error contract, *m NULL on failure. */
#define _GNU_SOURCE /* memmem */
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"
#include "tvds/tvds_case.h"

#ifndef FUZZ_DATA
#define FUZZ_DATA "tests/data/case"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void copy_sub(const char *name, const char *const *files, int nfiles)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/%s", fuzz_scratch(), name);
    if (mkdir(dir, 0700) != 0) abort();
    for (int k = 0; k < nfiles; k++) {
        char from[300];
        snprintf(from, sizeof from, FUZZ_DATA "/%s/%s", name, files[k]);
        fuzz_copy(from, dir, files[k]);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static const char *const shoe[] = {"M.mtx", "K.mtx", "dofs.txt", "sets.txt"};
    static const char *const bar[] = {"M.mtx",    "K.mtx",        "dofs.txt",
                                      "sets.txt", "recovery.txt", "recovery.mtx"};
    copy_sub("shoe", shoe, 4);
    copy_sub("bar", bar, 6);
    fuzz_copy(FUZZ_DATA "/force.txt", NULL, "force.txt");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The parser may name other files of the scratch directory, never anything outside it
     * that could block (a FIFO, /dev/zero): inputs mentioning /dev or /proc are skipped. */
    if (memmem(data, size, "/dev", 4) || memmem(data, size, "/proc", 5) ||
        memmem(data, size, "/sys", 4))
        return 0;
    const char *p = fuzz_write(NULL, "case.ini", data, size);
    char path[256];
    snprintf(path, sizeof path, "%s", p);

    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    int rc = tvds_case_read(path, NULL, 0, &m, &ctx);
    fuzz_check_status(rc, &ctx);
    FUZZ_ASSERT((rc == TVDS_OK) == (m != NULL), "rc %d but m %p", rc, (void *)m);
    tvds_model_free(&m);
    FUZZ_ASSERT(m == NULL, "tvds_model_free did not clear the pointer");
    return 0;
}

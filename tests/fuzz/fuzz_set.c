/* fuzz_set.c — libFuzzer target for `--set` overrides (tvds_case_read's overrides argument):
 * each line of the input is one override "section.key=value", applied to the complete case
 * tests/data/case/valid.ini. Checks: no crash, no leak, the error contract, *m NULL on
 * failure. */
#define _GNU_SOURCE /* memmem */
#include <string.h>

#include "fuzz_util.h"
#include "tvds/tvds_case.h"

#ifndef FUZZ_DATA
#define FUZZ_DATA "tests/data/case"
#endif

#define FUZZ_SET_MAX 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memmem(data, size, "/dev", 4) || memmem(data, size, "/proc", 5) ||
        memmem(data, size, "/sys", 4))
        return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    const char *ov[FUZZ_SET_MAX];
    int nov = 0;
    for (char *line = text; line && nov < FUZZ_SET_MAX;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        ov[nov++] = line;
        line = nl ? nl + 1 : NULL;
    }
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    int rc = tvds_case_read(FUZZ_DATA "/valid.ini", ov, nov, &m, &ctx);
    fuzz_check_status(rc, &ctx);
    FUZZ_ASSERT((rc == TVDS_OK) == (m != NULL), "rc %d but m %p", rc, (void *)m);
    tvds_model_free(&m);
    free(text);
    return 0;
}

/* cmd_bench_table.c — `tvds bench`'s result table (stdout, bench.csv, bench.md) and the helpers
 * its sections share. */
/* wait4 (the rusage of one child), mkdtemp and gmtime_r are BSD/POSIX extensions of glibc. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd_bench_impl.h"
#include "tvds/tvds_beams.h"
#include "tvds/tvds_bench.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_reduce.h"
#include "tvds/tvds_sim.h"
#include "tvds/tvds_sweep.h"

/* ---- Result table --------------------------------------------------------------------------- */

void bench_add(btab *t, const char *section, const char *item, double value, const char *unit,
               const char *fmt, ...)
{
    if (t->n >= (int)(sizeof t->r / sizeof t->r[0])) return;
    brow *r = &t->r[t->n++];
    snprintf(r->section, sizeof r->section, "%s", section);
    snprintf(r->item, sizeof r->item, "%s", item);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    r->value = value;
    r->note[0] = '\0';
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->note, sizeof r->note, fmt, ap);
        va_end(ap);
    }
    printf("%-10s %-34s %14.6g %-10s %s\n", r->section, r->item, r->value, r->unit, r->note);
    fflush(stdout);
}

static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int bench_write_outputs(const btab *t, const char *dir, const char *machine, const char *case_path)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/bench.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "section,item,value,unit,note\n");
    for (int i = 0; i < t->n; i++) {
        const brow *r = &t->r[i];
        csv_field(f, r->section);
        fputc(',', f);
        csv_field(f, r->item);
        fprintf(f, ",%.9g,", r->value);
        csv_field(f, r->unit);
        fputc(',', f);
        csv_field(f, r->note);
        fputc('\n', f);
    }
    if (ferror(f) | fclose(f)) return -1;
    snprintf(path, sizeof path, "%s/bench.md", dir);
    f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f,
            "Machine: %s\n\nCase: %s\n\n| section | item | value | unit | note |\n"
            "|---|---|---|---|---|\n",
            machine, case_path);
    for (int i = 0; i < t->n; i++) {
        const brow *r = &t->r[i];
        fprintf(f, "| %s | %s | %.4g | %s | %s |\n", r->section, r->item, r->value, r->unit,
                r->note);
    }
    if (ferror(f) | fclose(f)) return -1;
    return 0;
}

/* ---- Helpers ------------------------------------------------------------------------------- */

void bench_rm_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *e;
    char sub[4400];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        struct stat st;
        if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            bench_rm_tree(sub);
        else
            unlink(sub);
    }
    closedir(d);
    rmdir(path);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void bench_machine_string(char *buf, size_t size)
{
    char model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *p = strchr(line, ':');
                if (p) {
                    p++;
                    while (*p == ' ' || *p == '\t')
                        p++;
                    p[strcspn(p, "\n")] = '\0';
                    snprintf(model, sizeof model, "%s", p);
                }
                break;
            }
        }
        fclose(f);
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tmv);
    snprintf(buf, size, "%s, %ld logical cores, tvds %s, %s", model, ncpu, TVDS_VERSION, date);
}

int bench_fail(const char *what, int rc, const tvds_ctx *ctx)
{
    fprintf(stderr, "tvds: bench: %s: %s\n", what, ctx->msg[0] ? ctx->msg : tvds_strerror(rc));
    return rc;
}

double bench_load1(void)
{
    double l = -1.0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1.0;
        fclose(f);
    }
    return l;
}

/* cli_stop.c — a stop signal honoured within a second even inside a step that cannot be cut
 * (one sparse factorization, reading a large file), for commands that change nothing on disk
 * outside a short critical section (reduce, import). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tvds/tvds_output.h"

static pthread_t watchdog;
static atomic_int watching, critical;
static const char *watch_cmd;
static double watch_grace;
static void (*watch_cleanup)(void *);
static void *watch_arg;

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static void *watch(void *arg)
{
    (void)arg;
    volatile sig_atomic_t *stop = tvds_cli_stop_flag();
    double waited = 0.0;
    while (atomic_load(&watching)) {
        sleep_s(0.05);
        waited = *stop ? waited + 0.05 : 0.0;
        /* The command's own checks had their chance; it is inside a step that cannot be cut.
         * Nothing of the output is committed outside the critical section, so ending here
         * leaves the directory as it was (the kernel drops its lock). */
        if (waited >= watch_grace && !atomic_load(&critical)) {
            fprintf(stderr,
                    "tvds: %s: interrupted (%s) during a step that cannot be cut; nothing "
                    "committed, the output directory is as it was\n",
                    watch_cmd, tvds_cli_signal_name((int)*stop));
            if (watch_cleanup) watch_cleanup(watch_arg);
            _exit(3);
        }
    }
    return NULL;
}

int tvds_cli_stop_watchdog(const char *cmd, double grace_s, void (*cleanup)(void *), void *arg)
{
    watch_cmd = cmd;
    watch_grace = grace_s;
    watch_cleanup = cleanup;
    watch_arg = arg;
    atomic_store(&critical, 0);
    atomic_store(&watching, 1);
    if (pthread_create(&watchdog, NULL, watch, NULL) != 0) {
        atomic_store(&watching, 0);
        return -1;
    }
    return 0;
}

void tvds_cli_stop_critical(int enter)
{
    atomic_store(&critical, enter);
}

void tvds_cli_stop_watchdog_end(void)
{
    if (!atomic_exchange(&watching, 0)) return;
    pthread_join(watchdog, NULL);
}

void tvds_cli_outdir_undo_fn(void *arg)
{
    const tvds_cli_outdir_undo *u = arg;
    if (u->od) tvds_outdir_close(u->od);
    tvds_commit_abort(u->dir);
    if (u->existed) return;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    (void)tvds_outdir_remove(u->dir, NULL, 0, &ctx); /* refused while another process owns it */
}

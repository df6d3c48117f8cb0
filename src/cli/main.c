/* main.c — the `tvds` command: dispatch to subcommands. */
#include <stdio.h>
#include <string.h>

#include "tvds/tvds.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: tvds <command> [options]\n"
                 "       tvds --help | --version\n"
                 "\n"
                 "tvds %s: friction-induced vibration analysis by time-variant dynamic substructuring.\n",
            TVDS_VERSION);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("tvds %s\n", TVDS_VERSION);
        return 0;
    }
    fprintf(stderr, "tvds: unknown command '%s' (see 'tvds --help')\n", argv[1]);
    return 2;
}

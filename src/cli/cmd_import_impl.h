/* cmd_import_impl.h — the subcommands of `tvds import` for other codes' matrices
 * (cmd_import_fe.c); argv[0] is the format name. */
#ifndef TVDS_CMD_IMPORT_IMPL_H
#define TVDS_CMD_IMPORT_IMPL_H

int tvds_cmd_import_abaqus(int argc, char **argv);
int tvds_cmd_import_nastran(int argc, char **argv);

#endif

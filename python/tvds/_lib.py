"""_lib.py — loading libtvds.so and the C prototypes (ctypes), status codes into exceptions.

The library is looked for, in order: the path in the environment variable TVDS_LIBRARY, the
build tree this package sits in (../build/lib/libtvds.so.MAJOR), the installed soname
(libtvds.so.MAJOR through the dynamic loader: make install).
"""
import ctypes
import os

MAJOR = 0  # soname major version this package speaks to (docs/library.md)

c_double_p = ctypes.POINTER(ctypes.c_double)
c_char_pp = ctypes.POINTER(ctypes.c_char_p)
c_int_p = ctypes.POINTER(ctypes.c_int)
c_void_pp = ctypes.POINTER(ctypes.c_void_p)
# sig_atomic_t is int on the platforms tvds builds on (glibc).
c_sig_atomic = ctypes.c_int


class TvdsError(Exception):
    """An error reported by the library: .status (negative code), .status_name
    ("TVDS_ERR_PARSE", ...) and the message, which names the input file and line
    ("case.ini:12: unknown key 'mu'") where there is one."""

    def __init__(self, status, message):
        self.status = status
        self.status_name = status_name(status)
        self.message = message or strerror(status)
        super().__init__(self.message)


class Interrupted(TvdsError, KeyboardInterrupt):
    """A run or CEA stopped by a signal (Ctrl-C): outputs are flushed and summary.json says
    "interrupted". Also a KeyboardInterrupt, so a script stops as it would on Ctrl-C."""


def _candidates():
    env = os.environ.get("TVDS_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.join(os.path.dirname(os.path.dirname(here)), "build", "lib",
                        "libtvds.so.%d" % MAJOR)
    return [tree, "libtvds.so.%d" % MAJOR]


def _load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            errors.append("%s: no such file" % path)
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append(str(e))
    raise ImportError("tvds: cannot load the tvds library (set TVDS_LIBRARY, build with "
                      "'make', or 'make install'): " + "; ".join(errors))


lib, path = _load()


def _proto(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)


vp = ctypes.c_void_p
ci, cd, cl, cs, sz = ctypes.c_int, ctypes.c_double, ctypes.c_long, ctypes.c_char_p, ctypes.c_size_t
sig_p = ctypes.POINTER(c_sig_atomic)
for _n, _r, *_a in [
    ("tvds_version", cs, c_int_p, c_int_p, c_int_p),
    ("tvds_strerror", cs, ci),
    ("tvds_status_name", cs, ci),
    ("tvds_ctx_create", vp),
    ("tvds_ctx_free", None, c_void_pp),
    ("tvds_ctx_status", ci, vp),
    ("tvds_ctx_message", cs, vp),
    ("tvds_method_name", cs, ci),
    ("tvds_case_read", ci, cs, c_char_pp, ci, c_void_pp, vp),
    ("tvds_model_free", None, c_void_pp),
    ("tvds_model_name", cs, vp),
    ("tvds_model_t_end", cd, vp),
    ("tvds_model_dt", cd, vp),
    ("tvds_model_out_dt", cd, vp),
    ("tvds_model_method", ci, vp),
    ("tvds_model_option", ci, vp, cs, c_double_p, vp),
    ("tvds_model_option_key", cs, ci),
    ("tvds_model_nsub", ci, vp),
    ("tvds_model_sub_name", cs, vp, ci),
    ("tvds_model_sub_ndof", ci, vp, ci),
    ("tvds_model_ncontact", ci, vp),
    ("tvds_model_contact_name", cs, vp, ci),
    ("tvds_model_find_contact", ci, vp, cs),
    ("tvds_model_nprobe", ci, vp),
    ("tvds_model_probe_name", cs, vp, ci),
    ("tvds_data_create", ci, vp, c_void_pp, vp),
    ("tvds_data_free", None, c_void_pp),
    ("tvds_step", ci, vp, vp, vp),
    ("tvds_data_time", cd, vp),
    ("tvds_data_dt", cd, vp),
    ("tvds_data_steps", cl, vp),
    ("tvds_data_stable_dt", cd, vp),
    ("tvds_channels_update", ci, vp, vp),
    ("tvds_channels", ci, vp, ci, c_int_p, ctypes.POINTER(c_char_pp),
     ctypes.POINTER(c_double_p)),
    ("tvds_summary", ci, vp, c_int_p, ctypes.POINTER(c_char_pp), ctypes.POINTER(c_double_p)),
    ("tvds_group_name", cs, ci),
    ("tvds_channel_count", ci, vp, ci),
    ("tvds_channel_info", ci, vp, ci, ci, cs, sz, cs, sz),
    ("tvds_label_split", ci, cs, cs, sz, cs, sz),
    ("tvds_run_simple", ci, vp, cs, sig_p, vp),
    ("tvds_cea_options_create", vp),
    ("tvds_cea_options_free", None, c_void_pp),
    ("tvds_cea_options_set", ci, vp, cs, cd, vp),
    ("tvds_cea_options_set_stop", None, vp, sig_p),
    ("tvds_cea_default_range", ci, vp, ci, vp, c_double_p, c_double_p, vp),
    ("tvds_cea_run", ci, vp, ci, c_double_p, ci, vp, c_void_pp, vp),
    ("tvds_cea_result_free", None, c_void_pp),
    ("tvds_cea_result_size", ci, vp, c_int_p, c_int_p, c_int_p),
    ("tvds_cea_result_array", c_double_p, vp, cs, c_int_p),
    ("tvds_cea_result_windows", ci, vp, cs, c_double_p, vp),
    ("tvds_cea_write_csv", ci, vp, cs, vp),
    ("tvds_reduce_dir", ci, cs, cs, cs, cs, ci, cd, ci, cs, vp),
    ("tvds_import_calculix_dir", ci, cs, cs, ci, vp),
]:
    _proto(_n, _r, *_a)


def strerror(status):
    return lib.tvds_strerror(status).decode()


def status_name(status):
    return lib.tvds_status_name(status).decode()


def enc(s):
    return None if s is None else os.fsencode(s) if isinstance(s, os.PathLike) else \
        s.encode() if isinstance(s, str) else s


class Context:
    """An error context (tvds_ctx) on the heap; check() turns a status into an exception."""

    def __init__(self):
        self.ptr = lib.tvds_ctx_create()
        if not self.ptr:
            raise MemoryError("tvds_ctx_create")

    def message(self):
        return lib.tvds_ctx_message(self.ptr).decode(errors="replace")

    def check(self, rc):
        if rc < 0:
            msg = self.message()
            if rc == lib_status("TVDS_ERR_INTERRUPTED"):
                raise Interrupted(rc, msg)
            raise TvdsError(rc, msg)
        return rc

    def __del__(self):
        if getattr(self, "ptr", None):
            p = ctypes.c_void_p(self.ptr)
            lib.tvds_ctx_free(ctypes.byref(p))
            self.ptr = None


_codes = {}


def lib_status(name):
    """Value of a status code by name ("TVDS_ERR_PARSE"), from the library's own table."""
    if not _codes:
        for v in range(-64, 64):
            _codes[status_name(v)] = v
    return _codes[name]
